"""``simulo.DifferentialIKController`` converges on PyBullet: every ik_method, position and pose commands,
absolute and relative, several environments with different targets, env_ids subsets, both frames."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo
from simulo.math.batched import quat_conjugate, quat_mul
from simulo.sim.controllers._chain import axis_angle_from_quat

from .arm import ARM_JOINTS, EE, OFFSETS, TOLERANCE, angle_error, fk, fk_now, home, targets, track

# (ik_method, ik_params, command_type, physics steps allowed). Measured on the four targets (63, 64, 224 and
# 38 mm away): dls/pinv/svd are within 5 mm after 20-40 steps; the transpose is gradient descent and needs
# a large gain for position (60-147 steps at k_val=30) and many steps for pose (500-880 at k_val=4;
# 0.4-3.3 mm after 1200).
CASES = [
    ("dls", None, "position", 120), ("dls", None, "pose", 120),
    ("pinv", None, "position", 120), ("pinv", None, "pose", 120),
    ("svd", None, "position", 120), ("svd", None, "pose", 120),
    ("svd", {"min_singular_value": 1e-3}, "pose", 120),
    ("trans", {"k_val": 30.0}, "position", 240), ("trans", {"k_val": 4.0}, "pose", 1200),
]


@pytest.mark.parametrize(("method", "params", "command_type", "steps"), CASES,
                         ids=[f"{m}-{c}" + ("-" + ",".join(p) if p else "") for m, p, c, _ in CASES])
def test_every_ik_method_reaches_different_targets_in_four_envs(arm4: Any, method: str, params: Any,
                                                               command_type: str, steps: int) -> None:
    robot, sim = arm4
    pos_des, quat_des = targets(robot)
    start = np.linalg.norm(fk_now(robot)[0] - pos_des, axis=1)
    assert start.min() > 0.035 and start.max() > 0.2  # every target is a real move
    ik = simulo.DifferentialIKController(robot=robot, end_effector=EE, joints=ARM_JOINTS, ik_method=method,
                                         command_type=command_type, ik_params=params)
    orientation = quat_des if command_type == "pose" else None
    reached, pos, quat = track(sim, robot, lambda _: ik.move_to(pos_des, orientation=orientation), pos_des, steps)
    assert (reached > 0).all(), reached
    assert np.linalg.norm(pos - pos_des, axis=1).max() < TOLERANCE
    if command_type == "pose":
        assert angle_error(quat, quat_des).max() < np.radians(0.5)
    else:  # position only: the orientation is left free and ends elsewhere
        assert angle_error(quat, quat_des).max() > np.radians(5.0)
    # the fingers are not the controller's: their targets stay where they were
    np.testing.assert_allclose(np.asarray(robot.get_joint_state()[0])[:, 5:], home(4)[:, 5:], atol=2e-3)


def test_dls_converges_faster_than_the_transpose_at_its_default_gain(arm4: Any) -> None:
    robot, sim = arm4
    pos_des, _ = targets(robot)
    errors = {}
    for method in ("dls", "trans"):
        robot.set_joint_state(home(4))
        robot.set_joint_position_target(home(4))
        ik = simulo.DifferentialIKController(robot, EE, ARM_JOINTS, ik_method=method, command_type="position")
        _, pos, _ = track(sim, robot, lambda _: ik.move_to(pos_des), pos_des, 60)  # noqa: B023
        errors[method] = np.linalg.norm(pos - pos_des, axis=1)
    assert errors["dls"].max() < TOLERANCE < errors["trans"].min()


def test_relative_commands_are_changes_of_the_pose_at_the_time_they_are_set(arm4: Any) -> None:
    robot, sim = arm4
    pos_des, quat_des = targets(robot)
    pos0, quat0 = fk_now(robot)
    rel = simulo.DifferentialIKController(robot, EE, ARM_JOINTS, command_type="pose", use_relative_mode=True)
    assert rel.action_dim == 6
    # the change that takes each home pose onto its target: [dp, rotation vector], base axes
    rel.set_command(np.concatenate([pos_des - pos0, axis_angle_from_quat(quat_mul(quat_des, quat_conjugate(quat0)))],
                                   axis=1))
    np.testing.assert_allclose(np.asarray(rel.desired_pose)[:, :3], pos_des, atol=1e-9)
    reached, pos, quat = track(sim, robot, lambda _: rel.apply(), pos_des, 120)
    assert (reached > 0).all() and np.linalg.norm(pos - pos_des, axis=1).max() < 1e-3
    assert angle_error(quat, quat_des).max() < np.radians(0.5)

    # position, relative: 4 cm down from wherever each tcp is now, in every environment at once (one row)
    down = simulo.DifferentialIKController(robot, EE, ARM_JOINTS, command_type="position", use_relative_mode=True)
    assert down.action_dim == 3
    start = fk_now(robot)[0]
    down.set_command([0.0, 0.0, -0.04])
    _, pos, _ = track(sim, robot, lambda _: down.apply(), start, 120)
    np.testing.assert_allclose(pos, start + [0.0, 0.0, -0.04], atol=1e-3)


def test_env_ids_subset_moves_only_those_envs(arm4: Any) -> None:
    robot, sim = arm4
    pos_des, quat_des = targets(robot)
    ids = [3, 1]
    ik = simulo.DifferentialIKController(robot, EE, ARM_JOINTS, ik_method="dls", command_type="pose")
    home_pos = fk_now(robot)[0]
    for _ in range(120):
        ik.move_to(pos_des[ids], orientation=quat_des[ids], env_ids=ids)
        sim.step()
    pos, quat = fk_now(robot)
    assert np.linalg.norm(pos[ids] - pos_des[ids], axis=1).max() < 1e-3
    assert angle_error(quat[ids], quat_des[ids]).max() < np.radians(0.5)
    # environments 0 and 2 kept their own position targets (home) and did not move
    np.testing.assert_allclose(pos[[0, 2]], home_pos[[0, 2]], atol=1e-3)
    desired = np.asarray(ik.desired_pose)
    assert np.isnan(desired[[0, 2]]).all() and np.isfinite(desired[ids]).all()
    # compute() of an environment without a command is its current posture
    q_now = np.asarray(robot.get_joint_state()[0])[:, :5]
    np.testing.assert_allclose(np.asarray(ik.compute(env_ids=[2])), q_now[[2]])


def test_compute_is_one_ik_step_and_writes_nothing(arm4: Any) -> None:
    robot, sim = arm4
    pos_des, quat_des = targets(robot)
    ik = simulo.DifferentialIKController(robot, EE, ARM_JOINTS, ik_method="pinv", command_type="pose")
    assert ik.action_dim == 7 and ik.joint_ids == [0, 1, 2, 3, 4]
    ik.set_command(np.concatenate([pos_des, quat_des], axis=1))
    q_des = np.asarray(ik.compute())
    assert q_des.shape == (4, 5)
    # the step is J⁺ e, from the contract's Jacobian (the base frame is the world frame here)
    pos0, quat0 = fk_now(robot)
    jac = np.asarray(robot.get_jacobians(robot.find_bodies(EE)))[:, 0][:, :, :5]
    err = np.concatenate([pos_des - pos0, axis_angle_from_quat(quat_mul(quat_des, quat_conjugate(quat0)))], axis=1)
    expected = home(4)[:, :5] + np.einsum("nkm,nm->nk", np.linalg.pinv(jac), err)
    np.testing.assert_allclose(q_des, expected, atol=1e-9)
    sim.step()
    np.testing.assert_allclose(np.asarray(robot.get_joint_state()[0]), home(4), atol=2e-3)  # nothing was sent
    # one Gauss-Newton step from home at least halves every distance to the target
    q = home(4)
    q[:, :5] = q_des
    after = np.linalg.norm(fk(robot, q)[0] - pos_des, axis=1)
    assert (after < 0.5 * np.linalg.norm(pos0 - pos_des, axis=1)).all(), after


@pytest.mark.parametrize("frame", ["base", "world"])
def test_targets_in_either_frame_on_a_turned_and_tilted_base(make: Any, arm: simulo.Asset, frame: str) -> None:
    tilted = simulo.Pose.from_xyz_rpy((0.2, -0.1, 0.3), (0.4, -0.3, 0.9))
    robot, sim = make(arm, num_envs=3, initial_pose=tilted, scene={"env_spacing": 2.0})
    robot.set_joint_state(home(3))
    robot.set_joint_position_target(home(3))
    pos_des, quat_des = targets(robot, frame=frame)
    if frame == "world":  # world targets carry each environment's origin
        assert np.ptp(pos_des[:, 0]) > 1.0 or np.ptp(pos_des[:, 1]) > 1.0
    ik = simulo.DifferentialIKController(robot, EE, ARM_JOINTS, command_type="pose", frame=frame)
    reached, pos, quat = track(sim, robot, lambda _: ik.move_to(pos_des, quat_des), pos_des, 120, frame=frame)
    # a Jacobian in the wrong axes would not converge this fast (or at all) on a tilted base
    assert ((reached > 0) & (reached <= 60)).all(), reached
    assert np.linalg.norm(pos - pos_des, axis=1).max() < 1e-3
    assert angle_error(quat, quat_des).max() < np.radians(0.5)


def test_reset_forgets_the_commands_of_those_envs_only(arm4: Any) -> None:
    robot, _ = arm4
    pos_des, quat_des = targets(robot)
    ik = simulo.DifferentialIKController(robot, EE, ARM_JOINTS)
    ik.set_command(np.concatenate([pos_des, quat_des], axis=1))
    ik.reset([3, 0])
    desired = np.asarray(ik.desired_pose)
    assert np.isnan(desired[[0, 3]]).all()
    np.testing.assert_allclose(desired[[1, 2], :3], pos_des[[1, 2]])
    q_now = np.asarray(robot.get_joint_state()[0])[:, :5]
    q_des = np.asarray(ik.compute())
    np.testing.assert_allclose(q_des[[0, 3]], q_now[[0, 3]])  # no command: hold
    assert np.abs(q_des[[1, 2]] - q_now[[1, 2]]).max() > 0.05


def test_controller_made_before_the_simulation_resolves_names_on_first_use(arm: simulo.Asset) -> None:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(arm)
    scene.add(robot, at="/World/Robot")
    ik = simulo.DifferentialIKController(robot=robot, end_effector=EE, joints=ARM_JOINTS)
    with pytest.raises(simulo.NotAttachedError):
        ik.compute()
    with simulo.Simulation(scene) as sim:
        robot.set_joint_state(home(2))
        pos_des, quat_des = targets(robot)
        reached, _, _ = track(sim, robot, lambda _: ik.move_to(pos_des, quat_des), pos_des, 120)
        assert (reached > 0).all()
        assert ik.joint_ids == [0, 1, 2, 3, 4]


def test_orientation_none_keeps_the_orientation_last_commanded(arm4: Any) -> None:
    robot, sim = arm4
    pos_des, quat_des = targets(robot)
    ik = simulo.DifferentialIKController(robot, EE, ARM_JOINTS, command_type="pose")
    track(sim, robot, lambda _: ik.move_to(pos_des, quat_des), pos_des, 120)
    # a pose on the way back home (so reachable with five joints), commanded by position only
    _, pos, quat = track(sim, robot, lambda _: ik.move_to(pos_des), pos_des, 60)
    assert np.linalg.norm(pos - pos_des, axis=1).max() < 1e-3
    assert angle_error(quat, quat_des).max() < np.radians(0.5)
    np.testing.assert_allclose(np.asarray(ik.desired_pose)[:, 3:], quat_des / np.linalg.norm(quat_des, axis=1,
                                                                                              keepdims=True))


def test_the_franka_reach_sample_calls_with_torch_tensors(arm4: Any) -> None:
    """The SDK sample's calls: keyword construction in on_start, then move_to(torch (N, 3), orientation=(4,)),
    reach the goal in a numpy simulation, whose outputs stay numpy."""
    torch = pytest.importorskip("torch")
    robot, sim = arm4
    pos_des, quat_des = targets(robot)
    # one orientation for every environment, as the sample holds its hand pointing down: env 0's target
    goal_pos = np.array(fk(robot, np.tile(home(1), (4, 1)) + np.r_[OFFSETS[0], 0.0, 0.0])[0])
    # moves in the arm's vertical plane keep that orientation reachable with five joints
    radial = np.r_[goal_pos[0, :2] / np.linalg.norm(goal_pos[0, :2]), 0.0]
    up = np.array([0.0, 0.0, 1.0])
    goal_pos += np.array([[0.0], [0.02], [0.0], [-0.02]]) * radial + np.array([[0.0], [0.0], [-0.02], [0.01]]) * up
    ik = simulo.DifferentialIKController(robot=robot, end_effector=EE, joints=ARM_JOINTS, ik_method="dls",
                                         command_type="pose")
    target = torch.tensor(goal_pos, dtype=torch.float32)
    orientation = tuple(float(v) for v in quat_des[0])
    for _ in range(120):
        ik.move_to(target, orientation=orientation)
        sim.step()
    pos, quat = robot.get_body_pose_in_base_frame(EE)
    assert type(pos) is np.ndarray  # a numpy simulation keeps returning numpy arrays, whatever it is given
    assert np.linalg.norm(pos - goal_pos, axis=1).max() < TOLERANCE
    assert angle_error(quat, np.tile(quat_des[0], (4, 1))).max() < np.radians(2.0)
    assert type(ik.compute()) is np.ndarray
