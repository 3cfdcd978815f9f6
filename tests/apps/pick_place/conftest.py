"""Shared fixtures of the pick-and-place tests: a cell built from cube starts."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from simulo.apps.pick_place.cell import PickPlaceCell, start_cell
from simulo.apps.pick_place.config import DEFAULT_OPTIONS, HOVER_Z, AppOptions, CubeStart


@pytest.fixture
def make_cell() -> Callable[..., PickPlaceCell]:
    """A factory of settled cells: cubes at ``xy`` with ``yaw``, the arm above ``home`` (default: the cubes)."""

    def make(xy: list[tuple[float, float]], yaw: list[float], home: list[tuple[float, float]] | None = None,
             options: AppOptions = DEFAULT_OPTIONS) -> PickPlaceCell:
        home_xy = np.array(home if home is not None else xy, dtype=float)
        start = np.column_stack([home_xy, np.full(len(home_xy), HOVER_Z)])
        return start_cell([CubeStart(np.array(xy, dtype=float), np.array(yaw, dtype=float))], start,
                          np.array(yaw, dtype=float), options)

    return make
