"""Name lookup shared by robots, their data, sensors and actuators."""

from __future__ import annotations

import re

from simulo.errors import NameNotFoundError, SimuloValueError
from simulo.sim.tensors import plural


def match_names(pattern: str, names: list[str], what: str, every_branch: bool = False) -> list[int]:
    """Indices of ``names`` equal to ``pattern`` or fully matching it as a regex, in ``names`` order.

    Args:
        pattern: An exact name or a regular expression that must match a whole name.
        names: The names to search, in the robot's order.
        what: Singular noun for messages (``"joint"``, ``"body"``).
        every_branch: Also require every top-level ``|`` alternative to match a name, so that a typo in one
            branch (``"shoulder|elbw"``) is an error rather than a column silently missing.

    Returns:
        The matching indices in ascending order.

    Raises:
        NameNotFoundError: Nothing matches, or (``every_branch``) an alternative matches nothing (the message
            names it and lists the available names).
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
    for branch in _branches(pattern) if every_branch else []:  # "a|typo": each alternative names something
        try:
            branch_rx = re.compile(branch)
        except re.error:
            continue
        if not any(branch_rx.fullmatch(n) for n in names):
            raise NameNotFoundError(f"{what} name pattern {pattern!r}: its alternative {branch!r} matches no "
                                    f"{what} (a typo?); available {plural(what)}: {names}")
    return hits


def _branches(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of a regex (none when it has a single one)."""
    parts, depth, start, i = [], 0, 0, 0
    in_class = False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":
                i += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*parts, pattern[start:]] if parts else []
