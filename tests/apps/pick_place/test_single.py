"""The single run: a move the collision check refuses is named in the error."""

from __future__ import annotations

import pytest

from simulo.apps.pick_place.config import AppOptions
from simulo.apps.pick_place.experiments.single import run_pick_place
from simulo.apps.pick_place.safety import BoxFixture
from simulo.errors import CollisionError


def test_collision_check_refuses_the_named_move() -> None:
    wall = BoxFixture("wall", (0.335, 0.115, 0.1), (0.02, 0.02, 0.1))
    with pytest.raises(CollisionError, match=r"move 'transfer' from \(0\.4200, -0\.1200, 0\.1500\) .* 'wall'"):
        run_pick_place(AppOptions(fixtures=(wall,)))
