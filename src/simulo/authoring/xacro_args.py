"""Unexpanded xacro substitutions left in a URDF's attribute values.

Some URDFs ship with ``$(optenv NAME DEFAULT...)`` still in them (pybullet_data's husky does, on its IMU
joint). xacro would have replaced it with the environment variable ``NAME`` or, when unset, with ``DEFAULT``;
:func:`expand` does the same, so that the checker and the engine read the same numbers. ``$(env NAME)``
needs ``NAME`` set. Any other ``$(...)`` or ``${...}`` is refused: run xacro on the file first.
"""

from __future__ import annotations

import os
import re

_OPTENV = re.compile(r"\$\(\s*(optenv|env)\s+([A-Za-z_][A-Za-z0-9_]*)\s*([^)]*)\)")
_ANY = re.compile(r"\$\(|\$\{")


def expand(value: str) -> tuple[str, str | None]:
    """Expand the ``$(optenv ...)`` and ``$(env ...)`` substitutions in one attribute value.

    Returns:
        The expanded value (the value itself when it holds no substitution) and None, or the value and a
        problem saying which substitution cannot be expanded.
    """
    if not _ANY.search(value):
        return value, None
    problem: str | None = None

    def substitute(match: re.Match[str]) -> str:
        nonlocal problem
        kind, name, default = match.group(1), match.group(2), match.group(3).strip()
        if name in os.environ:
            return os.environ[name]
        if kind == "env":
            problem = (f"unexpanded xacro substitution {match.group(0)!r}: environment variable {name} is not set; "
                       "set it, or run xacro on the file first")
        return default

    expanded = _OPTENV.sub(substitute, value)
    if problem is None and _ANY.search(expanded):
        problem = (f"unexpanded xacro expression in {value!r}; only $(optenv NAME DEFAULT) and $(env NAME) are "
                   "expanded here: run xacro on the file first")
    return expanded, problem
