"""Commands of ``simulo.Robot`` whose checks need PyBullet's physics: effort-driven motion, falling bases,
the engine motor's gains and force limit, joint limits, damping and an offset centre of mass.

The engine-neutral command contract is in ``tests/sim/contract/test_commands.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import simulo

DT = 1.0 / 120.0
FREE = simulo.ArticulationConfig(fix_root_link=False)
SUBSET = [5, 1, 3]  # non-contiguous, unordered
OTHERS = [0, 2, 4]


def test_effort_target_for_all_envs_and_joint_subsets(arm, make) -> None:
    robot, sim = make(arm, num_envs=2, disable_gravity=True)
    robot.set_joint_effort_target(np.array([[0.5], [-0.5]]), joint_ids=robot.find_joints("base_yaw"))
    sim.step(24)
    qd = np.asarray(robot.state.joint_velocities)
    assert qd[0, 0] > 0.05 and qd[1, 0] < -0.05
    np.testing.assert_allclose(qd[0, 0], -qd[1, 0], rtol=1e-9)
    np.testing.assert_allclose(np.asarray(robot.state.joint_efforts)[:, 0], [0.5, -0.5])
    # joint_ids=None addresses every joint, in get_joint_names() order
    robot.set_joint_effort_target(np.zeros((2, 7)))
    sim.step(1)
    np.testing.assert_array_equal(np.asarray(robot.state.joint_efforts), np.zeros((2, 7)))


def test_set_root_pose_teleports_a_floating_base(floater, make) -> None:
    robot, sim = make(floater, num_envs=6, plane=True, articulation=FREE,
                      initial_pose=simulo.Pose.from_xyz(0, 0, 0.06))
    sim.step(5)
    before = np.array(robot.state.pose)
    origins = np.asarray(sim.env_origins)[SUBSET]
    quat = np.array([2.0, 0.0, 0.0, 2.0])  # not unit length: normalised to 90° about z
    targets = np.column_stack([origins + [[0.1, 0.2, 0.5]], np.tile(quat, (3, 1))])
    robot.set_root_pose(targets, env_ids=SUBSET)
    pose = np.asarray(robot.state.pose)  # current at once, before any step
    np.testing.assert_allclose(pose[SUBSET, :3], targets[:, :3], atol=1e-9)
    np.testing.assert_allclose(pose[SUBSET, 3:], np.tile([2 ** -0.5, 0, 0, 2 ** -0.5], (3, 1)), atol=1e-9)
    np.testing.assert_array_equal(pose[OTHERS], before[OTHERS])
    # the arm frame moved with the base (the body read agrees with the teleport)
    arm_pose = np.asarray(robot.get_body_pose("arm"))
    np.testing.assert_allclose(arm_pose[SUBSET, :3], targets[:, :3] + [0.0, 0.1, 0.0], atol=1e-6)
    sim.step(24)  # it falls from the new height
    assert np.all(np.asarray(robot.state.pose)[SUBSET, 2] < targets[:, 2] - 0.02)


def test_reset_to_default_resets_every_env(floater, make) -> None:
    robot, sim = make(floater, num_envs=3, plane=True, articulation=FREE,
                      initial_pose=simulo.Pose.from_xyz(0, 0, 0.3))
    default = np.asarray(robot.default_pose)
    robot.set_joint_effort_target(np.full((3, 1), 0.5), joint_ids=[0])
    sim.step(60)
    assert not np.allclose(robot.state.pose, default)
    robot.reset_to_default()
    np.testing.assert_allclose(robot.state.pose, default, atol=1e-9)
    np.testing.assert_array_equal(robot.state.joint_positions, np.zeros((3, 1)))
    np.testing.assert_array_equal(robot.get_root_velocity(), np.zeros((3, 6)))
    sim.step(1)
    np.testing.assert_array_equal(robot.state.joint_efforts, np.zeros((3, 1)))  # the effort target is gone


def test_actuator_gains_motor_config_limits_the_engine_motor(cartpole, make) -> None:
    slow = {"slider_to_cart": simulo.MotorGainsConfig(position_gain=0.3, max_force=5.0)}
    robot, sim = make(cartpole, num_envs=1, actuator_gains=slow, sim={"dt": DT})
    full, sim_full = make(cartpole, num_envs=1, sim={"dt": DT})
    for r, s in ((robot, sim), (full, sim_full)):
        r.set_joint_position_target(np.array([[0.5]]), joint_ids=[0])
        s.step(12)
    np.testing.assert_allclose(np.asarray(robot.state.joint_efforts)[0, 0], 5.0)  # saturated at max_force
    assert np.asarray(robot.state.joint_positions)[0, 0] < 0.5 * 5.0 / 1.06 * (12 * DT) ** 2 * 1.15
    # the default motor (URDF limit 400 N) gets there far faster
    assert np.asarray(full.state.joint_positions)[0, 0] > 10 * np.asarray(robot.state.joint_positions)[0, 0]


def test_root_pose_and_velocity_round_trip_with_an_offset_centre_of_mass(arm, make) -> None:
    # the arm's base link has its centre of mass 5 cm above its frame: poses and velocities are of the frame
    robot, sim = make(arm, num_envs=2, articulation=FREE, sim={"gravity": (0.0, 0.0, 0.0)})
    quat = simulo.Pose.from_xyz_rpy((0, 0, 0), (0.3, 0.4, 0.5)).quat_wxyz
    origins = np.asarray(sim.env_origins)
    target = np.column_stack([origins + [0.1, 0.2, 1.0], np.tile(quat, (2, 1))])
    robot.set_root_pose(target)
    np.testing.assert_allclose(robot.state.pose, target, atol=1e-6)
    np.testing.assert_allclose(robot.get_body_pose("base_link"), target, atol=1e-6)
    vel = np.tile([0.1, 0.2, 0.3, 1.0, -0.5, 0.7], (2, 1))
    robot.set_root_velocity(vel)
    np.testing.assert_allclose(robot.get_root_velocity(), vel, atol=1e-9)
    before = np.array(robot.state.pose)
    sim.step(1)
    # the frame origin moves with the linear velocity that was set (not the centre of mass's)
    np.testing.assert_allclose((np.asarray(robot.state.pose)[:, :3] - before[:, :3]) / sim.dt, vel[:, :3], atol=3e-3)


@pytest.mark.parametrize(("config", "check"), [
    (None, lambda q, qd: q == pytest.approx(4.0, abs=1e-4)),  # pushed to the URDF's own +4 m limit
    (simulo.JointConfig(name="slider_to_cart", limits=(-0.1, 0.1)), lambda q, qd: q == pytest.approx(0.1, abs=1e-6)),
    (simulo.JointConfig(name="slider_to_cart", velocity_limit=0.5), lambda q, qd: qd == pytest.approx(0.5, abs=1e-9)),
    (simulo.JointConfig(name="slider_to_cart", damping=5.0), lambda q, qd: 2.0 < q < 3.5 and qd < 4.5),
], ids=["urdf", "limits", "velocity_limit", "damping"])
def test_joint_config_limits_speed_and_damping(config, check, cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=1, joint_config=[config] if config else None, sim={"dt": DT})
    for _ in range(120):  # 20 N on the cart for 1 s
        robot.set_joint_effort_target(np.array([[20.0]]), joint_ids=[0])
        sim.step()
    q, qd = (float(np.asarray(a)[0, 0]) for a in robot.get_joint_state())
    assert check(q, qd), (q, qd)
