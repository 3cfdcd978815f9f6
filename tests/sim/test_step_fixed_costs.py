"""The step's shortcuts change no result: a flush of new position targets alone sends what a full flush would,
and a prop's state is read from the engine when it is read (or held), not on every step."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo
from simulo.sim.command_changes import EFFORTS, MOTOR_POSITIONS, TARGETS, TORQUE_EFFORTS

ARM = ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll"]


def _arm(num_envs: int = 2) -> tuple[simulo.Robot, simulo.Simulation]:
    scene = simulo.Scene(num_envs=num_envs)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/pick_arm:v1"))
    scene.add(robot, at="/World/Arm")
    return robot, simulo.Simulation(scene)


def test_new_position_targets_alone_take_the_shortcut_and_move_the_arm_as_full_flushes_do(record_calls: Any) -> None:
    runs = []
    for full in (False, True):
        robot, sim = _arm()
        with sim:
            ids = [robot.find_joints(name)[0] for name in ARM]
            robot.set_joint_position_target(np.full((2, 5), 0.1), joint_ids=ids)
            sim.step()  # a full flush: the arm's position motors now run in every environment
            data = robot.data
            which = record_calls(data.batch, ("apply", "apply_positions"))
            for k in range(40):
                robot.set_joint_position_target(np.full((2, 5), 0.1 + 0.02 * k) * [[1.0], [-1.0]], joint_ids=ids)
                assert data.changes.bits == MOTOR_POSITIONS
                if full:
                    data.changes.note(TARGETS)  # the same targets through the drives
                sim.step()
            assert which == ["apply" if full else "apply_positions"] * 40
            runs.append(np.array(robot.state.joint_positions))
    assert np.abs(runs[0][:, ids]).max() > 0.3  # the arm followed the targets
    np.testing.assert_array_equal(runs[0], runs[1])


def test_a_target_on_a_joint_without_a_running_motor_takes_the_full_flush() -> None:
    robot, sim = _arm()
    with sim:
        ids = [robot.find_joints(name)[0] for name in ARM]
        robot.set_joint_position_target(np.full((2, 5), 0.1), joint_ids=ids)
        sim.step()
        finger = robot.find_joints("finger_left_joint")
        robot.set_joint_position_target(np.full((2, 1), 0.01), joint_ids=finger)
        assert robot.data.changes.modes_may_change  # the finger's motor is not running yet: its mode changes
        robot.set_joint_position_target(np.full((1, 5), 0.3), joint_ids=ids, env_ids=[1])
        sim.step()
        assert int(robot.data.mode[0, finger[0]]) == int(robot.data.mode[0, ids[0]])  # now a position motor


def test_a_prop_nobody_reads_is_not_read_from_the_engine_and_a_held_one_stays_current() -> None:
    scene = simulo.Scene(num_envs=2)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    ball = simulo.Prop(simulo.Sphere(name="ball", radius=0.05, pose=simulo.Pose.from_xyz(0, 0, 0.5),
                                     physics=simulo.RigidPhysics(mass=0.1)))
    scene.add(ball, at="/World/Ball")
    with simulo.Simulation(scene) as sim:
        reads = []
        read = ball.data.batch.read
        ball.data.batch.read = lambda *a: (reads.append(1), read(*a))  # type: ignore[method-assign]
        sim.step(10)
        assert reads == []  # nothing read: nothing asked
        z = float(np.asarray(ball.state.pose)[0, 2])
        assert len(reads) == 1 and z < 0.5  # the first read after the steps is current
        held = ball.state.pose
        sim.step(5)
        assert len(reads) == 6  # held: refreshed after every step
        assert held[0, 2] < z and ball.state.pose is held


def _efforts_run(engine: str, full: bool, mixed: bool) -> tuple[np.ndarray, np.ndarray, list[bool]]:
    """40 steps of the cartpole with new effort targets before each (environment 1's cart beyond its 400 N
    limit): ``full`` makes every flush take the drives' path; ``mixed`` gives environment 0 a position target
    on the cart as well (its cart then runs a motor)."""
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
    scene.add(robot, at="/World/Cartpole")
    shortcuts = []
    with simulo.Simulation(scene, engine=engine) as sim:
        if mixed:
            robot.set_joint_position_target(np.array([[0.2]]), joint_ids=[0], env_ids=[0])
        for k in range(40):
            robot.set_joint_effort_target(np.array([[30.0 * np.sin(0.3 * k), 5.0], [600.0, -3.0 + 0.1 * k]]))
            data = robot.data
            shortcuts.append(data.changes.bits == TORQUE_EFFORTS)
            if full:
                data.changes.note(EFFORTS)
            sim.step()
        return np.array(robot.state.joint_positions), np.array(robot.state.joint_efforts), shortcuts


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
@pytest.mark.parametrize("mixed", [False, True])
def test_new_effort_targets_alone_take_the_shortcut_and_act_as_full_flushes_do(engine: str, mixed: bool) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    q, effort, shortcuts = _efforts_run(engine, full=False, mixed=mixed)
    q_full, effort_full, _ = _efforts_run(engine, full=True, mixed=mixed)
    # after the first flush every write reuses the modes, unless a joint is torque-driven in some environments only
    assert shortcuts == [False] + [not mixed] * 39
    np.testing.assert_array_equal(q, q_full)
    np.testing.assert_array_equal(effort, effort_full)
    assert abs(q[1, 0]) > 0.01  # the cart moved
    assert effort[1, 0] == 400.0 and effort[1, 1] == -3.0 + 0.1 * 39  # 600 N clipped at the cart's effort limit
