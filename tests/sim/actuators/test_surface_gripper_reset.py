"""An environment's reset releases its surface gripper's grip (the engine weld off, nothing held, open) before
the task's ``reset_idx`` runs, and leaves the other environments' grips as they were: a finished episode, a
seeded reset, ``LearningEnv.reset``, ``Simulation.reset`` and a bare ``robot.reset(env_ids)``, on PyBullet and
MuJoCo."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import simulo
from simulo import GripperState
from tests.sim.actuators.test_surface_gripper import ABOVE_CUBE, build, local_cube, move

OPEN, CLOSED = GripperState.OPEN, GripperState.CLOSED


class CupTask(simulo.Task):
    """The gantry over a 5 cm cube in every environment; an episode ends where :attr:`end` says so."""

    observation_dim = 1
    action_dim = 1
    episode_length_s = 1000.0
    physics_steps_per_action = 1

    def __init__(self, gantry: simulo.Asset) -> None:
        self.gantry = gantry
        self.seen: list[list[str | None]] = []  # what the gripper held as each reset_idx began

    def build(self, scene: Any) -> None:
        scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
        self.robot = simulo.Robot(self.gantry)
        self.grip = simulo.SurfaceGripperActuator(max_grip_distance=0.02)
        self.robot.add_actuator(self.grip, attach_to="picker_head/SurfaceGripper")
        scene.add(self.robot, at="/World/Robot")
        self.cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.05,) * 3,
                                              pose=simulo.Pose.from_xyz(0.3, 0.2, 0.025),
                                              physics=simulo.RigidPhysics(mass=0.2)))
        scene.add(self.cube, at="/World/Cube")

    def on_start(self, env: Any) -> None:
        self.end = np.zeros(self.num_envs, dtype=bool)

    def apply_actions(self, actions: Any) -> None:
        pass  # the tests drive the robot themselves

    def get_observations(self) -> Any:
        return np.zeros((self.num_envs, 1))

    def get_rewards(self) -> Any:
        return np.zeros(self.num_envs)

    def get_dones(self) -> Any:
        return self.end.copy(), np.zeros(self.num_envs, dtype=bool)

    def reset_idx(self, env_ids: Any) -> None:
        self.seen.append(self.grip.held_objects())
        self.robot.reset(env_ids)
        self.cube.reset(env_ids)


@pytest.fixture
def lifted(gantry: simulo.Asset, engine: str) -> Iterator[tuple[CupTask, simulo.LearningEnv]]:
    """A two-environment LearningEnv of :class:`CupTask` in which every environment has gripped its cube and
    lifted it 40 cm."""
    task = CupTask(gantry)
    env = simulo.LearningEnv(task, num_envs=2, engine=engine)
    try:
        env.reset()
        move(task.robot, env.sim, 0.3, 0.2, ABOVE_CUBE)
        task.grip.close()
        env.sim.step(1)
        move(task.robot, env.sim, 0.3, 0.2, -0.4)
        np.testing.assert_array_equal(task.grip.state, [CLOSED, CLOSED])
        yield task, env
    finally:
        env.close()


def welds_of(grip: simulo.SurfaceGripperActuator) -> np.ndarray:
    """The engine weld's force on each environment's held object in the last step, N (0 where off)."""
    assert grip._welds is not None
    return np.linalg.norm(grip._welds.forces(), axis=1)


def test_a_finished_episode_releases_its_grip_and_leaves_the_others(lifted) -> None:
    task, env = lifted
    task.end[:] = [True, False]
    env.step(np.zeros((2, 1)))
    task.end[:] = False
    assert task.seen[-1] == [None, "cube"]  # released before reset_idx moved the cube
    np.testing.assert_array_equal(task.grip.state, [OPEN, CLOSED])
    assert task.grip.held_objects() == [None, "cube"]
    move(task.robot, env.sim, 0.3, 0.2, -0.4)  # the reset cup goes back up; a weld left on would lift its cube
    np.testing.assert_allclose(local_cube(task.cube, env.sim)[:, 2], [0.025, 0.425], atol=2e-3)
    forces = welds_of(task.grip)
    assert forces[0] == 0.0 and forces[1] > 1.0
    move(task.robot, env.sim, 0.3, 0.2, ABOVE_CUBE)  # the reset environment grips again
    task.grip.close(env_ids=[0])
    env.sim.step(1)
    np.testing.assert_array_equal(task.grip.state, [CLOSED, CLOSED])


def test_reset_and_seeded_reset_release_the_grips_they_reset(lifted) -> None:
    task, env = lifted
    env.seeded_reset(1, 7)
    np.testing.assert_array_equal(task.grip.state, [CLOSED, OPEN])
    assert task.grip.held_objects() == ["cube", None] and task.seen[-1] == ["cube", None]
    env.reset()
    np.testing.assert_array_equal(task.grip.state, [OPEN, OPEN])
    assert task.grip.held_objects() == [None, None]
    move(task.robot, env.sim, 0.3, 0.2, -0.4)
    np.testing.assert_allclose(local_cube(task.cube, env.sim)[:, 2], [0.025, 0.025], atol=2e-3)
    np.testing.assert_array_equal(welds_of(task.grip), [0.0, 0.0])


@pytest.fixture
def held(gantry: simulo.Asset, engine: str) -> Iterator[tuple[simulo.Robot, Any, simulo.Prop, simulo.Simulation]]:
    """A bare two-environment simulation (no LearningEnv) in which every gantry has gripped its cube and lifted it
    40 cm."""
    robot, grip, cube, sim = build(gantry, engine, num_envs=2, max_grip_distance=0.02)
    with sim:
        move(robot, sim, 0.3, 0.2, ABOVE_CUBE)
        grip.close()
        sim.step(1)
        move(robot, sim, 0.3, 0.2, -0.4)
        np.testing.assert_array_equal(grip.state, [CLOSED, CLOSED])
        yield robot, grip, cube, sim


def test_a_simulation_reset_releases_every_grip(held) -> None:
    robot, grip, cube, sim = held
    sim.reset()
    np.testing.assert_array_equal(grip.state, [OPEN, OPEN])
    assert grip.held_objects() == [None, None]
    move(robot, sim, 0.3, 0.2, -0.4)
    np.testing.assert_allclose(local_cube(cube, sim)[:, 2], [0.025, 0.025], atol=2e-3)


def test_a_robot_reset_releases_the_grips_of_the_environments_it_resets(held) -> None:
    robot, grip, cube, sim = held
    robot.reset([1])
    np.testing.assert_array_equal(grip.state, [CLOSED, OPEN])
    assert grip.held_objects() == ["cube", None]
    move(robot, sim, 0.3, 0.2, -0.4)  # the reset gantry goes back up: a weld left on would lift its cube
    np.testing.assert_allclose(local_cube(cube, sim)[:, 2], [0.425, 0.025], atol=2e-3)
    assert welds_of(grip)[1] == 0.0
