"""Name lookup shared by robots, their data, sensors and actuators."""

from __future__ import annotations

import re

from simulo.errors import NameNotFoundError, SimuloValueError
from simulo.sim.tensors import plural


def match_names(pattern: str, names: list[str], what: str) -> list[int]:
    """Indices of ``names`` equal to ``pattern`` or fully matching it as a regex, in ``names`` order.

    Args:
        pattern: An exact name or a regular expression that must match a whole name.
        names: The names to search, in the robot's order.
        what: Singular noun for messages (``"joint"``, ``"body"``).

    Returns:
        The matching indices in ascending order.

    Raises:
        NameNotFoundError: Nothing matches (the message lists the available names).
        SimuloValueError: The pattern is not a string or not a valid regex.
    """
    if not isinstance(pattern, str):
        raise SimuloValueError(f"{what} name pattern must be a string, got {pattern!r}")
    if pattern in names:
        return [names.index(pattern)]
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise SimuloValueError(f"{what} name pattern {pattern!r} is not a valid regex: {exc}") from exc
    hits = [i for i, n in enumerate(names) if rx.fullmatch(n)]
    if not hits:
        raise NameNotFoundError(f"no {what} matches {pattern!r}; available {plural(what)}: {names}")
    return hits
