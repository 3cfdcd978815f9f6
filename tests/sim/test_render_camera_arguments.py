"""Simulation.render checks the camera's eye and target: three finite numbers each."""

from __future__ import annotations

import pytest

import simulo
from simulo.errors import SimuloValueError


@pytest.mark.parametrize("kwargs", [{"eye": (1.0, 2.0)}, {"eye": "abc"}, {"target": (0.0, float("nan"), 0.0)}])
def test_render_checks_eye_and_target(cartpole, kwargs):
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Robot(asset=cartpole), at="/World/Robot")
    sim = simulo.Simulation(scene)
    with sim:
        name = next(iter(kwargs))
        with pytest.raises(SimuloValueError, match=f"render {name} must be three finite numbers"):
            sim.render(width=8, height=8, **kwargs)
