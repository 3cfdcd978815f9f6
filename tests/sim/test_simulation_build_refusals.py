"""Simulation(scene) refuses bad input with a SimuloError and leaves nothing attached (no half-built simulation)."""

from __future__ import annotations

import pytest

import simulo
from simulo.errors import SceneError, SimuloValueError


@pytest.mark.parametrize("values", [0.0, ("a", 0.0), (float("nan"), 0.0), (0.0, float("inf"))])
def test_bad_default_joint_positions_are_a_simulo_error(cartpole, values):
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(asset=cartpole, articulation=simulo.ArticulationConfig(default_joint_positions=values))
    scene.add(robot, at="/World/Robot")
    with pytest.raises(SimuloValueError,
                       match=r"default_joint_positions must have one value per joint \(2: .*\), each a finite number"):
        simulo.Simulation(scene)
    assert scene.runtime_simulation is None and not robot.runtime_attached


@pytest.mark.parametrize("shard", [5, (0,), (0, 1, 2)])
def test_malformed_shard_is_a_scene_error(shard):
    scene = simulo.Scene(num_envs=1)
    with pytest.raises(SceneError, match="shard must be"):
        simulo.Simulation(scene, shard=shard)
    assert scene.runtime_simulation is None
