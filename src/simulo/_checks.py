"""Argument checks shared by the whole package: one definition of "an integer" and "a real number".

Python's ``bool`` is a subclass of ``int``, so ``isinstance(True, int)`` holds; a flag passed where a count
or a length belongs is almost always a mistake. These helpers refuse ``bool`` everywhere.

* :func:`is_int` and :func:`is_real` answer a question; use them where the caller words its own message.
* :func:`check_int` and :func:`check_real` raise :class:`~simulo.errors.SimuloValueError` (or the error class
  passed in) with a message in the one house style, ``"<what> must be <expected>, got <value!r>"``, and
  return the value (a ``float`` for :func:`check_real`).

This module imports nothing but :mod:`simulo.errors`, so ``import simulo`` stays lean.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from simulo.errors import SimuloError, SimuloValueError

__all__ = ["check_int", "check_real", "describe_int", "describe_real", "is_int", "is_real"]


def is_int(value: Any, low: int | None = None, high: int | None = None) -> TypeGuard[int]:
    """Whether ``value`` is a Python ``int`` (not a ``bool``) with ``low <= value <= high``.

    Args:
        value: Anything.
        low: Smallest allowed value; ``None`` for no lower bound.
        high: Largest allowed value; ``None`` for no upper bound.

    Returns:
        True if ``value`` is an integer inside the bounds.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def is_real(
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> TypeGuard[int | float]:
    """Whether ``value`` is a real number (an ``int`` or ``float``, not a ``bool``) inside the bounds.

    NaN is never accepted. ``numpy.float64`` is a ``float`` and is accepted; other numpy scalars are not.

    Args:
        value: Anything.
        low: Lower bound; ``None`` for none.
        high: Upper bound; ``None`` for none.
        low_open: If True the lower bound itself is excluded (``value > low``).
        high_open: If True the upper bound itself is excluded (``value < high``).
        finite: If True (the default) infinities are refused as well.

    Returns:
        True if ``value`` is such a number.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if math.isnan(value) or (finite and math.isinf(value)):
        return False
    if low is not None and (value <= low if low_open else value < low):
        return False
    return high is None or (value < high if high_open else value <= high)


def describe_int(low: int | None = None, high: int | None = None) -> str:
    """Say in words what :func:`is_int` accepts: ``"an integer >= 1"``, ``"an integer from 8 to 4096"``."""
    if low is not None and high is not None:
        return f"an integer from {low} to {high}"
    if low is not None:
        return f"an integer >= {low}"
    if high is not None:
        return f"an integer <= {high}"
    return "an integer"


def describe_real(
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> str:
    """Say in words what :func:`is_real` accepts: ``"a finite number > 0"``, ``"a number in (0, 120]"``."""
    if low is not None and high is not None:
        return f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    kind = "a finite number" if finite else "a number"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{kind} {'<' if high_open else '<='} {high:g}"
    return kind


def check_int(
    value: Any,
    what: str,
    low: int | None = None,
    high: int | None = None,
    *,
    error: type[SimuloError] = SimuloValueError,
) -> int:
    """Return ``value`` if it is an integer in ``[low, high]``; raise otherwise.

    Args:
        value: The value to check.
        what: What the value is, as the message names it (``"num_envs"``, ``"Scene.num_envs"``).
        low: Smallest allowed value; ``None`` for none.
        high: Largest allowed value; ``None`` for none.
        error: The error class to raise.

    Returns:
        ``value``, unchanged.

    Raises:
        SimuloValueError: (or ``error``) ``value`` is not such an integer; the message reads
            ``"num_envs must be an integer >= 1, got 0"``.
    """
    if not is_int(value, low, high):
        raise error(f"{what} must be {describe_int(low, high)}, got {value!r}")
    return value


def check_real(
    value: Any,
    what: str,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
    error: type[SimuloError] = SimuloValueError,
) -> float:
    """Return ``float(value)`` if it is a real number inside the bounds; raise otherwise.

    Args:
        value: The value to check.
        what: What the value is, as the message names it (``"RigidPhysics.friction"``).
        low: Lower bound; ``None`` for none.
        high: Upper bound; ``None`` for none.
        low_open: If True the lower bound itself is excluded (``value > low``).
        high_open: If True the upper bound itself is excluded (``value < high``).
        finite: If True (the default) infinities are refused as well; NaN is always refused.
        error: The error class to raise.

    Returns:
        ``value`` as a ``float``.

    Raises:
        SimuloValueError: (or ``error``) ``value`` is not such a number; the message reads
            ``"RigidPhysics.friction must be a finite number >= 0, got -1"``.
    """
    if not is_real(value, low, high, low_open=low_open, high_open=high_open, finite=finite):
        expected = describe_real(low, high, low_open=low_open, high_open=high_open, finite=finite)
        raise error(f"{what} must be {expected}, got {value!r}")
    return float(value)
