"""The state contract on every engine: ``robot.state`` and its members, shapes and dtypes, defaults are
copies, identity members, ``update`` and ``NotAttachedError`` before attach."""

from __future__ import annotations

import math

import numpy as np
import pytest

import simulo
from simulo.errors import NotAttachedError

LIVE = ("pose", "linear_velocity", "angular_velocity", "joint_positions", "joint_velocities", "joint_efforts")
COMPUTED = ("linear_velocity_in_base_frame", "angular_velocity_in_base_frame")
FREE = simulo.ArticulationConfig(fix_root_link=False)


def rotation_matrix(q_wxyz: np.ndarray) -> np.ndarray:
    """Rotation matrix of a w-first unit quaternion (written out here, independent of the runtime)."""
    w, x, y, z = q_wxyz
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def test_state_accessor_is_one_object_and_members_wait_for_attach(cartpole, engine) -> None:
    robot = simulo.Robot(cartpole)
    accessor = robot.state
    assert robot.state is accessor
    for member in LIVE + COMPUTED:
        with pytest.raises(NotAttachedError, match=f"state.{member} is not available until the simulation has "
                                                   "attached the robot"):
            getattr(robot.state, member)
    scene = simulo.Scene()
    scene.add(robot)
    with simulo.Simulation(scene, engine=engine):
        assert robot.state is accessor
        assert np.asarray(robot.state.pose).shape == (1, 7)
    with pytest.raises(RuntimeError, match="not available until"):  # detached again after close
        robot.state.pose


def test_shapes_and_units(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=3)
    shapes = {"pose": (3, 7), "linear_velocity": (3, 3), "angular_velocity": (3, 3), "joint_positions": (3, 2),
              "joint_velocities": (3, 2), "joint_efforts": (3, 2), "linear_velocity_in_base_frame": (3, 3),
              "angular_velocity_in_base_frame": (3, 3)}
    for member, shape in shapes.items():
        value = getattr(robot.state, member)
        assert isinstance(value, np.ndarray) and value.dtype == np.float64
        assert value.shape == shape, member
    # pose is [x, y, z, qw, qx, qy, qz] with a unit, w-first quaternion: the catalog spawn is upright
    pose = np.asarray(robot.state.pose)
    np.testing.assert_allclose(pose[:, 3:], np.tile([1.0, 0.0, 0.0, 0.0], (3, 1)))


