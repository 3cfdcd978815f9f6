"""Straight-line Cartesian moves with the smoothstep profile."""

from __future__ import annotations

import numpy as np
import pytest

from simulo.apps.pick_place.motion import linear_path, smoothstep, step_count
from simulo.errors import NonFiniteError, ShapeError, SimuloValueError

DT = 1.0 / 240.0


def test_smoothstep_values() -> None:
    assert smoothstep(0.0) == 0.0
    assert smoothstep(1.0) == 1.0
    assert smoothstep(0.5) == 0.5
    assert smoothstep(0.25) == pytest.approx(3 * 0.0625 - 2 * 0.015625)


def test_path_has_seed_step_count_and_ends_on_goal() -> None:
    start, goal = np.array([0.42, -0.12, 0.15]), np.array([0.42, -0.12, 0.03])
    points = list(linear_path(start, goal, 1.0, DT))
    assert len(points) == 240 == step_count(1.0, DT)
    assert len(list(linear_path(start, goal, 2.0, DT))) == 480
    assert np.array_equal(points[-1], goal)
    assert all(p.shape == (3,) and p.dtype == np.float64 for p in points)
    # straight line: x and y never change on a vertical move; z decreases monotonically
    assert all(abs(p[0] - 0.42) < 1e-15 and abs(p[1] + 0.12) < 1e-15 for p in points)
    z = np.array([p[2] for p in points])
    assert np.all(np.diff(z) < 0)


def test_points_are_bit_identical_to_the_seed_expression() -> None:
    start, goal = np.array([0.42, -0.12, 0.15]), np.array([0.25, 0.35, 0.15])
    n = int(2.0 / DT)
    expected = []
    for i in range(1, n + 1):
        s = i / n
        s = 3 * s * s - 2 * s**3
        expected.append((1 - s) * start + s * goal)
    got = list(linear_path(start, goal, 2.0, DT))
    assert len(got) == len(expected)
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))


def test_profile_starts_and_stops_slowly() -> None:
    points = np.array(list(linear_path([0.0], [1.0], 1.0, DT)))[:, 0]
    steps = np.diff(np.concatenate([[0.0], points]))
    assert steps[0] < steps[len(steps) // 2] / 50
    assert steps[-1] < steps[len(steps) // 2] / 50


def test_yielded_points_are_fresh_arrays() -> None:
    points = list(linear_path([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], 0.1, DT))
    points[0][0] = 99.0
    assert points[1][0] != 99.0


@pytest.mark.parametrize(
    ("start", "goal", "seconds", "dt", "error", "match"),
    [
        ([0, 0, 0], [1, 1], 1.0, DT, ShapeError, "same shape"),
        ([[0, 0, 0]], [[1, 1, 1]], 1.0, DT, ShapeError, "1-D"),
        ([0, np.nan, 0], [1, 1, 1], 1.0, DT, NonFiniteError, "start"),
        ([0, 0, 0], [1, 1, 1], 0.0, DT, SimuloValueError, "seconds"),
        ([0, 0, 0], [1, 1, 1], 1.0, -DT, SimuloValueError, "dt"),
        ([0, 0, 0], [1, 1, 1], 0.001, DT, SimuloValueError, "shorter than one control step"),
    ],
)
def test_bad_moves_are_rejected(start, goal, seconds, dt, error, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=match):
        linear_path(start, goal, seconds, dt)
