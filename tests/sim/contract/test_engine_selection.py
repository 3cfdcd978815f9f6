"""Engines are chosen by name; the simulation takes the engine's bounds and asks nothing else of it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.registry import (
    UnknownEngineError,
    available_engines,
    create_engine,
    engine_factory,
    register_engine,
    unregister_engine,
)

from .mock_engine import MockEngine


def test_registered_engines_and_an_unknown_name(cartpole) -> None:
    assert {"pybullet", "mock"} <= set(available_engines())
    assert engine_factory("mock") is MockEngine
    scene = simulo.Scene()
    scene.add(simulo.Robot(cartpole))
    with pytest.raises(UnknownEngineError,
                       match=r"unknown engine 'mujoko'; registered engines: \[.*'mock'.*'pybullet'"):
        simulo.Simulation(scene, engine="mujoko")
    assert issubclass(UnknownEngineError, simulo.SimuloValueError)
    assert scene.env_origins is None  # nothing half-built: the scene can still be simulated
    with simulo.Simulation(scene, engine="mock") as sim:
        assert sim.engine_name == "mock"


def test_the_suites_simulations_run_on_the_engine_under_test(cartpole, engine, make) -> None:
    _, sim = make(cartpole, num_envs=2, sim={"envs_per_world": 1})
    assert sim.engine_name == engine and sim.worlds == 2  # the caller's own sim options are kept too


def test_the_engine_bounds_come_from_the_engine(cartpole, engine) -> None:
    factory = engine_factory(engine)
    scene = simulo.Scene(num_envs=9)
    scene.add(simulo.Robot(cartpole))
    with simulo.Simulation(scene, engine=engine) as sim:
        assert sim.worlds == -(-9 // factory.default_envs_per_world)
    with pytest.raises(simulo.SimuloValueError, match=f"envs_per_world must be an integer from 1 to "
                                                      f"{factory.max_envs_per_world}, got"):
        simulo.Simulation(scene, engine=engine, envs_per_world=factory.max_envs_per_world + 1)
    assert engine_factory("mock").max_envs_per_world != engine_factory("pybullet").max_envs_per_world


def test_create_engine_builds_a_batch_of_worlds(engine) -> None:
    built = create_engine(engine, num_envs=5, dt=0.01, envs_per_world=2)
    try:
        assert built.num_envs == 5 and built.num_worlds == 3
    finally:
        built.close()


def test_control_modes_are_named() -> None:
    assert [m.name for m in ControlMode] == ["PASSIVE", "POSITION_MOTOR", "VELOCITY_MOTOR", "TORQUE"]
    assert np.array([0, 3], dtype=np.int8)[1] == ControlMode.TORQUE


def test_a_whole_simulation_on_the_mock_never_imports_pybullet() -> None:
    # proof that simulo.sim holds no PyBullet code: build, command, step and reset without pybullet loaded
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "import numpy as np, simulo\n"
        "from mock_engine import MockEngine\n"
        "from simulo.engine.registry import register_engine\n"
        "register_engine('mock', MockEngine)\n"
        "scene = simulo.Scene(num_envs=3)\n"
        "robot = simulo.Robot(simulo.Asset.from_registry('simulo/robot/pick_arm:v1'))\n"
        "cube = simulo.Prop(simulo.Cuboid(name='cube', size=(0.04,) * 3, physics=simulo.RigidPhysics(mass=0.1)))\n"
        "robot.add_actuator(simulo.ParallelGripper(('finger_left_joint', 'finger_right_joint')), attach_to='hand')\n"
        "robot.add_sensor(simulo.ContactSensor(other=cube), attach_to='finger_.*')\n"
        "scene.add(simulo.Terrain.plane(), at='/World/Ground', per_environment=False)\n"
        "scene.add(robot, at='/World/Arm')\n"
        "scene.add(cube, at='/World/Cube')\n"
        "with simulo.Simulation(scene, engine='mock') as sim:\n"
        "    robot.set_joint_position_target(np.full((3, 7), 0.1))\n"
        "    robot.actuators[0].command(0.01, 5.0)\n"
        "    sim.step(3)\n"
        "    robot.get_body_pose('tcp'); robot.get_jacobians(); robot.sensors[0].read(); robot.reset([2, 0])\n"
        "print('pybullet' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_register_engine_refuses_bad_names_and_silent_replacement() -> None:
    with pytest.raises(simulo.SimuloValueError, match="engine name must be a non-empty string, got ''"):
        register_engine("", MockEngine)
    register_engine("mock", MockEngine)  # the same factory again is fine
    with pytest.raises(simulo.SimuloValueError, match="engine 'mock' is already registered; pass replace=True"):
        register_engine("mock", "somewhere:Else")
    register_engine("lazy", "simulo.engine.pybullet.engine:PyBulletEngine")  # imported on first use
    try:
        assert "lazy" in available_engines()
        assert engine_factory("lazy") is engine_factory("pybullet")
        with pytest.raises(UnknownEngineError, match="unknown engine 'nope'"):
            unregister_engine("nope")
    finally:
        unregister_engine("lazy")
    assert "lazy" not in available_engines()
