"""``simulo.OperationalSpaceController`` on PyBullet: it reaches and holds pose targets with efforts, tracks a
moving target, leaves the null space to a posture law, and its efforts are the documented law."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo
from simulo.math.batched import quat_conjugate, quat_mul
from simulo.sim.controllers._chain import axis_angle_from_quat

from .arm import ARM_JOINTS, EE, OFFSETS, TOLERANCE, angle_error, fk_now, home, targets, track

POSITION_AXES = (1, 1, 1, 0, 0, 0)


def released(robot: simulo.Robot) -> None:
    """Clear the home position targets the fixture set, so the OSC's efforts alone drive the arm."""
    robot.reset()
    robot.set_joint_state(home(np.asarray(robot.get_joint_state()[0]).shape[0]))


def test_reaches_and_holds_full_pose_targets_in_four_envs(arm4: Any) -> None:
    robot, sim = arm4
    released(robot)
    pos_des, quat_des = targets(robot)
    osc = simulo.OperationalSpaceController(robot=robot, end_effector=EE, joints=ARM_JOINTS)
    assert osc.action_dim == 7
    # measured: within 5 mm after 120-150 steps (Kp 100, critically damped, Λ-decoupled: ω = 10 rad/s)
    reached, pos, quat = track(sim, robot, lambda s: osc.move_to(pos_des, quat_des) if s == 0 else osc.apply(),
                               pos_des, 240)
    assert ((reached > 0) & (reached <= 200)).all(), reached
    assert np.linalg.norm(pos - pos_des, axis=1).max() < 5e-4
    assert angle_error(quat, quat_des).max() < np.radians(0.2)
    # holding: another second on the same target stays within 0.5 mm, at rest
    worst = 0.0
    for _ in range(240):
        osc.apply()
        sim.step()
        worst = max(worst, float(np.linalg.norm(fk_now(robot)[0] - pos_des, axis=1).max()))
    assert worst < 5e-4
    assert np.abs(np.asarray(robot.get_joint_state()[1])[:, :5]).max() < 1e-2


def test_tracks_a_moving_target(arm4: Any) -> None:
    robot, sim = arm4
    released(robot)
    centre = fk_now(robot)[0]
    osc = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, motion_control_axes=POSITION_AXES,
                                            motion_stiffness=400.0)
    radius, omega, dt = 0.04, 2 * np.pi * 0.15, sim.dt
    errors = []
    for step in range(1200):  # 5 s: three quarters of a circle per environment, phases 90 degrees apart
        t = step * dt
        phase = omega * t + np.arange(4)[:, None] * np.pi / 2
        goal = centre + radius * np.concatenate([np.cos(phase) - np.cos(np.arange(4)[:, None] * np.pi / 2),
                                                 np.sin(phase) - np.sin(np.arange(4)[:, None] * np.pi / 2),
                                                 np.zeros((4, 1))], axis=1)
        osc.move_to(goal)
        sim.step()
        errors.append(np.linalg.norm(fk_now(robot)[0] - goal, axis=1))
    err = np.array(errors)
    print("tracking error mm: max after 0.5 s", 1000 * err[120:].max(), "mean", 1000 * err[120:].mean())
    assert err[120:].max() < TOLERANCE
    # an impedance law with no velocity feed-forward lags by 2 ζ v / ω (ω = √Kp = 20 rad/s): 3.8 mm here
    lag = 2.0 * radius * omega / 20.0
    assert abs(err[120:].mean() - lag) < 0.25 * lag


def test_position_only_without_decoupling_converges(arm4: Any) -> None:
    robot, sim = arm4
    released(robot)
    pos_des, _ = targets(robot)
    osc = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, motion_control_axes=POSITION_AXES,
                                            inertial_dynamics_decoupling=False, motion_stiffness=100.0)
    reached, pos, _ = track(sim, robot, lambda _: osc.move_to(pos_des), pos_des, 480)
    print("no decoupling: steps to 5 mm", reached, "final mm", 1000 * np.linalg.norm(pos - pos_des, axis=1))
    assert (reached > 0).all() and np.linalg.norm(pos - pos_des, axis=1).max() < 1e-3


def test_nullspace_posture_law_pulls_the_redundant_joints_without_disturbing_the_task(arm4: Any) -> None:
    robot, sim = arm4
    pos_des, _ = targets(robot)
    # a posture that puts the tcp on its target (the target's own posture, wrist rolled by 0.8 rad: the
    # roll axis runs through the tcp), so the task and the posture law agree only there
    posture = home(4)[:, :5] + OFFSETS + [0.0, 0.0, 0.0, 0.0, 0.8]
    distance = {}
    for mode in ("none", "position"):
        released(robot)
        osc = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, motion_control_axes=POSITION_AXES,
                                                nullspace_control=mode, nullspace_stiffness=20.0)
        if mode == "position":
            osc.set_nullspace_target(posture)
        _, pos, _ = track(sim, robot, lambda _: osc.move_to(pos_des), pos_des, 720)  # noqa: B023
        assert np.linalg.norm(pos - pos_des, axis=1).max() < TOLERANCE, mode
        distance[mode] = np.abs(np.asarray(robot.get_joint_state()[0])[:, :5] - posture).max(axis=1)
    print("largest joint distance to the posture (rad):", distance)
    assert distance["none"].min() > 0.3 and distance["position"].max() < 0.05


