"""``simulo.IMU``: acceleration and angular velocity in the sensor frame, checked against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SceneError, SimuloValueError
from simulo.math.batched import pose_mul, quat_rotate_inverse

DT = 1.0 / 240.0
OFFSET = simulo.SensorOffset(pos=(0.0, 0.0, 0.8), rot=(0.9238795, 0.3826834, 0.0, 0.0))  # 45 degrees about x


def _swinging_pole(cartpole: simulo.Asset, num_envs: int = 2) -> tuple[simulo.Robot, simulo.IMU, simulo.Simulation]:
    scene = simulo.Scene(num_envs=num_envs)
    robot = simulo.Robot(cartpole)
    imu = simulo.IMU(offset=OFFSET)
    robot.add_sensor(imu, attach_to="pole")
    scene.add(robot, at="/World/Robot")
    sim = simulo.Simulation(scene, dt=DT)
    pole = robot.find_joints("cart_to_pole")
    q = np.zeros((num_envs, robot.num_joints))
    q[:, pole] = np.linspace(0.3, 0.6, num_envs)[:, None]
    robot.set_joint_state(q)
    return robot, imu, sim


def _sensor_pose(robot: simulo.Robot) -> np.ndarray:
    body = np.asarray(robot.get_body_pose("pole"), dtype=np.float64)
    return pose_mul(body, np.tile(np.array(OFFSET.pose()), (len(body), 1)))


def test_acceleration_matches_the_second_difference_of_the_sensor_position(cartpole) -> None:
    robot, imu, sim = _swinging_pole(cartpole)
    with sim:
        poses, readings = [], []
        for _ in range(40):
            sim.step()
            poses.append(_sensor_pose(robot))
            readings.append(np.asarray(imu.read_linear_acceleration()).copy())
        pos = np.array([p[:, :3] for p in poses])
        for t in range(2, 40):
            # the IMU differentiates velocities over step t; positions give the acceleration around t - 1/2
            accel_w = (pos[t] - 2 * pos[t - 1] + pos[t - 2]) / DT**2 + np.array([0.0, 0.0, 9.81])
            expected = quat_rotate_inverse(poses[t][:, 3:], accel_w)
            np.testing.assert_allclose(readings[t], expected, atol=0.35)
        assert np.abs(readings[-1] - readings[2]).max() > 1.0  # the pole really swings


def test_angular_velocity_is_the_body_rate_in_the_sensor_frame(cartpole) -> None:
    robot, imu, sim = _swinging_pole(cartpole)
    with sim:
        sim.step(30)
        body_rate = np.asarray(robot.get_body_velocity("pole"), dtype=np.float64)[:, 3:]
        expected = quat_rotate_inverse(_sensor_pose(robot)[:, 3:], body_rate)
        np.testing.assert_allclose(np.asarray(imu.read_angular_velocity()), expected, atol=1e-6)
        assert np.abs(body_rate).max() > 0.5


def test_at_rest_the_imu_feels_gravity_upward_in_its_own_frame(cartpole) -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(cartpole)
    imu = simulo.IMU(offset=simulo.SensorOffset(rot=(0.7071068, 0.7071068, 0.0, 0.0)))  # x axis turned 90 degrees
    robot.add_sensor(imu, attach_to="cart")
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene, dt=DT) as sim:
        sim.step(5)
        # a +90 degree turn about x carries the sensor's y axis onto world up
        np.testing.assert_allclose(np.asarray(imu.read_linear_acceleration())[0], [0.0, 9.81, 0.0], atol=1e-3)
        np.testing.assert_allclose(np.asarray(imu.read_projected_gravity())[0], [0.0, -1.0, 0.0], atol=1e-6)


def test_an_imu_is_mounted_on_a_robot_body_only() -> None:
    with pytest.raises(SceneError, match="mounted on a robot body"):
        simulo.Scene().add(simulo.IMU(), at="/World/imu")


def test_an_imu_added_after_the_simulation_is_built_is_refused(cartpole) -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(cartpole)
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene), pytest.raises(SimuloValueError, match="added before the simulation is built"):
        robot.add_sensor(simulo.IMU(), attach_to="pole")
    assert robot.sensors == []


def test_a_restarted_environment_reads_no_jump_across_its_teleport(cartpole) -> None:
    robot, imu, sim = _swinging_pole(cartpole)
    with sim:
        sim.step(20)
        q = np.asarray(robot.state.joint_positions).copy()
        q[1, robot.find_joints("cart_to_pole")] = -1.2  # teleport environment 1's pole far away
        robot.set_joint_state(q[1:], env_ids=[1])
        imu.runtime_restart([1])
        sim.step()
        acc = np.asarray(imu.read_linear_acceleration())
        pose = _sensor_pose(robot)
        np.testing.assert_allclose(acc[1], quat_rotate_inverse(pose[1:, 3:], np.array([[0.0, 0.0, 9.81]]))[0],
                                   atol=1e-9)
        assert np.linalg.norm(acc[0]) < 50  # environment 0 goes on differentiating
