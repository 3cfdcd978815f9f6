"""Sensors and actuators on robots: ``add_sensor``/``add_actuator``, ``ContactSensor``, ``ParallelGripper``."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import NotAttachedError, SimuloValueError

FINGERS = ("finger_left_joint", "finger_right_joint")


def test_add_sensor_and_actuator_register_with_robot_and_scene(arm) -> None:
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.04,) * 3, physics=simulo.RigidPhysics()))
    robot = simulo.Robot(arm)
    gripper = simulo.ParallelGripper(FINGERS)
    contacts = simulo.ContactSensor(other=cube, name="touch")
    assert robot.add_actuator(gripper, attach_to="hand") is robot  # chaining
    assert robot.add_sensor(contacts, attach_to="finger_.*") is robot
    assert robot.actuators == [gripper] and robot.sensors == [contacts]
    robot.sensors.append("x")  # a copy
    assert robot.sensors == [contacts]
    with pytest.raises(SimuloValueError, match="already attached to this robot"):
        robot.add_sensor(contacts, attach_to="hand")
    with pytest.raises(SimuloValueError, match="is not a simulo sensor"):
        robot.add_sensor(object(), attach_to="hand")
    scene = simulo.Scene()
    scene.add(robot, at="/World/Arm")
    scene.add(cube, at="/World/Cube")
    extras = [(e["path"], e["kind"]) for e in scene.get_items() if e["kind"] == "sensor_or_actuator"]
    assert extras == [("/World/Arm/touch", "sensor_or_actuator"), ("/World/Arm/gripper", "sensor_or_actuator")]
    with simulo.Simulation(scene):
        assert contacts.bodies == robot.find_bodies("finger_.*") == [6, 7]
        assert gripper.joint_ids == robot.find_joints("finger_.*") == [5, 6]
        with pytest.raises(SimuloValueError, match="actuators must be added before the simulation is built"):
            robot.add_actuator(simulo.ParallelGripper(FINGERS), attach_to="hand")
        late = simulo.ContactSensor(other=cube, name="late")
        robot.add_sensor(late, attach_to="tcp")  # sensors may come late: bound at once
        assert late.bodies == [8]


def test_parallel_gripper_opens_closes_and_resets(arm) -> None:
    scene = simulo.Scene(num_envs=3)
    robot = simulo.Robot(arm, disable_gravity=True)
    gripper = simulo.ParallelGripper(FINGERS)
    robot.add_actuator(gripper, attach_to="hand")
    scene.add(robot)
    with pytest.raises(NotAttachedError, match="ParallelGripper is commanded after"):
        gripper.command(0.02, 10.0)
    with simulo.Simulation(scene) as sim:
        gripper.command(0.03, 20.0)
        gripper.command(np.array([0.01]), 20.0, env_ids=[2])
        sim.step(120)
        state = np.asarray(gripper.get_state())
        np.testing.assert_allclose(state, [[0.03, 0.03], [0.03, 0.03], [0.01, 0.01]], atol=1e-3)
        np.testing.assert_allclose(gripper.gap(), state.sum(axis=1))
        np.testing.assert_allclose(np.asarray(robot.state.joint_positions)[:, 5:], state)
        # the force limit binds: a 0.5 N finger drive is reported at (at most) 0.5 N
        gripper.set_command({"opening": 0.0, "force": 0.5, "env_ids": [0]})
        sim.step(1)
        np.testing.assert_allclose(np.abs(np.asarray(robot.state.joint_efforts)[0, 5:]), [0.5, 0.5], atol=0.05)
        gripper.reset()
        sim.step(1)
        assert np.all(np.isnan(robot.data.pos_t[:, 5:]))  # no finger targets left
        with pytest.raises(SimuloValueError, match="gripper force must be a finite number > 0 N, got -5"):
            gripper.command(0.02, -5)


@pytest.mark.parametrize("coupled", [True, False])
def test_gripper_gear_couples_the_fingers(coupled, arm) -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(arm, disable_gravity=True)
    robot.add_actuator(simulo.ParallelGripper(FINGERS, coupled=coupled), attach_to="hand")
    scene.add(robot)
    with simulo.Simulation(scene) as sim:
        left = robot.find_joints("finger_left_joint")
        robot.set_joint_effort_target(np.array([[2.0]]), joint_ids=left)  # push the left finger only
        sim.step(30)
        q = np.asarray(robot.state.joint_positions)[0]
        assert q[5] > 0.005
        if coupled:
            np.testing.assert_allclose(q[6], q[5], atol=2e-3)  # the right one mirrors it
        else:
            assert abs(q[6]) < 1e-6


def test_contact_sensor_counts_contacts_per_body(floater) -> None:
    scene = simulo.Scene(num_envs=2)
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.1, 0.1, 0.1), pose=simulo.Pose.from_xyz(0, 0, 0.8),
                                     physics=simulo.RigidPhysics(mass=0.2)))
    robot = simulo.Robot(floater, simulo.Pose.from_xyz(0, 0, 0.5),
                         articulation=simulo.ArticulationConfig(fix_root_link=True))
    everywhere = simulo.ContactSensor(other=cube, name="all")
    on_arm = simulo.ContactSensor(other=cube, name="arm")
    robot.add_sensor(everywhere, attach_to=".*").add_sensor(on_arm, attach_to="arm")
    scene.add(robot)
    scene.add(cube, at="/World/Cube")
    with simulo.Simulation(scene) as sim:
        np.testing.assert_array_equal(everywhere.read(), [0, 0])  # still in the air
        sim.step(240)  # the cube lands on the base box, clear of the arm
        counts = np.asarray(everywhere.read())
        per_body = np.asarray(everywhere.read_per_body())
        assert per_body.shape == (2, 2) and np.all(counts >= 3)
        np.testing.assert_array_equal(per_body[:, 0], counts)  # all on the base
        np.testing.assert_array_equal(per_body[:, 1], [0, 0])
        np.testing.assert_array_equal(on_arm.read(), [0, 0])
        origin = np.asarray(sim.env_origins)[1]
        cube.set_pose(np.array([[*(origin + [0.25, 0.0, 0.55]), 1, 0, 0, 0]]), env_ids=[1])  # onto env 1's arm
        sim.step(60)
        arm_counts = np.asarray(on_arm.read())
        assert arm_counts[0] == 0 and arm_counts[1] > 0
