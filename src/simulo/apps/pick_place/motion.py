"""Straight-line Cartesian moves of the tcp with a smooth start and stop.

The interpolation is written operation for operation as in the seed program, so the points (and the joint
targets solved from them) repeat its numbers bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from simulo.checks import check_real
from simulo.errors import NonFiniteError, ShapeError, SimuloValueError


def smoothstep(s: float) -> float:
    """The cubic ease ``3 s^2 - 2 s^3``: 0 at s=0, 1 at s=1, zero slope at both ends.

    Args:
        s: Path fraction in [0, 1].

    Returns:
        The eased fraction.
    """
    return 3 * s * s - 2 * s**3


def _point(name: str, value: Sequence[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise ShapeError(f"{name} must be a non-empty 1-D point, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise NonFiniteError(f"{name} must be finite, got {array.tolist()}")
    return array


def step_count(seconds: float, dt: float) -> int:
    """Number of control steps of a move: ``int(seconds / dt)``, as the seed counts them.

    Args:
        seconds: Duration of the move, > 0.
        dt: Control period, > 0.

    Returns:
        The number of steps, at least 1.

    Raises:
        SimuloValueError: ``seconds`` or ``dt`` is not a finite positive number, or the move is shorter than
            one step.
    """
    for name, value in (("seconds", seconds), ("dt", dt)):
        check_real(value, name, 0, low_open=True)
    n = int(seconds / dt)
    if n < 1:
        raise SimuloValueError(f"a move of {seconds!r} s is shorter than one control step of {dt!r} s")
    return n


def linear_path(
    start: Sequence[float] | np.ndarray, goal: Sequence[float] | np.ndarray, seconds: float, dt: float
) -> Iterator[np.ndarray]:
    """Points of a straight-line move from ``start`` to ``goal``, one per control step.

    With ``n = int(seconds / dt)``, step ``i`` in 1..n yields ``(1 - s) * start + s * goal`` for
    ``s = smoothstep(i / n)``. The start point itself is not yielded; the last point is exactly ``goal``.

    Args:
        start: Start point (the tcp where the move begins), shape (k,).
        goal: Goal point, same shape as ``start``.
        seconds: Duration of the move, > 0.
        dt: Control period, > 0.

    Yields:
        A new float64 array of shape (k,) per step.

    Raises:
        ShapeError: ``start`` and ``goal`` are not 1-D points of the same shape.
        NonFiniteError: A coordinate is NaN or infinite.
        SimuloValueError: ``seconds`` or ``dt`` is invalid (see :func:`step_count`).
    """
    start_arr = _point("start", start)
    goal_arr = _point("goal", goal)
    if start_arr.shape != goal_arr.shape:
        raise ShapeError(f"start and goal must have the same shape, got {start_arr.shape} and {goal_arr.shape}")
    n = step_count(seconds, dt)
    return _points(start_arr, goal_arr, n)


def _points(start: np.ndarray, goal: np.ndarray, n: int) -> Iterator[np.ndarray]:
    for i in range(1, n + 1):
        s = smoothstep(i / n)
        yield (1 - s) * start + s * goal
