"""``robot.state`` cannot be corrupted by a stray write, and a held member keeps its documented behaviour:
the same object on every read, current after a step or a teleport, refreshed from the engine only when read
or held (numpy: a read-only view; torch: a tensor over a mirror the runtime rewrites)."""

from __future__ import annotations

import numpy as np
import pytest

import simulo

torch = pytest.importorskip("torch")

MEMBERS = ("pose", "linear_velocity", "angular_velocity", "joint_positions", "joint_velocities", "joint_efforts")
PD = {"all_joints": simulo.ActuatorGainsConfig(stiffness=20.0, damping=2.0)}


def engine_state(robot: simulo.Robot) -> bytes:
    """The state read straight from the engine batch, bypassing the runtime's buffers."""
    data = robot.data
    n, j = data.num_envs, data.num_joints
    q, qd, eff = np.zeros((n, j)), np.zeros((n, j)), np.zeros((n, j))
    pose, lin, ang = np.zeros((n, 7)), np.zeros((n, 3)), np.zeros((n, 3))
    data.batch.read_joints(q, qd, eff)
    data.batch.read_base(pose, lin, ang)
    return b"".join(a.tobytes() for a in (q, qd, pose, lin, ang))


@pytest.mark.parametrize("member", MEMBERS)
def test_a_numpy_member_is_one_read_only_view_and_writing_into_it_changes_nothing(cartpole, make, member) -> None:
    robot, sim = make(cartpole, num_envs=2)
    robot.set_joint_state([[0.1, 0.2], [0.3, 0.4]])
    value = getattr(robot.state, member)
    assert getattr(robot.state, member) is value and not value.flags.writeable
    before = (np.array(robot.get_joint_state()[0]), engine_state(robot))
    with pytest.raises(ValueError, match="read-only"):
        value[:] = np.nan
    np.testing.assert_array_equal(robot.get_joint_state()[0], before[0])
    assert engine_state(robot) == before[1]


def test_a_fixed_base_pose_write_does_not_persist(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=1)
    assert robot.is_fixed_base
    pose = robot.state.pose
    with pytest.raises(ValueError, match="read-only"):
        pose[0, 2] = 50.0
    sim.step(3)
    assert robot.state.pose[0, 2] == pytest.approx(np.asarray(robot.default_pose)[0, 2])


def test_a_held_view_is_current_after_a_step_and_a_teleport(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2)
    held_q, held_v = robot.state.joint_positions, robot.state.joint_velocities
    robot.set_joint_effort_target([[10.0], [-10.0]], joint_ids=[0])
    sim.step(12)
    assert held_q[0, 0] > 0.0 and held_q[1, 0] < 0.0  # no read in between: held, so refreshed after the step
    assert robot.state.joint_positions is held_q
    robot.set_joint_state([[0.5, 0.0], [0.25, 0.0]])
    np.testing.assert_array_equal(held_q[:, 0], [0.5, 0.25])
    np.testing.assert_array_equal(held_v, np.zeros((2, 2)))


def test_a_held_slice_of_a_view_is_current_after_a_step(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2)
    cart = robot.state.joint_positions[:, 0]  # a view of the view: only the buffer's count shows it
    robot.set_joint_effort_target([[10.0], [-10.0]], joint_ids=[0])
    sim.step(12)
    assert cart[0] > 0.0 and cart[1] < 0.0 and not cart.flags.writeable


def test_a_step_refreshes_nothing_until_a_member_is_read(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2)
    robot.set_joint_effort_target([[10.0], [-10.0]], joint_ids=[0])
    sim.step(1)
    data = robot.data
    assert data.joints_stale  # nobody holds or read the joints: the engine read waits
    q = robot.state.joint_positions
    assert not data.joints_stale and q[0, 0] != 0.0
    np.testing.assert_array_equal(q, data.q)


def test_the_base_frame_members_are_new_arrays(floater, make) -> None:
    robot, sim = make(floater, num_envs=1, articulation=simulo.ArticulationConfig(fix_root_link=False))
    first = robot.state.linear_velocity_in_base_frame
    assert robot.state.linear_velocity_in_base_frame is not first and first.flags.writeable


def test_a_torch_member_is_one_tensor_live_when_held_and_a_write_never_reaches_the_engine(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2, sim={"use_torch": True}, actuator_gains=PD)
    _, twin_sim = make(cartpole, num_envs=2, sim={"use_torch": True}, actuator_gains=PD)
    twin = twin_sim.scene.get_items()[0]["item"]
    q = robot.state.joint_positions
    assert robot.state.joint_positions is q
    for r in (robot, twin):
        r.set_joint_position_target(torch.tensor([[0.3, 0.1], [-0.2, 0.4]]))
    q[:] = float("nan")  # a stray in-place write into the PD joints' positions
    sim.step(20)
    twin_sim.step(20)
    assert torch.isfinite(q).all()  # held: rewritten from the runtime's buffer after the step
    assert engine_state(robot) == engine_state(twin)
    assert torch.equal(robot.state.joint_positions, twin.state.joint_positions)


def test_a_numpy_pd_joint_cannot_be_poisoned(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=1, actuator_gains=PD)
    robot.set_joint_position_target([[0.3, 0.1]])
    with pytest.raises(ValueError, match="read-only"):
        robot.state.joint_positions[0, 0] = np.nan
    sim.step(10)
    assert np.isfinite(robot.state.joint_positions).all() and np.isfinite(robot.state.joint_efforts).all()


def test_prop_state_is_read_only_too(make, cartpole) -> None:
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.1, 0.1, 0.1), physics=simulo.RigidPhysics(mass=0.2),
                                     pose=simulo.Pose.from_xyz(0.0, 0.0, 0.5)))
    robot, sim = make(cartpole, num_envs=1, extra=lambda scene: scene.add(cube, at="/World"))
    pose = cube.state.pose
    with pytest.raises(ValueError, match="read-only"):
        pose[0, 2] = 9.0
    sim.step(5)
    assert cube.state.pose is pose and pose[0, 2] < 0.5
