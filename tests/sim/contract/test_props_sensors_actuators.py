"""Props, the contact sensor and the parallel gripper keep the contract on every engine: env_ids subsets in
any order, copies of defaults, current buffers after teleports, shapes and dtypes, errors before attach."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import NotAttachedError

SUBSET = [5, 1, 3]
OTHERS = [0, 2, 4]
FINGERS = ("finger_left_joint", "finger_right_joint")


def cell(arm: simulo.Asset, engine: str) -> tuple[simulo.Robot, simulo.Prop, simulo.ParallelGripper,
                                                  simulo.ContactSensor, simulo.Simulation]:
    scene = simulo.Scene(num_envs=6)
    robot = simulo.Robot(arm, disable_gravity=True)
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.04,) * 3, pose=simulo.Pose.from_xyz(0.6, 0.0, 0.5),
                                     physics=simulo.RigidPhysics(mass=0.1)))
    gripper = simulo.ParallelGripper(FINGERS)
    sensor = simulo.ContactSensor(other=cube)
    robot.add_actuator(gripper, attach_to="hand").add_sensor(sensor, attach_to="finger_.*")
    scene.add(robot, at="/World/Arm")
    scene.add(cube, at="/World/Cube")
    return robot, cube, gripper, sensor, simulo.Simulation(scene, engine=engine, gravity=(0.0, 0.0, 0.0))


def test_prop_env_subsets_defaults_and_current_buffers(arm, engine) -> None:
    _, cube, _, _, sim = cell(arm, engine)
    with sim:
        origins = np.asarray(sim.env_origins)
        held = cube.state.pose
        assert held.shape == (6, 7) and held.dtype == np.float64
        default = cube.default_pose
        default[:] = 0.0  # a copy
        np.testing.assert_allclose(np.asarray(cube.default_pose)[:, :3], origins + [0.6, 0.0, 0.5])
        before = np.array(held)
        target = np.column_stack([origins[SUBSET] + [[0.1, 0, 1], [0.2, 0, 1], [0.3, 0, 1]],
                                  np.tile([0.0, 0.0, 0.0, 2.0], (3, 1))])
        cube.set_pose(target, env_ids=SUBSET)  # rows in the order given
        np.testing.assert_allclose(held[SUBSET, :3], target[:, :3], atol=1e-9)
        np.testing.assert_allclose(held[SUBSET, 3:], np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), atol=1e-9)
        np.testing.assert_array_equal(held[OTHERS], before[OTHERS])
        cube.set_velocity(np.array([[0.0, 0.0, 1.0, 0.0, 0.0, 0.0]] * 3), env_ids=SUBSET)
        np.testing.assert_allclose(np.asarray(cube.state.linear_velocity)[SUBSET], [[0.0, 0.0, 1.0]] * 3)
        sim.step(12)
        assert np.all(held[SUBSET, 2] > target[:, 2])  # without gravity it keeps rising
        cube.reset(env_ids=[3, 5])
        np.testing.assert_allclose(held[[3, 5]], np.asarray(cube.default_pose)[[3, 5]], atol=1e-9)
        np.testing.assert_array_equal(np.asarray(cube.state.linear_velocity)[[3, 5]], np.zeros((2, 3)))
        assert held[1, 2] > target[1, 2]  # env 1 was not reset


def test_sensor_and_gripper_shapes_dtypes_and_env_subsets(arm, engine) -> None:
    robot, _, gripper, sensor, sim = cell(arm, engine)
    with sim:
        assert sensor.bodies == robot.find_bodies("finger_.*")
        total, per_body = sensor.read(), sensor.read_per_body()
        assert total.shape == (6,) and total.dtype == np.int64
        assert per_body.shape == (6, 2) and per_body.dtype == np.int64
        np.testing.assert_array_equal(total, np.zeros(6))  # nothing touches the far cube
        assert gripper.joint_ids == robot.find_joints("finger_.*_joint")
        gripper.command(np.array([0.03, 0.01, 0.02]), 20.0, env_ids=SUBSET)
        sim.step(120)
        state = np.asarray(gripper.get_state())
        assert state.shape == (6, 2) and state.dtype == np.float64
        np.testing.assert_allclose(state[SUBSET], [[0.03, 0.03], [0.01, 0.01], [0.02, 0.02]], atol=1e-3)
        np.testing.assert_allclose(state[OTHERS], np.zeros((3, 2)), atol=1e-6)
        np.testing.assert_allclose(gripper.gap(), state.sum(axis=1))
        robot.reset(env_ids=[1])  # clears the finger targets of env 1 only
        sim.step(120)
        np.testing.assert_allclose(np.asarray(gripper.get_state())[[1]], np.zeros((1, 2)), atol=1e-6)
        np.testing.assert_allclose(np.asarray(gripper.get_state())[[5, 3]], [[0.03, 0.03], [0.02, 0.02]], atol=1e-3)


def test_every_member_raises_again_after_close(arm, engine) -> None:
    robot, cube, gripper, sensor, sim = cell(arm, engine)
    robot.set_joint_position_target(np.zeros((6, 7)))
    sim.step(1)
    sim.close()
    for call in (lambda: robot.state.pose, robot.get_joint_names, lambda: robot.data, lambda: cube.state.pose,
                 lambda: cube.data, lambda: gripper.command(0.01, 5.0), sensor.read, gripper.gap):
        with pytest.raises(NotAttachedError, match="attached"):
            call()
    assert not robot.runtime_attached and not cube.runtime_attached


def test_columns_follow_the_urdf_joint_order(arm, make) -> None:
    robot, _ = make(arm, num_envs=2)
    names = robot.get_joint_names()
    assert names == [j.name for j in arm.model.movable_joints]
    child = {j.name: j.child for j in arm.model.joints}
    rest = {b: np.asarray(robot.get_body_pose(b)) for b in robot.get_body_names()}
    for col, name in enumerate(names):  # moving column k moves joint k's child link, not its parent
        q = np.zeros((2, len(names)))
        q[:, col] = 0.02 if arm.model.movable_joints[col].type == "prismatic" else 0.3
        robot.set_joint_state(q, env_ids=[1, 0])
        moved = np.asarray(robot.get_body_pose(child[name]))
        parent = next(j.parent for j in arm.model.joints if j.name == name)
        assert not np.allclose(moved, rest[child[name]], atol=1e-4), name
        np.testing.assert_allclose(robot.get_body_pose(parent), rest[parent], atol=1e-9)
    robot.set_joint_state(np.zeros((2, len(names))))
