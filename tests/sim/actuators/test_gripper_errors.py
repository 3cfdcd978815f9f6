"""Bad gripper input raises a SimuloError subclass naming the value, and changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import NameNotFoundError, NonFiniteError, NotAttachedError, ShapeError, SimuloValueError

FINGERS = ("finger_l", "finger_r")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"joint_prim_names": "finger_l"}, r"ParallelGripperActuator.joint_prim_names must be two joint names, got 'fi"),
    ({"joint_prim_names": ("a", "b", "c")}, r"must be two joint names, got \('a', 'b', 'c'\)"),
    ({"force_limit": float("nan")}, r"ParallelGripperActuator.force_limit must be a finite number > 0, got nan"),
    ({"force_limit": -1.0}, r"force_limit must be a finite number > 0, got -1.0"),
    ({"joint_opened_positions": (0.1,)}, r"joint_opened_positions must be two finite numbers .*, got \(0.1,\)"),
    ({"action_deltas": (0.01, float("inf"))}, r"action_deltas must be two finite numbers"),
    ({"gear_erp": 2.0}, r"needs gear_max_force > 0 and 0 < gear_erp <= 1, got 50.0, 2.0"),
    ({"coupled": "yes"}, r"ParallelGripperActuator.coupled must be True or False, got 'yes'"),
])
def test_parallel_gripper_parameters_are_checked(kwargs, message) -> None:
    args = {"joint_prim_names": FINGERS, **kwargs}
    with pytest.raises(SimuloValueError, match=message):
        simulo.ParallelGripperActuator(**args)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_grip_distance": 0.0}, r"max_grip_distance must be a finite number > 0, got 0.0"),
    ({"max_grip_distance": float("nan")}, r"max_grip_distance must be a finite number > 0, got nan"),
    ({"coaxial_force_limit": -5}, r"coaxial_force_limit must be a finite number > 0 or None \(no limit\), got -5"),
    ({"shear_force_limit": "big"}, r"shear_force_limit must be a finite number > 0 or None .*, got 'big'"),
    ({"retry_interval": -0.1}, r"retry_interval must be a finite number >= 0, got -0.1"),
    ({"forward_axis": "w"}, r"forward_axis must be 'x', 'y' or 'z', got 'w'"),
])
def test_surface_gripper_parameters_are_checked(kwargs, message) -> None:
    with pytest.raises(SimuloValueError, match=message):
        simulo.SurfaceGripperActuator(**kwargs)


def test_an_unknown_joint_or_body_is_named(hand, gantry) -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(hand, articulation=simulo.ArticulationConfig(fix_root_link=True))
    robot.add_actuator(simulo.ParallelGripperActuator(("finger_l", "finger_x")), attach_to="palm")
    scene.add(robot, at="/World/Robot")
    with pytest.raises(NameNotFoundError, match="finger_x"):
        simulo.Simulation(scene)
    scene = simulo.Scene()
    robot = simulo.Robot(gantry)
    robot.add_actuator(simulo.SurfaceGripperActuator(), attach_to="picker_head/NoSuchCup")
    scene.add(robot, at="/World/Robot")
    with pytest.raises(NameNotFoundError, match="NoSuchCup"):
        simulo.Simulation(scene)


def test_a_gripper_is_commanded_once_attached() -> None:
    with pytest.raises(NotAttachedError, match="ParallelGripperActuator is commanded after"):
        simulo.ParallelGripperActuator(FINGERS).close()
    with pytest.raises(NotAttachedError, match="SurfaceGripperActuator is commanded after"):
        simulo.SurfaceGripperActuator().open()


@pytest.fixture
def grippers(hand, gantry):
    """A two-environment scene with a hand's ParallelGripperActuator and a gantry's SurfaceGripperActuator."""
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(hand, articulation=simulo.ArticulationConfig(fix_root_link=True))
    fingers = simulo.ParallelGripperActuator(FINGERS)
    robot.add_actuator(fingers, attach_to="palm")
    scene.add(robot, at="/World/Hand")
    cup = simulo.SurfaceGripperActuator()
    scene.add(simulo.Robot(gantry).add_actuator(cup, attach_to="SurfaceGripper"), at="/World/Gantry")
    with simulo.Simulation(scene) as sim:
        yield fingers, cup, sim


@pytest.mark.parametrize(("command", "error", "message"), [
    (np.array([1.0, 0.0, 1.0]), ShapeError, r"command must have shape \(2,\), got \(3,\)"),
    (np.array([1.0, np.nan]), NonFiniteError, r"command contains a non-finite value nan at index"),
    (2.0, SimuloValueError, r"command must be in \[-1, 1\] \(-1 open, 0 idle, 1 close\), got 2.0 at index 0"),
    (True, SimuloValueError, r"command must be a GripperCommand or a number in \[-1, 1\], got True"),
    ("close", SimuloValueError, r"command must be numeric"),
])
def test_malformed_commands_are_refused_and_change_nothing(grippers, command, error, message) -> None:
    fingers, cup, sim = grippers
    for gripper in (fingers, cup):
        with pytest.raises(error, match=message):
            gripper.set_command(command)
        np.testing.assert_array_equal(gripper.state, [simulo.GripperState.OPEN] * 2)
    assert np.isnan(fingers._data.pos_t[:, fingers.joint_ids]).all()  # no finger target was set


def test_malformed_mappings_and_env_ids_are_refused(grippers) -> None:
    fingers, cup, sim = grippers
    with pytest.raises(SimuloValueError, match=r"surface gripper command must be a dict with 'command'"):
        cup.set_command({"opening": 0.02})
    with pytest.raises(SimuloValueError, match=r"a dict with 'opening' and 'force', got \{'close': 1\} \(or a dict"):
        fingers.set_command({"close": 1})
    with pytest.raises(SimuloValueError, match=r"env_ids \[5\] out of range"):
        cup.close(env_ids=[5])
    with pytest.raises(SimuloValueError, match="gripper force must be a finite number > 0 N, got nan"):
        fingers.command(0.02, float("nan"))


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"max_grip_distance": np.array([0.1, np.nan])}, SimuloValueError,
     r"max_grip_distance must be finite and > 0, got nan at index 1"),
    ({"retry_interval": -1.0}, SimuloValueError, r"retry_interval must be finite and >= 0, got -1.0 at index 0"),
    ({"max_grip_distance": np.inf}, SimuloValueError, r"max_grip_distance must be finite and > 0, got inf"),
    ({"coaxial_force_limit": np.zeros(3)}, ShapeError, r"coaxial_force_limit must have shape \(2,\), got \(3,\)"),
])
def test_malformed_properties_are_refused_and_change_nothing(grippers, kwargs, error, message) -> None:
    fingers, cup, sim = grippers
    with pytest.raises(error, match=message):
        cup.update_gripper_properties(shear_force_limit=1.0, **kwargs)
    assert cup._per_env["shear_force_limit"].tolist() == [500.0, 500.0]  # the valid value was not applied either


def test_a_refused_torch_command_changes_nothing(grippers) -> None:
    torch = pytest.importorskip("torch")
    fingers, cup, sim = grippers
    for gripper in (fingers, cup):
        before = gripper.state.copy()
        with pytest.raises(NonFiniteError):
            gripper.set_grippers_command(torch.tensor([1.0, float("nan")]))
        np.testing.assert_array_equal(gripper.state, before)
    assert np.isnan(fingers._data.pos_t[:, fingers.joint_ids]).all()  # no finger target was set


def test_a_numpy_simulation_given_a_torch_gripper_command_applies_it_and_keeps_returning_numpy(grippers) -> None:
    torch = pytest.importorskip("torch")
    fingers, cup, sim = grippers
    cup.set_grippers_command(torch.tensor([1.0, 1.0]))
    state = cup.state
    assert type(state) is np.ndarray and type(fingers.state) is np.ndarray
    assert state.tolist() == [simulo.GripperState.CLOSING] * 2  # the command was applied


def test_an_engine_without_welds_refuses_a_surface_gripper_and_leaves_the_scene_free(gantry) -> None:
    from simulo.engine.pybullet.engine import PyBulletEngine
    from simulo.engine.registry import register_engine, unregister_engine

    class NoWelds(PyBulletEngine):
        add_welds = None  # type: ignore[assignment]

    register_engine("no-welds", NoWelds)
    try:
        scene = simulo.Scene()
        scene.add(simulo.Robot(gantry).add_actuator(simulo.SurfaceGripperActuator(), attach_to="SurfaceGripper"))
        with pytest.raises(simulo.SceneError, match="needs welds, which the NoWelds engine does not make"):
            simulo.Simulation(scene, engine="no-welds")
        with simulo.Simulation(scene) as sim:  # nothing was left attached
            sim.step(1)
    finally:
        unregister_engine("no-welds")
