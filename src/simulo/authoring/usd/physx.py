"""PhysX-only schemas (Isaac Sim's ``physx*`` attributes): what has a meaning on these engines, and notes for the rest.

Honoured:

* ``physxArticulation:solverPositionIterationCount`` on the articulation root: the scene's constraint solver runs
  at least that many iterations (:attr:`~simulo.authoring.model_physics.ModelPhysics.solver_iterations`);
* ``physxArticulation:enabledSelfCollisions``: whether the robot's links collide with each other (the robot's
  default; its ``ArticulationConfig(enable_self_collision=...)`` overrides it);
* ``physxJoint:maxJointVelocity`` (:mod:`simulo.authoring.usd.physics`) and ``physxMaterial:frictionCombineMode``
  (:mod:`simulo.authoring.usd.materials`).

Every other authored ``physx*`` attribute of the robot's prims (contact offsets, sleep thresholds, velocity
iterations, cooking data, ...) has no counterpart in PyBullet or MuJoCo and is ignored with one note listing them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from simulo.authoring.usd.findings import Findings

HONOURED = ("physxArticulation:solverPositionIterationCount", "physxArticulation:enabledSelfCollisions",
            "physxJoint:maxJointVelocity", "physxMaterial:frictionCombineMode")
"""The PhysX attributes the importer applies."""

_ITERATIONS = "physxArticulation:solverPositionIterationCount"
_SELF_COLLISIONS = "physxArticulation:enabledSelfCollisions"


def _authored(prim: Any, name: str) -> Any:
    attr = prim.GetAttribute(name) if prim.HasAttribute(name) else None
    return attr.Get() if attr is not None and attr.HasAuthoredValue() else None


def solver_iterations(root: Any, findings: Findings) -> int | None:
    """The solver position iterations the articulation root asks for, or None (a bad count is a problem)."""
    value = _authored(root, _ITERATIONS)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 1:
        findings.problem(f"articulation root {str(root.GetPath())!r}: {_ITERATIONS} is {value!r}; expected an "
                         "integer >= 1")
        return None
    return int(value)


def self_collisions(root: Any) -> bool | None:
    """Whether the articulation root collides its links with each other, or None when it does not say."""
    value = _authored(root, _SELF_COLLISIONS)
    return None if value is None else bool(value)


def note_ignored(prims: Iterable[Any], findings: Findings) -> None:
    """Note every authored ``physx*`` attribute of ``prims`` the importer does not apply (one note)."""
    ignored = sorted({attr.GetName() for prim in prims for attr in prim.GetAuthoredAttributes()
                      if attr.GetName().startswith("physx") and attr.GetName() not in HONOURED})
    if ignored:
        findings.note(f"PhysX-only settings ignored (no counterpart in PyBullet or MuJoCo): {', '.join(ignored)}")
