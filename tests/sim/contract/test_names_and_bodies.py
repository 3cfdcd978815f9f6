"""The name and body contract on every engine: counts, names in URDF order, find_joints/find_bodies order
and errors, and body poses and velocities against the kinematics."""

from __future__ import annotations

import math

import numpy as np
import pytest

import simulo
from simulo.errors import NameNotFoundError, SimuloValueError

ARM_JOINTS = ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll", "finger_left_joint", "finger_right_joint"]
ARM_BODIES = ["base_link", "turret", "upper_arm", "forearm", "wrist", "hand", "finger_left", "finger_right", "tcp"]
TCP_HEIGHT = 0.1 + 0.1 + 0.3 + 0.25 + 0.04 + 0.055  # joint offsets of the catalog arm, straight up


def test_counts_names_and_base_kind(cartpole, arm, floater, make) -> None:
    cp, _ = make(cartpole)
    assert cp.num_joints == 2 and cp.is_fixed_base is True
    assert cp.get_joint_names() == ["slider_to_cart", "cart_to_pole"]
    assert cp.get_body_names() == ["slider", "cart", "pole"]
    a, _ = make(arm)
    assert a.num_joints == 7 and a.is_fixed_base is True
    assert a.get_joint_names() == ARM_JOINTS  # URDF order of the non-fixed joints; tcp_joint is not a joint
    assert a.get_body_names() == ARM_BODIES
    assert np.asarray(a.state.joint_positions).shape == (1, len(a.get_joint_names()))
    free, _ = make(floater, articulation=simulo.ArticulationConfig(fix_root_link=False))
    bolted, _ = make(floater, articulation=simulo.ArticulationConfig(fix_root_link=True))
    assert free.is_fixed_base is False and bolted.is_fixed_base is True
    assert free.num_joints == 1 and free.get_joint_names() == ["hinge"]
    # the returned list is a copy
    names = a.get_joint_names()
    names.append("x")
    assert a.get_joint_names() == ARM_JOINTS


def test_find_joints_exact_regex_and_robot_order(arm, make) -> None:
    robot, _ = make(arm)
    assert robot.find_joints("elbow") == [2]
    assert robot.find_joints("finger_.*_joint") == [5, 6]
    assert robot.find_joints("wrist_roll|base_yaw") == [0, 4]  # the robot's order, not the pattern's
    assert robot.find_joints("(shoulder|elbow|wrist_pitch)") == [1, 2, 3]
    assert robot.find_joints(".*") == list(range(7))
    with pytest.raises(NameNotFoundError) as err:
        robot.find_joints("wrist")  # a regex must match the whole name
    assert "'wrist'" in str(err.value) and "finger_right_joint" in str(err.value)
    with pytest.raises(NameNotFoundError, match="no joint matches 'knee'.*base_yaw"):
        robot.find_joints("knee")
    with pytest.raises(SimuloValueError, match=r"not a valid regex"):
        robot.find_joints("finger_[")


def test_find_bodies_exact_regex_and_order(arm, make) -> None:
    robot, _ = make(arm)
    assert robot.find_bodies("base_link") == [0]
    assert robot.find_bodies("tcp") == [8]
    assert robot.find_bodies("finger_.*") == [6, 7]
    assert robot.find_bodies("tcp|hand|turret") == [1, 5, 8]
    with pytest.raises(NameNotFoundError) as err:
        robot.find_bodies("finger")
    assert "'finger'" in str(err.value) and "tcp" in str(err.value)


def test_get_body_pose_matches_the_kinematics(arm, make) -> None:
    origin = (0.3, -0.2, 0.05)
    robot, sim = make(arm, num_envs=2, initial_pose=simulo.Pose.from_xyz(*origin), scene={"env_spacing": 2.0})
    origins = np.asarray(sim.env_origins)
    tcp = np.asarray(robot.get_body_pose("tcp"))
    assert tcp.shape == (2, 7)
    np.testing.assert_allclose(tcp[:, :3], origins + [0.3, -0.2, 0.05 + TCP_HEIGHT], atol=1e-6)
    np.testing.assert_allclose(tcp[:, 3:], [[1, 0, 0, 0]] * 2, atol=1e-6)
    # shoulder at +90° about y lays the arm along +x; base yaw 90° then turns it to +y (env 1 only)
    q = np.zeros((2, 7))
    q[:, 1] = math.pi / 2
    q[1, 0] = math.pi / 2
    robot.set_joint_state(q)
    tcp = np.asarray(robot.get_body_pose("tcp"))
    reach = TCP_HEIGHT - 0.2
    np.testing.assert_allclose(tcp[0, :3], origins[0] + [0.3 + reach, -0.2, 0.25], atol=1e-6)
    np.testing.assert_allclose(tcp[1, :3], origins[1] + [0.3, -0.2 + reach, 0.25], atol=1e-6)
    # the root body's pose is the base pose
    np.testing.assert_allclose(robot.get_body_pose("base_link"), robot.state.pose)
    with pytest.raises(NameNotFoundError, match="no body named 'gripper'.*'tcp'"):
        robot.get_body_pose("gripper")