def test_base_frame_members_are_computed_from_the_base_orientation(floater, make) -> None:
    robot, sim = make(floater, num_envs=2, articulation=FREE, sim={"gravity": (0.0, 0.0, 0.0)},
                      initial_pose=simulo.Pose.from_xyz(0.0, 0.0, 1.0))
    yaw90 = [math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4)]
    tilted = simulo.Pose.from_xyz_rpy((0, 0, 1), (0.4, -0.7, 1.9)).quat_wxyz
    origins = np.asarray(sim.env_origins)
    robot.set_root_pose(np.array([[*origins[0, :2], 1.0, *yaw90], [*origins[1, :2], 1.0, *tilted]]))
    v_world = np.array([[1.0, 0.0, 0.0, 0.0, 0.0, 0.5], [0.3, -0.2, 0.4, 0.2, 0.1, -0.3]])
    robot.set_root_velocity(v_world)
    lin_b = robot.state.linear_velocity_in_base_frame
    ang_b = robot.state.angular_velocity_in_base_frame
    # yawed by +90°: world +x is the base's -y axis
    np.testing.assert_allclose(lin_b[0], [0.0, -1.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(ang_b[0], [0.0, 0.0, 0.5], atol=1e-9)
    r = rotation_matrix(np.asarray(robot.state.pose)[1, 3:])
    np.testing.assert_allclose(lin_b[1], r.T @ v_world[1, :3], atol=1e-9)
    np.testing.assert_allclose(ang_b[1], r.T @ v_world[1, 3:], atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(lin_b, axis=1), np.linalg.norm(v_world[:, :3], axis=1))
    # computed on every read: a new array each time, and writing into it does not reach the simulation
    again = robot.state.linear_velocity_in_base_frame
    assert again is not lin_b and not np.shares_memory(again, lin_b)
    lin_b[:] = 99.0
    np.testing.assert_allclose(robot.state.linear_velocity_in_base_frame[0], [0.0, -1.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(robot.state.linear_velocity, v_world[:, :3], atol=1e-9)
    # and it follows the base as it spins (angular velocity about world z turns the base)
    sim.step(60)
    r = rotation_matrix(np.asarray(robot.state.pose)[0, 3:])
    np.testing.assert_allclose(robot.state.linear_velocity_in_base_frame[0],
                               r.T @ np.asarray(robot.state.linear_velocity)[0], atol=1e-9)


def test_defaults_are_copies_and_reset_writes_them(cartpole, make) -> None:
    art = simulo.ArticulationConfig(default_joint_positions=(0.5, 0.1), default_joint_velocities=(0.0, -0.2))
    robot, sim = make(cartpole, num_envs=2, articulation=art, scene={"env_spacing": 3.0})
    dq, dqd, dpose = robot.default_joint_positions, robot.default_joint_velocities, robot.default_pose
    np.testing.assert_allclose(dq, [[0.5, 0.1]] * 2)
    np.testing.assert_allclose(dqd, [[0.0, -0.2]] * 2)
    np.testing.assert_allclose(dpose, [[0, 0, 2, 1, 0, 0, 0], [0, 3, 2, 1, 0, 0, 0]])
    # each read is a new array; scribbling on it changes neither later reads nor what reset writes
    assert robot.default_joint_positions is not dq and not np.shares_memory(robot.default_joint_positions, dq)
    dq[:] = 7.0
    dqd[:] = 7.0
    dpose[:] = 7.0
    np.testing.assert_allclose(robot.default_joint_positions, [[0.5, 0.1]] * 2)
    sim.step(30)
    robot.reset()
    np.testing.assert_allclose(robot.state.joint_positions, [[0.5, 0.1]] * 2)
    np.testing.assert_allclose(robot.state.joint_velocities, [[0.0, -0.2]] * 2)
    np.testing.assert_allclose(robot.state.pose, [[0, 0, 2, 1, 0, 0, 0], [0, 3, 2, 1, 0, 0, 0]])
    np.testing.assert_allclose(robot.default_pose, [[0, 0, 2, 1, 0, 0, 0], [0, 3, 2, 1, 0, 0, 0]])


def test_get_joint_state_root_pose_and_root_velocity(floater, make) -> None:
    robot, sim = make(floater, num_envs=2, plane=True, articulation=FREE,
                      initial_pose=simulo.Pose.from_xyz(0.0, 0.0, 0.5))
    robot.set_root_velocity(np.array([[0.2, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, -0.1, 0.0, 0.0, 0.0, 0.0]]))
    robot.set_joint_effort_target(np.array([[0.1], [0.2]]), joint_ids=[0])
    sim.step(5)
    q, qd = robot.get_joint_state()
    assert q is robot.state.joint_positions and qd is robot.state.joint_velocities
    assert robot.get_root_pose() is robot.state.pose
    vel = robot.get_root_velocity()
    assert vel.shape == (2, 6)
    np.testing.assert_array_equal(vel[:, :3], robot.state.linear_velocity)
    np.testing.assert_array_equal(vel[:, 3:], robot.state.angular_velocity)
    assert not np.shares_memory(vel, robot.state.linear_velocity)
    assert vel[0, 5] > 0.5 and vel[0, 0] > 0.1 and vel[1, 1] < -0.05
    assert qd[0, 0] != qd[1, 0]


def test_update_refreshes_from_the_engine_and_internals_is_the_engine_batch(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2)
    batch = robot.internals
    assert batch.num_envs == 2 and [j.name for j in batch.joints] == ["slider_to_cart", "cart_to_pole"]
    # write through the escape hatch behind the robot's back; update() reads it back
    batch.write_joints([1], np.array([[0.7, -0.4]]), np.array([[0.0, 0.0]]))
    np.testing.assert_array_equal(robot.state.joint_positions[1], [0.0, 0.0])
    robot.update(sim.dt)
    np.testing.assert_allclose(robot.state.joint_positions, [[0.0, 0.0], [0.7, -0.4]])


def test_name_and_path_are_set_by_the_scene(cartpole) -> None:
    robot = simulo.Robot(cartpole)
    assert robot.name is None and robot.path is None
    scene = simulo.Scene()
    scene.add(robot, at="/World/envs/Cartpole")
    assert robot.path == "/World/envs/Cartpole" and robot.name == "Cartpole"
    with pytest.raises(NotAttachedError, match="internals is not available until"):
        robot.internals


def test_every_engine_member_raises_before_attach(cartpole) -> None:
    robot = simulo.Robot(cartpole)
    zeros = np.zeros((1, 2))
    calls = {
        "internals": lambda: robot.internals, "num_joints": lambda: robot.num_joints,
        "is_fixed_base": lambda: robot.is_fixed_base, "default_joint_positions": lambda: robot.default_joint_positions,
        "default_joint_velocities": lambda: robot.default_joint_velocities, "default_pose": lambda: robot.default_pose,
        "get_joint_names": robot.get_joint_names, "find_joints": lambda: robot.find_joints("slider_to_cart"),
        "find_bodies": lambda: robot.find_bodies("cart"), "get_jacobians": robot.get_jacobians,
        "get_mass_matrix": robot.get_mass_matrix, "get_gravity_compensation": robot.get_gravity_compensation,
        "get_body_pose": lambda: robot.get_body_pose("cart"),
        "get_body_velocity": lambda: robot.get_body_velocity("cart"),
        "get_body_pose_in_base_frame": lambda: robot.get_body_pose_in_base_frame("cart"),
        "get_body_velocity_in_base_frame": lambda: robot.get_body_velocity_in_base_frame("cart"),
        "set_joint_state": lambda: robot.set_joint_state(zeros),
        "set_joint_position_target": lambda: robot.set_joint_position_target(zeros),
        "set_joint_velocity_target": lambda: robot.set_joint_velocity_target(zeros),
        "set_joint_effort_target": lambda: robot.set_joint_effort_target(zeros),
        "set_root_pose": lambda: robot.set_root_pose(np.array([[0, 0, 0, 1, 0, 0, 0.0]])),
        "set_root_velocity": lambda: robot.set_root_velocity(np.zeros((1, 6))),
        "get_joint_state": robot.get_joint_state, "get_root_pose": robot.get_root_pose,
        "get_root_velocity": robot.get_root_velocity, "reset": robot.reset, "reset_to_default": robot.reset_to_default,
        "update": lambda: robot.update(0.01),
    }
    for member, call in calls.items():
        with pytest.raises(RuntimeError, match="is not available until the simulation has attached the robot") as err:
            call()
        assert isinstance(err.value, NotAttachedError), member
    # authoring members work before attach
    assert robot.sensors == [] and robot.actuators == [] and robot.name is None and robot.path is None
    assert robot.asset is cartpole and robot.initial_pose == simulo.Pose.identity()
    assert robot.collision_enabled is True and robot.visual_only is False and robot.mass_scale == 1.0
    assert robot.scale == (1.0, 1.0, 1.0) and robot.articulation == simulo.ArticulationConfig()
    assert robot.joint_config is None and robot.disable_gravity is False and robot.actuator_gains is None
