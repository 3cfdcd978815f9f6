"""Fixtures of the controller tests (helpers live in ``arm.py``)."""

from __future__ import annotations

from typing import Any

import pytest

import simulo

from .arm import home


@pytest.fixture
def arm4(make: Any, arm: simulo.Asset) -> tuple[simulo.Robot, simulo.Simulation]:
    """Four pick arms at home, each holding home with position targets."""
    robot, sim = make(arm, num_envs=4)
    robot.set_joint_state(home(4))
    robot.set_joint_position_target(home(4))
    return robot, sim
