"""Options and the seed plan: validation, the speed-compensated gain, the seed's move durations."""

from __future__ import annotations

import math

import pytest

from simulo.apps.pick_place.config import HOVER_Z, MOVE_QUANTUM, AppOptions, seed_plan
from simulo.errors import SimuloValueError


def test_options_are_validated() -> None:
    with pytest.raises(SimuloValueError, match="friction must be a finite number >= 0, got -1"):
        AppOptions(friction=-1)
    with pytest.raises(SimuloValueError, match="ik must be 'closed-form' or 'numeric', got 'pybullet'"):
        AppOptions(ik="pybullet")  # type: ignore[arg-type]
    with pytest.raises(SimuloValueError, match="speed must be a number between 0.1 and 8"):
        AppOptions(speed=0)
    with pytest.raises(SimuloValueError, match="fixtures must be BoxFixture values"):
        AppOptions(fixtures=((0, 0, 0),))  # type: ignore[arg-type]
    assert AppOptions(speed=2).position_gain == pytest.approx(0.6)
    assert AppOptions(speed=5).position_gain == 1.0
    assert AppOptions(speed=2, compensate_gain=False).position_gain == 0.3
    assert AppOptions(speed=0.5).position_gain == 0.3


def test_seed_plan_gives_the_seed_durations() -> None:
    """distance / speed, rounded up to quarter seconds: the seed's 1, 1, 2, 1, 1 s (hover: already there)."""
    plan = seed_plan()
    assert plan.place_z == 0.03 + 0.005  # the seed's GRASP_Z + 0.005, same float
    assert plan.descend_speed <= plan.lift_speed < plan.travel_speed
    here, seconds = (0.42, -0.12, HOVER_Z), {}
    for step in plan.steps():
        if step.kind == "move":
            ratio = math.dist(here, step.target) / step.speed / MOVE_QUANTUM
            seconds[step.phase] = math.ceil(ratio - 1e-9) * MOVE_QUANTUM
            here = step.target
    assert seconds == {"hover": 0.0, "approach": 1.0, "lift": 1.0, "transfer": 2.0, "lower": 1.0, "retreat": 1.0}