def test_get_body_velocity_of_joint_driven_links(cartpole, make) -> None:
    robot, _ = make(cartpole, num_envs=2, initial_pose=simulo.Pose.from_xyz_rpy((0, 0, 1.0), (0, 0, math.pi / 2)))
    robot.set_joint_state(np.zeros((2, 2)), velocities=np.array([[1.5, 0.0], [-0.5, 2.0]]))
    cart = np.asarray(robot.get_body_velocity("cart"))
    pole = np.asarray(robot.get_body_velocity("pole"))
    assert cart.shape == (2, 6)
    # the rail is turned 90° about z: the slider's +x axis is the world's +y
    np.testing.assert_allclose(cart, [[0, 1.5, 0, 0, 0, 0], [0, -0.5, 0, 0, 0, 0]], atol=1e-6)
    # the pole's frame sits on the hinge: it moves with the cart and turns about the hinge axis (world -x)
    np.testing.assert_allclose(pole, [[0, 1.5, 0, 0, 0, 0], [0, -0.5, 0, -2.0, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(robot.get_body_velocity("slider"), np.zeros((2, 6)))


def test_body_pose_and_velocity_in_base_frame_do_not_depend_on_the_spawn(arm, make, arm_q) -> None:
    plain, _ = make(arm)
    moved, _ = make(arm, initial_pose=simulo.Pose.from_xyz_rpy((0.5, -1.0, 0.3), (0.3, -0.2, 2.0)))
    qd = np.array([[0.2, -0.4, 0.3, 0.5, -0.6, 0.0, 0.0]])
    for r in (plain, moved):
        r.set_joint_state(arm_q[None], velocities=qd)
    pos, quat = moved.get_body_pose_in_base_frame("tcp")
    assert pos.shape == (1, 3) and quat.shape == (1, 4)
    world = np.asarray(plain.get_body_pose("tcp"))
    np.testing.assert_allclose(pos, world[:, :3], atol=1e-6)
    np.testing.assert_allclose(np.abs(np.sum(quat * world[:, 3:], axis=1)), [1.0], atol=1e-6)
    lin, ang = moved.get_body_velocity_in_base_frame("tcp")
    world_vel = np.asarray(plain.get_body_velocity("tcp"))
    np.testing.assert_allclose(lin, world_vel[:, :3], atol=1e-5)
    np.testing.assert_allclose(ang, world_vel[:, 3:], atol=1e-5)
    assert np.linalg.norm(world_vel[0, :3]) > 0.1  # the comparison is not between zeros


def test_body_velocity_in_base_frame_removes_the_base_motion(floater, make) -> None:
    robot, _ = make(floater, num_envs=1, articulation=simulo.ArticulationConfig(fix_root_link=False),
                    initial_pose=simulo.Pose.from_xyz_rpy((0, 0, 1), (0.2, 0.1, 0.8)), sim={"gravity": (0, 0, 0)})
    # the whole robot spins and drifts rigidly: relative to its base the arm is at rest
    robot.set_root_velocity(np.array([[0.3, -0.2, 0.1, 0.5, -1.0, 2.0]]))
    world = np.asarray(robot.get_body_velocity("arm"))
    assert np.linalg.norm(world[0, :3] - [0.3, -0.2, 0.1]) > 0.05  # ω × r is not negligible
    lin, ang = robot.get_body_velocity_in_base_frame("arm")
    np.testing.assert_allclose(lin, [[0, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(ang, [[0, 0, 0]], atol=1e-6)
    # add a hinge rate: the arm turns about the base's own z axis
    robot.set_joint_state(np.array([[0.0]]), velocities=np.array([[1.5]]))
    robot.set_root_velocity(np.array([[0.3, -0.2, 0.1, 0.5, -1.0, 2.0]]))
    lin, ang = robot.get_body_velocity_in_base_frame("arm")
    np.testing.assert_allclose(ang, [[0, 0, 1.5]], atol=1e-6)
    np.testing.assert_allclose(lin, [[0, 0, 0]], atol=1e-6)  # the arm frame sits on the hinge axis
