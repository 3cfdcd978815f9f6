"""The runtime classes satisfy simulo-interfaces' runtime-checkable Protocols (a test-only dependency)."""

from __future__ import annotations

import sys

import pytest

import simulo
from simulo.errors import NotAttachedError

robot_protocols = pytest.importorskip("simulo.interfaces.authoring.robot")
scene_protocols = pytest.importorskip("simulo.interfaces.authoring.scene")
prop_protocols = pytest.importorskip("simulo.interfaces.authoring.prop")


def test_robot_state_and_scene_satisfy_the_protocols(cartpole) -> None:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(cartpole, simulo.Pose.identity())
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.1,) * 3, physics=simulo.RigidPhysics()))
    scene.add(robot, at="/World/Robot")
    scene.add(cube, at="/World/Cube")
    assert isinstance(scene, scene_protocols.SceneProtocol)
    assert isinstance(scene.group("G"), scene_protocols.SceneGroupProtocol)
    if sys.version_info < (3, 12):
        # hasattr() answers False for members that need the engine (NotAttachedError is an AttributeError),
        # so the structural check only passes once the robot is attached
        assert not isinstance(robot, robot_protocols.RobotProtocol)
    with simulo.Simulation(scene):
        assert isinstance(robot, robot_protocols.RobotProtocol)
        assert isinstance(robot.state, robot_protocols.RobotStateProtocol)
        assert isinstance(cube, prop_protocols.PropProtocol)
        assert isinstance(cube.state, prop_protocols.PropStateProtocol)
        assert isinstance(scene, scene_protocols.SceneProtocol)


def test_every_protocol_member_exists(cartpole) -> None:
    # independent of attachment: methods and properties on the class, plain fields on a fresh instance
    from simulo.sim.prop import PropState
    from simulo.sim.robot import RobotState

    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.1,) * 3, physics=simulo.RigidPhysics()))
    for proto, instance in ((robot_protocols.RobotProtocol, simulo.Robot(cartpole)),
                            (robot_protocols.RobotStateProtocol, None),
                            (scene_protocols.SceneProtocol, simulo.Scene()),
                            (prop_protocols.PropProtocol, cube),
                            (prop_protocols.PropStateProtocol, None)):
        methods = {m for m in dir(proto) if not m.startswith("_")}
        fields = set(getattr(proto, "__annotations__", {}))
        cls = {robot_protocols.RobotStateProtocol: RobotState, prop_protocols.PropStateProtocol: PropState}.get(
            proto, type(instance))
        assert methods, proto.__name__
        missing = [m for m in sorted(methods) if not hasattr(cls, m)]
        missing += [f for f in sorted(fields - methods) if instance is None or f not in vars(instance)]
        assert missing == [], (proto.__name__, missing)


def test_not_attached_error_is_runtime_and_attribute_error() -> None:
    assert issubclass(NotAttachedError, RuntimeError)
    assert issubclass(NotAttachedError, AttributeError)
    assert issubclass(NotAttachedError, simulo.SimuloError)


def test_sensor_and_actuator_protocols(arm) -> None:
    from simulo.interfaces.authoring import actuator as actuator_protocols
    from simulo.interfaces.authoring import sensor as sensor_protocols

    scene = simulo.Scene()
    robot = simulo.Robot(arm)
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.04,) * 3, physics=simulo.RigidPhysics(mass=0.1)))
    gripper = simulo.ParallelGripper(("finger_left_joint", "finger_right_joint"))
    sensor = simulo.ContactSensor(other=cube, name="finger_contacts")
    robot.add_actuator(gripper, attach_to="hand").add_sensor(sensor, attach_to="finger_.*")
    scene.add(robot, at="/World/Arm")
    scene.add(cube, at="/World/Cube")
    assert isinstance(sensor, sensor_protocols.SensorProtocol)
    assert isinstance(gripper, actuator_protocols.ActuatorProtocol)
    assert sensor.path == "/World/Arm/finger_contacts" and gripper.path == "/World/Arm/gripper"
    sim = simulo.Simulation(scene)
    try:
        gripper.enabled = False
        with pytest.raises(simulo.SimuloValueError, match="disabled"):
            gripper.command(0.01, 10.0)
        sensor.enabled = False
        with pytest.raises(simulo.SimuloValueError, match="disabled"):
            sensor.read()
    finally:
        sim.close()
