"""Fixtures of the controller tests (helpers live in ``arm.py``); every test runs on every engine.

The ``engine`` fixture comes from tests/sim/conftest.py; where an engine's outcome differs,
tests/engine_differences.py says so.
"""

from __future__ import annotations

from typing import Any

import pytest

import simulo

from .arm import home


@pytest.fixture(autouse=True)
def on_every_engine(engine: str) -> str:
    """Run the test once per engine, that engine being the default of the simulations it builds."""
    return engine


@pytest.fixture
def arm4(make: Any, arm: simulo.Asset) -> tuple[simulo.Robot, simulo.Simulation]:
    """Four pick arms at home, each holding home with position targets."""
    robot, sim = make(arm, num_envs=4)
    robot.set_joint_state(home(4))
    robot.set_joint_position_target(home(4))
    return robot, sim