@pytest.mark.parametrize("decoupling", ["full", "partial", "none"])
def test_efforts_are_the_documented_law(arm4: Any, decoupling: str) -> None:
    robot, sim = arm4
    released(robot)
    pos_des, quat_des = targets(robot)
    qd = np.array([[0.2, -0.1, 0.3, 0.1, -0.2, 0.0, 0.0]] * 4)
    robot.set_joint_state(home(4), velocities=qd)
    kp = np.array([120.0, 90.0, 150.0, 30.0, 40.0, 20.0])
    zeta = 0.8
    osc = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, motion_stiffness=tuple(kp),
                                            motion_damping_ratio=zeta,
                                            inertial_dynamics_decoupling=decoupling != "none",
                                            partial_inertial_dynamics_decoupling=decoupling == "partial")
    osc.set_command(np.concatenate([pos_des, quat_des], axis=1))
    tau = np.asarray(osc.compute())
    # the law, from the contract's own queries (base frame = world frame here)
    cols = list(range(5))
    jac = np.asarray(robot.get_jacobians(robot.find_bodies(EE)))[:, 0][:, :, cols]
    mass = np.asarray(robot.get_mass_matrix(cols))
    grav = np.asarray(robot.get_gravity_compensation(cols))
    pos, quat = fk_now(robot)
    err = np.concatenate([pos_des - pos, axis_angle_from_quat(quat_mul(quat_des, quat_conjugate(quat)))], axis=1)
    acc = kp * err - 2 * zeta * np.sqrt(kp) * np.einsum("nmk,nk->nm", jac, qd[:, :5])
    for i in range(4):
        inv = jac[i] @ np.linalg.inv(mass[i]) @ jac[i].T
        if decoupling == "full":
            force = np.linalg.pinv(inv, rcond=1e-8) @ acc[i]
        elif decoupling == "partial":
            force = np.concatenate([np.linalg.inv(inv[:3, :3]) @ acc[i, :3], np.linalg.pinv(inv[3:, 3:]) @ acc[i, 3:]])
        else:
            force = acc[i]
        np.testing.assert_allclose(tau[i], jac[i].T @ force + grav[i], rtol=1e-6, atol=1e-6)
    assert np.abs(tau - grav).max() > 1.0  # the task term is not negligible


def test_without_a_command_only_gravity_is_compensated_and_reset_forgets_targets(arm4: Any) -> None:
    robot, sim = arm4
    released(robot)
    pos_des, quat_des = targets(robot)
    osc = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS)
    np.testing.assert_allclose(np.asarray(osc.compute()), np.asarray(robot.get_gravity_compensation(list(range(5)))))
    osc.set_command(np.concatenate([pos_des[[2]], quat_des[[2]]], axis=1), env_ids=[2])
    tau = np.asarray(osc.compute())
    grav = np.asarray(robot.get_gravity_compensation(list(range(5))))
    np.testing.assert_allclose(tau[[0, 1, 3]], grav[[0, 1, 3]])
    assert np.abs(tau[2] - grav[2]).max() > 1.0
    osc.reset([2])
    np.testing.assert_allclose(np.asarray(osc.compute()), grav)
    assert np.isnan(np.asarray(osc.desired_pose)).all()


def test_variable_stiffness_commands_match_fixed_gains_and_are_clipped(arm4: Any) -> None:
    robot, sim = arm4
    released(robot)
    pos_des, quat_des = targets(robot)
    pose = np.concatenate([pos_des, quat_des], axis=1)
    fixed = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, motion_stiffness=200.0, motion_damping_ratio=0.7)
    fixed.set_command(pose)
    kp = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, impedance_mode="variable_kp",
                                           motion_damping_ratio=0.7)
    assert kp.action_dim == 13
    kp.set_command(np.concatenate([pose, np.full((4, 6), 200.0)], axis=1))
    var = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, impedance_mode="variable",
                                            motion_stiffness_limits=(0.0, 200.0))
    assert var.action_dim == 19
    var.set_command(np.concatenate([pose, np.full((4, 6), 5000.0), np.full((4, 6), 0.7)], axis=1))  # clipped
    np.testing.assert_allclose(np.asarray(kp.compute()), np.asarray(fixed.compute()), rtol=1e-9)
    np.testing.assert_allclose(np.asarray(var.compute()), np.asarray(fixed.compute()), rtol=1e-9)


def test_relative_pose_targets_reach_the_same_pose(arm4: Any) -> None:
    robot, sim = arm4
    released(robot)
    pos_des, quat_des = targets(robot)
    pos0, quat0 = fk_now(robot)
    osc = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, target_types=("pose_rel",))
    assert osc.action_dim == 6
    osc.set_command(np.concatenate([pos_des - pos0, axis_angle_from_quat(quat_mul(quat_des, quat_conjugate(quat0)))],
                                   axis=1))
    reached, pos, quat = track(sim, robot, lambda _: osc.apply(), pos_des, 240)
    assert (reached > 0).all() and np.linalg.norm(pos - pos_des, axis=1).max() < 5e-4
    assert angle_error(quat, quat_des).max() < np.radians(0.2)


@pytest.mark.parametrize("frame", ["base", "world"])
def test_osc_targets_in_either_frame_on_a_turned_and_tilted_base(make: Any, arm: simulo.Asset, frame: str) -> None:
    tilted = simulo.Pose.from_xyz_rpy((0.2, -0.1, 0.3), (0.4, -0.3, 0.9))
    robot, sim = make(arm, num_envs=2, initial_pose=tilted, scene={"env_spacing": 2.0})
    robot.set_joint_state(home(2))
    pos_des, quat_des = targets(robot, frame=frame)
    osc = simulo.OperationalSpaceController(robot, EE, ARM_JOINTS, frame=frame)
    reached, pos, quat = track(sim, robot, lambda s: osc.move_to(pos_des, quat_des) if s == 0 else osc.apply(),
                               pos_des, 240, frame=frame)
    assert ((reached > 0) & (reached <= 200)).all(), reached
    assert np.linalg.norm(pos - pos_des, axis=1).max() < 5e-4
    assert angle_error(quat, quat_des).max() < np.radians(0.2)
