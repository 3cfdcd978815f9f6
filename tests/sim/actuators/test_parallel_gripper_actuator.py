"""ParallelGripperActuator on PyBullet and MuJoCo: it closes on a cube and lifts it, the gear keeps the cube
centred (uncoupled fingers let it drift), its states follow the fingers, and ParallelGripper is the same gripper."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.sim.actuators import ParallelGripper, ParallelGripperActuator

FINGERS = ("finger_l", "finger_r")


def build(hand: simulo.Asset, engine: str, num_envs: int = 1, cube_y: float = 0.0,
          **gripper: object) -> tuple[simulo.Robot, ParallelGripperActuator, simulo.Prop, simulo.Simulation]:
    """The hand open over a 4 cm, 0.1 kg cube on the ground (lift held at 0)."""
    scene = simulo.Scene(num_envs=num_envs)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(hand, articulation=simulo.ArticulationConfig(fix_root_link=True,
                                                                      default_joint_positions=[0.0, 0.05, 0.05]))
    grip = ParallelGripperActuator(FINGERS, **gripper)  # type: ignore[arg-type]
    robot.add_actuator(grip, attach_to="palm")
    scene.add(robot, at="/World/Robot")
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.04,) * 3, pose=simulo.Pose.from_xyz(0.0, cube_y, 0.02),
                                     physics=simulo.RigidPhysics(mass=0.1, friction=1.0)))
    scene.add(cube, at="/World/Cube")
    sim = simulo.Simulation(scene, engine=engine)
    robot.set_joint_position_target(np.zeros((num_envs, 1)), joint_ids=[0])
    return robot, grip, cube, sim


def lift(robot: simulo.Robot, height: float) -> None:
    robot.set_joint_position_target(np.full((robot.data.num_envs, 1), height), joint_ids=[0])


def test_the_gripper_closes_on_a_cube_holds_it_in_a_lift_and_lets_it_go(hand, engine) -> None:
    robot, grip, cube, sim = build(hand, engine)
    with sim:
        assert np.asarray(grip.state).tolist() == [simulo.GripperState.OPEN]
        grip.close()
        assert np.asarray(grip.state).tolist() == [simulo.GripperState.CLOSING]  # not a step yet
        sim.step(120)
        assert np.asarray(grip.get_state()).tolist() == [simulo.GripperState.CLOSED]
        np.testing.assert_allclose(grip.gap(), [0.04], atol=1e-3)  # stopped on the cube, not at 0
        lift(robot, 0.15)
        sim.step(240)
        np.testing.assert_allclose(np.asarray(cube.state.pose)[0, :3], [0.0, 0.0, 0.17], atol=3e-3)
        assert np.asarray(grip.state).tolist() == [simulo.GripperState.CLOSED]
        grip.open()
        assert np.asarray(grip.state).tolist() == [simulo.GripperState.OPEN]
        sim.step(240)
        np.testing.assert_allclose(np.asarray(cube.state.pose)[0, :3], [0.0, 0.0, 0.02], atol=3e-3)  # dropped
        np.testing.assert_allclose(grip.joint_positions(), [[0.05, 0.05]], atol=1e-3)  # back at the upper limits


@pytest.mark.parametrize("coupled", [True, False])
def test_the_gear_keeps_a_pushed_cube_centred_and_uncoupled_fingers_let_it_drift(hand, engine, coupled) -> None:
    robot, grip, cube, sim = build(hand, engine, coupled=coupled)
    with sim:
        grip.close()
        sim.step(120)
        lift(robot, 0.05)
        sim.step(120)
        cube.apply_external_force(np.array([[[0.0, 4.0, 0.0]]]), np.zeros((1, 1, 3)))  # a 4 N push along +y
        sim.step(120)
        drift = abs(float(np.asarray(cube.state.pose)[0, 1]))
        if coupled:
            assert drift < 6e-3  # the gear takes the push (MuJoCo's soft joint equality lets about 4 mm)
        else:
            assert drift > 15e-3  # the fingers slide with the cube until one reaches its limit
            np.testing.assert_allclose(grip.joint_positions(), [[0.04, 0.0]], atol=1.5e-3)


def test_commands_reach_only_the_environments_named(hand) -> None:
    robot, grip, cube, sim = build(hand, "pybullet", num_envs=2)
    with sim:
        grip.set_grippers_command(np.array([0.1, 1.0]))  # 0.1 is "do nothing"
        sim.step(120)
        np.testing.assert_array_equal(grip.state, [simulo.GripperState.OPEN, simulo.GripperState.CLOSED])
        np.testing.assert_allclose(grip.gap(), [0.1, 0.04], atol=1e-3)
        grip.set_command({"command": simulo.GripperCommand.OPEN, "env_ids": [1]})
        grip.set_command(simulo.GripperCommand.CLOSE)
        assert np.asarray(grip.state).tolist() == [simulo.GripperState.CLOSING] * 2


def test_action_deltas_move_the_fingers_a_step_per_command(hand) -> None:
    robot, grip, cube, sim = build(hand, "pybullet", cube_y=0.5, action_deltas=(0.01, 0.01))
    with sim:
        grip.close()
        sim.step(60)
        np.testing.assert_allclose(grip.joint_positions(), [[0.04, 0.04]], atol=1e-3)
        grip.close()
        sim.step(60)
        np.testing.assert_allclose(grip.joint_positions(), [[0.03, 0.03]], atol=1e-3)
        grip.open()
        sim.step(60)
        np.testing.assert_allclose(grip.joint_positions(), [[0.04, 0.04]], atol=1e-3)


def test_open_and_closed_positions_default_to_the_joint_limits(hand) -> None:
    robot, grip, cube, sim = build(hand, "pybullet", joint_closed_positions=(0.03, 0.03))
    with sim:
        np.testing.assert_allclose(grip.joint_opened_positions, [0.05, 0.05])
        np.testing.assert_allclose(grip.joint_closed_positions, [0.03, 0.03])
        assert grip.joint_ids == [1, 2] and grip.joint_prim_names == FINGERS


def test_parallel_gripper_is_the_same_gripper_coupled_and_reporting_finger_positions(hand) -> None:
    assert issubclass(simulo.ParallelGripper, simulo.ParallelGripperActuator)
    assert ParallelGripper(FINGERS).coupled and not ParallelGripperActuator(FINGERS).coupled
    scene = simulo.Scene()
    robot = simulo.Robot(hand, articulation=simulo.ArticulationConfig(fix_root_link=True,
                                                                      default_joint_positions=[0.0, 0.05, 0.05]))
    legacy = ParallelGripper(FINGERS)
    robot.add_actuator(legacy, attach_to="palm")
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene):
        np.testing.assert_allclose(legacy.get_state(), [[0.05, 0.05]])
        np.testing.assert_array_equal(legacy.state, [simulo.GripperState.OPEN])
