"""Argument checks shared by the whole package: one definition of "an integer" and "a real number".

Python's ``bool`` is a subclass of ``int``, so ``isinstance(True, int)`` holds; a flag passed where a count
or a length belongs is almost always a mistake. These helpers refuse ``bool`` everywhere.

* :func:`is_int` and :func:`is_real` answer a question; use them where the caller words its own message.
* :func:`check_int` and :func:`check_real` raise :class:`~simulo.errors.SimuloValueError` (or the error class
  passed in) with a message in the one house style, ``"<what> must be <expected>, got <value!r>"``, and
  return the value (a ``float`` for :func:`check_real`).

:func:`check_num_envs` bounds an environment count by the memory this machine has (see ``docs/limits.md``).

This module imports nothing but :mod:`simulo.errors` (and the standard library), so ``import simulo`` stays
lean.

It is public: an app validates its own settings with the same words (the pick-and-place app does).
"""

from __future__ import annotations

import math
import os
from typing import Any, TypeGuard

from simulo.errors import SimuloError, SimuloValueError

__all__ = ["BYTES_PER_ENV", "MAX_NUM_ENVS", "available_memory", "check_int", "check_num_envs", "check_real",
           "describe_int", "describe_real", "is_int", "is_real", "max_num_envs"]

#: Resident memory one environment needs, bytes: measured on PyBullet as 1.83 MiB (cartpole) and 1.92 MiB
#: (pick arm) per environment at N = 256 and 1024, 16 environments per engine world (about 29 MiB per world
#: of 16). Rounded up to 2 MiB, so the bound holds for the catalog robots with a little to spare.
BYTES_PER_ENV = 2 * 2**20

#: Largest environment count on any machine (2**20): beyond it index arrays and per-environment Python
#: objects alone take seconds to build, whatever the memory.
MAX_NUM_ENVS = 2**20


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


def available_memory() -> int | None:
    """Bytes of memory this process may still take: Linux's ``MemAvailable``, lowered by a cgroup limit.

    Returns:
        The byte count, or ``None`` where the platform does not say.
    """
    found: list[int] = []
    try:
        for line in _read("/proc/meminfo").splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
                break
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = _read("/sys/fs/cgroup/memory.max").strip()
        usage = _read("/sys/fs/cgroup/memory.current").strip()
        if limit != "max":
            found.append(max(0, int(limit) - int(usage)))
    except (OSError, ValueError):
        pass
    if not found and hasattr(os, "sysconf"):
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError):
            pass
    return min(found) if found else None


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()


def max_num_envs() -> int:
    """The most environments this machine can hold now: free memory / :data:`BYTES_PER_ENV`, at most
    :data:`MAX_NUM_ENVS` (and at least 1)."""
    memory = available_memory()
    if memory is None:
        return MAX_NUM_ENVS
    return max(1, min(MAX_NUM_ENVS, memory // BYTES_PER_ENV))


def check_num_envs(value: Any, what: str = "num_envs", *, error: type[SimuloError] = SimuloValueError) -> int:
    """Return ``value`` if it is an environment count this machine can hold; raise before anything is built.

    Args:
        value: The count.
        what: Its name in the message.
        error: The error class to raise.

    Returns:
        ``value``, unchanged.

    Raises:
        SimuloValueError: (or ``error``) Not an integer >= 1, or more environments than the memory holds
            (:func:`max_num_envs`, about 2 MiB each).
    """
    check_int(value, what, 1, error=error)
    if value > MAX_NUM_ENVS:
        raise error(f"{what}={value} is more than the {MAX_NUM_ENVS} environments simulo-local supports")
    limit = max_num_envs()
    if value > limit:
        memory = available_memory() or 0
        raise error(f"{what}={value} needs about {value * BYTES_PER_ENV / 2**30:.1f} GiB "
                    f"({BYTES_PER_ENV // 2**20} MiB per environment) but {memory / 2**30:.1f} GiB of memory is "
                    f"free: this machine holds at most {limit} environments now")
    return value
