"""Tensors: the library is chosen when the simulation is built; inputs of either library are accepted and
outputs never switch (held state stays live)."""

from __future__ import annotations

import numpy as np
import pytest

from simulo.errors import EnvIdError, NonFiniteError, ShapeError, SimuloValueError
from simulo.sim.tensors import Tensors, is_torch

torch = pytest.importorskip("torch")


def test_numpy_by_default(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2)
    robot.set_joint_position_target([[0.1], [0.2]], joint_ids=[0])  # plain lists are fine too
    sim.step(1)
    for value in (robot.state.pose, robot.state.joint_positions, robot.state.linear_velocity_in_base_frame,
                  robot.default_pose, robot.get_body_pose("cart"), robot.get_mass_matrix(), sim.env_origins):
        assert isinstance(value, np.ndarray) and value.dtype == np.float64


def test_a_numpy_simulation_given_torch_inputs_applies_them_and_keeps_returning_numpy_arrays(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2)
    held = robot.state.joint_positions
    robot.set_joint_effort_target(torch.tensor([[10.0], [-10.0]], dtype=torch.float32), joint_ids=torch.tensor([0]))
    sim.set_gravity(torch.tensor([[0.0, 0.0, -9.81]] * 2))
    sim.step(12)
    q = robot.state.joint_positions
    assert q is held and isinstance(q, np.ndarray) and q.dtype == np.float64
    assert q[0, 0] > 0.0 and q[1, 0] < 0.0  # the torch target was applied: the carts slide apart
    for value in (robot.state.pose, robot.state.linear_velocity_in_base_frame, robot.default_pose,
                  robot.get_body_pose("pole"), robot.get_jacobians([2]), robot.get_mass_matrix(),
                  *robot.get_body_pose_in_base_frame("pole"), *robot.get_joint_state(), sim.gravity, sim.env_origins):
        assert isinstance(value, np.ndarray) and value.dtype == np.float64


def test_a_torch_simulation_given_numpy_inputs_returns_float32_torch_tensors(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2, sim={"use_torch": True})
    live = robot.state.joint_positions
    robot.set_joint_effort_target(np.array([[10.0], [-10.0]]), joint_ids=np.array([0]))
    sim.set_gravity(np.array([[0.0, 0.0, -9.81]] * 2), env_ids=np.array([1, 0]))
    sim.step(12)
    assert live[0, 0].item() > 0.0 and live[1, 0].item() < 0.0  # the numpy target was applied
    for value in (robot.state.pose, robot.state.joint_velocities, robot.state.joint_efforts,
                  robot.state.angular_velocity_in_base_frame, robot.default_joint_velocities,
                  robot.get_body_pose("pole"), robot.get_body_velocity("pole"), robot.get_root_velocity(),
                  robot.get_jacobians([2]), robot.get_mass_matrix(), robot.get_gravity_compensation(),
                  *robot.get_body_pose_in_base_frame("pole"), *robot.get_body_velocity_in_base_frame("pole"),
                  *robot.get_joint_state(), robot.get_root_pose(), sim.gravity):
        assert isinstance(value, torch.Tensor) and value.dtype == torch.float32
    pos, _ = robot.get_body_pose_in_base_frame("cart")
    np.testing.assert_allclose(pos[:, 0].numpy(), live[:, 0].numpy(), atol=1e-6)  # the cart slides along x


def test_torch_env_ids_and_values_are_accepted_by_a_numpy_simulation(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=6)
    ids = torch.tensor([5, 1, 3])
    robot.set_joint_state(torch.full((3, 2), 0.25, dtype=torch.float64), env_ids=ids)
    q = robot.state.joint_positions
    assert isinstance(q, np.ndarray)
    np.testing.assert_array_equal(q[:, 0], [0.0, 0.25, 0.0, 0.25, 0.0, 0.25])
    robot.reset(env_ids=torch.tensor([1]))
    np.testing.assert_array_equal(q[:, 0], [0.0, 0.0, 0.0, 0.25, 0.0, 0.25])


def test_converter_validation() -> None:
    t = Tensors()
    out = t.floats([[1, 2, 3]], (1, 3), "x")
    assert out.dtype == np.float64 and out.tolist() == [[1.0, 2.0, 3.0]]
    source = np.array([[1.0, 2.0]])
    assert not np.shares_memory(t.floats(source, (1, 2), "x"), source)  # always a copy
    with pytest.raises(ShapeError, match=r"x must have shape \(2, 3\), got \(1, 3\)"):
        t.floats([[1, 2, 3]], (2, 3), "x")
    with pytest.raises(NonFiniteError, match=r"x contains a non-finite value nan at index \[0, 1\]"):
        t.floats([[1.0, float("nan")]], (1, 2), "x")
    with pytest.raises(SimuloValueError, match="x must be numeric, got dtype <U1"):
        t.floats([["a"]], (1, 1), "x")
    assert t.floats([[np.inf]], (1, 1), "x", finite=False)[0, 0] == np.inf
    np.testing.assert_array_equal(t.env_ids(None, 3), [0, 1, 2])
    np.testing.assert_array_equal(t.env_ids(2, 3), [2])
    np.testing.assert_array_equal(t.env_ids(np.array([2, 0], dtype=np.int32), 3), [2, 0])
    with pytest.raises(EnvIdError, match="env_ids must hold integers, got dtype bool"):
        t.env_ids([True, False], 3)
    np.testing.assert_array_equal(t.env_ids(torch.tensor([0]), 3), [0])
    assert t.floats(torch.ones(1, 2), (1, 2), "x").dtype == np.float64
    assert not t.uses_torch and type(t.out(np.zeros(2))) is np.ndarray  # torch inputs do not change the library
    torch_out = Tensors(use_torch=True).out(np.zeros(2))
    assert isinstance(torch_out, torch.Tensor) and torch_out.dtype == torch.float32
    assert is_torch(torch.zeros(1)) and not is_torch(np.zeros(1))


def test_a_torch_simulation_gives_float32_state_as_the_sdk_and_keeps_it_live(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2, sim={"use_torch": True})
    live = robot.state.joint_positions
    for value in (robot.state.pose, live, robot.state.joint_velocities, robot.state.joint_efforts,
                  robot.state.linear_velocity, robot.state.linear_velocity_in_base_frame, robot.default_pose,
                  robot.default_joint_positions, robot.get_body_pose("cart"), robot.get_mass_matrix(),
                  robot.get_jacobians(), sim.env_origins):
        assert isinstance(value, torch.Tensor) and value.dtype == torch.float32
    robot.set_joint_effort_target(torch.tensor([[10.0], [-10.0]]), joint_ids=[0])
    sim.step(12)
    assert live[0, 0].item() > 0.0 and live[1, 0].item() < 0.0  # the held float32 tensor is refreshed in place
    assert torch.equal(live, robot.state.joint_positions)
    # a float32 target buffer takes the defaults without a dtype clash (the SDK samples' reset_idx pattern)
    targets = torch.zeros(2, 2)
    targets[torch.tensor([1])] = robot.default_joint_positions[torch.tensor([1])]
