"""Closing a simulation that was replaced leaves the scene attached to its replacement."""

from __future__ import annotations

import pytest

import simulo
from simulo.errors import SceneError


def test_closing_an_old_simulation_again_keeps_the_new_one_attached(cartpole):
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Robot(asset=cartpole), at="/World/Robot")
    first = simulo.Simulation(scene)
    first.close()
    second = simulo.Simulation(scene)
    first.close()  # e.g. an explicit close followed by a context manager's exit
    assert scene.runtime_simulation is second and scene.env_origins is not None
    with pytest.raises(SceneError, match="already simulated"):
        scene.add(simulo.Robot(asset=cartpole), at="/World/Other")
    second.close()
