"""robot.internals: the engine batch read through, answering also Isaac Lab's default-state names.

Apps written for the cloud (whose engine is Isaac Lab) reset from ``robot.internals.default_joint_pos``,
``default_joint_vel`` and ``default_root_state``; the PyBullet runtime's escape hatch answers those with
Isaac Lab's meaning while every attribute of the engine batch still reads through.
"""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import NotAttachedError


def test_engine_batch_members_read_through(cartpole, make) -> None:
    robot, _ = make(cartpole, num_envs=2)
    internals = robot.internals
    assert internals is robot.internals  # one object per attachment
    assert internals.num_envs == 2 and [j.name for j in internals.joints] == ["slider_to_cart", "cart_to_pole"]
    assert internals.handles == robot.data.batch.handles
    with pytest.raises(AttributeError):
        internals.no_such_member


def test_default_joint_state_matches_the_robot_defaults(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=3)
    robot.set_joint_state([[0.5, -0.3]] * 3)
    sim.step(2)
    np.testing.assert_array_equal(robot.internals.default_joint_pos, robot.default_joint_positions)
    np.testing.assert_array_equal(robot.internals.default_joint_vel, robot.default_joint_velocities)
    # a copy: writing into it changes no default
    robot.internals.default_joint_pos[:] = 9.0
    np.testing.assert_array_equal(robot.internals.default_joint_pos, np.zeros((3, 2)))


def test_default_root_state_is_local_to_each_environment_and_at_rest(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=4, scene={"env_spacing": 3.0})
    state = robot.internals.default_root_state
    assert state.shape == (4, 13)
    origins = np.asarray(sim.env_origins)
    assert np.ptp(origins[:, :2], axis=0).max() > 0  # the environments really are spread out
    np.testing.assert_allclose(state[:, :3], np.asarray(robot.default_pose)[:, :3] - origins)
    np.testing.assert_allclose(state[:, :7], np.tile(state[0, :7], (4, 1)))  # the same in every environment
    np.testing.assert_allclose(state[0, 2], 2.0)  # the catalog cartpole's spawn height
    np.testing.assert_array_equal(state[:, 7:], np.zeros((4, 6)))


def test_default_root_state_of_a_robot_placed_once_keeps_world_coordinates(cartpole) -> None:
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(cartpole, initial_pose=simulo.Pose.from_xyz(1.0, 2.0, 0.5))
    scene.add(robot, at="/World/Robot", per_environment=False)
    sim = simulo.Simulation(scene)
    try:
        np.testing.assert_allclose(robot.internals.default_root_state[:, :3], [[1.0, 2.0, 0.5]])
    finally:
        sim.close()


def test_a_numpy_simulation_given_torch_inputs_keeps_numpy_internals(cartpole, make) -> None:
    torch = pytest.importorskip("torch")
    robot, sim = make(cartpole, num_envs=2)
    robot.set_joint_effort_target(torch.zeros((2, 1)), joint_ids=[0])
    for value in (robot.internals.default_joint_pos, robot.internals.default_joint_vel,
                  robot.internals.default_root_state):
        assert type(value) is np.ndarray and value.dtype == np.float64


def test_a_torch_simulation_gives_torch_internals_that_feed_set_joint_state(cartpole, make) -> None:
    torch = pytest.importorskip("torch")
    robot, sim = make(cartpole, num_envs=2, sim={"use_torch": True})
    for value in (robot.internals.default_joint_pos, robot.internals.default_joint_vel,
                  robot.internals.default_root_state):
        assert isinstance(value, torch.Tensor) and value.dtype == torch.float32
    ids = torch.tensor([1])
    joint_pos = robot.internals.default_joint_pos[ids].clone()
    joint_pos[:, 1] += 0.2
    robot.set_joint_state(joint_pos, velocities=robot.internals.default_joint_vel[ids], env_ids=ids)
    np.testing.assert_allclose(robot.state.joint_positions[1].numpy(), [0.0, 0.2])


def test_not_available_before_attach(cartpole) -> None:
    with pytest.raises(NotAttachedError, match="internals is not available until"):
        simulo.Robot(cartpole).internals
