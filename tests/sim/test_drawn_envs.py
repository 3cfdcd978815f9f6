"""Without visuals=True only the first environments carry robots' visual shapes: large batches stay light, and
the first ones are still drawn."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError
from simulo.sim.simulation import DRAWN_ENVS


def _arm_sim(num_envs: int, visuals: bool, spacing: float = 2.0) -> tuple[simulo.Simulation, simulo.Robot]:
    scene = simulo.Scene(num_envs=num_envs, env_spacing=spacing)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/franka-panda:v1"))
    scene.add(robot, at="/World/Arm")
    return simulo.Simulation(scene, visuals=visuals), robot


def _differing_pixels(image: np.ndarray, background: np.ndarray) -> int:
    return int((np.abs(image.astype(int) - background.astype(int)).sum(axis=2) > 30).sum())


def test_an_environment_past_the_drawn_ones_is_refused_with_the_way_to_draw_it() -> None:
    sim, _ = _arm_sim(DRAWN_ENVS + 1, visuals=False)
    with sim:
        assert sim.render(DRAWN_ENVS - 1, 32, 24).shape == (24, 32, 3)
        with pytest.raises(SimuloValueError, match=r"render env 16: .*visuals=True"):
            sim.render(DRAWN_ENVS, 32, 24)


def test_leaving_out_visual_shapes_changes_no_physics() -> None:
    states = []
    for visuals in (False, True):
        sim, robot = _arm_sim(DRAWN_ENVS + 2, visuals=visuals)
        with sim:
            robot.set_joint_position_target(np.full((DRAWN_ENVS + 2, len(robot.get_joint_names())), 0.2))
            sim.step(30)
            states.append(np.array(robot.state.joint_positions).tobytes())
    assert states[0] == states[1]


def test_pybullet_leaves_out_the_visual_shapes_of_the_environments_past_the_drawn_ones() -> None:
    sim, _ = _arm_sim(DRAWN_ENVS + 1, visuals=False, spacing=10.0)
    with sim:
        pictures = []
        for env in (0, 1, DRAWN_ENVS):  # the engine's own render: the simulation refuses the last
            origin = np.asarray(sim.env_origins)[env]
            eye, target = origin + (1.4, 0.0, 0.6), origin + (0.0, 0.0, 0.4)
            pictures.append(sim._engine.render(env, 96, 72, eye.tolist(), target.tolist()))
    assert _differing_pixels(pictures[0], pictures[1]) < 5  # two drawn arms look the same
    assert _differing_pixels(pictures[0], pictures[2]) > 100  # the third has none to draw
