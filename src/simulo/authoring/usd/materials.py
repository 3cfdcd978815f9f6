"""Physics materials (``UsdPhysics.MaterialAPI``) of a body's colliders, as one contact surface per body.

A collider's material is the one bound to it for the ``physics`` purpose (``material:binding:physics``), else the
all-purpose binding, each found on the collider or inherited from an ancestor (the rigid body), as UsdShade
resolves bindings. A bound material without ``PhysicsMaterialAPI`` is a look, not a physics material. What is read:

* ``physics:dynamicFriction`` as the Coulomb coefficient (both engines have one coefficient; the schema's
  fallback, 0, applies when it is not authored, as PhysX reads it);
* ``physics:restitution`` (0..1);
* ``physxMaterial:frictionCombineMode`` (``average``, PhysX's default, ``min``, ``multiply`` or ``max``).

Both engines give a body one contact material, so a body whose colliders are bound to different physics
materials takes its first collider's, with a note. ``staticFriction`` and ``density`` are ignored with a note when
authored, and the other ``physxMaterial`` settings as :mod:`simulo.authoring.usd.physx` says.
"""

from __future__ import annotations

import math
from typing import Any

from simulo.authoring.model_physics import FRICTION_COMBINE_MODES, BodySurface, engine_friction
from simulo.authoring.usd.findings import Findings
from simulo.authoring.usd.stage import Pxr

_COMBINE_ATTRIBUTE = "physxMaterial:frictionCombineMode"
_IGNORED = ("physics:staticFriction", "physics:density")


def bound_material(px: Pxr, collider: Any) -> Any | None:
    """The physics material prim bound to ``collider`` (see the module docstring), or None."""
    binding = px.UsdShade.MaterialBindingAPI(collider)
    material, _ = binding.ComputeBoundMaterial("physics")
    if not material:
        return None
    prim = material.GetPrim()
    return prim if prim.HasAPI(px.UsdPhysics.MaterialAPI) else None


def body_surface(px: Pxr, body: str, colliders: list[Any], findings: Findings) -> BodySurface | None:
    """The contact surface of link ``body`` from its colliders' materials, or None when none has one.

    Problems (a friction or restitution out of range, an unknown combine mode) are recorded in ``findings``.
    """
    materials: dict[str, Any] = {}
    for collider in colliders:
        material = bound_material(px, collider)
        if material is not None:
            materials.setdefault(str(material.GetPath()), material)
    if not materials:
        return None
    path, material = next(iter(materials.items()))
    if len(materials) > 1:
        others = ", ".join(repr(p) for p in list(materials)[1:])
        findings.note(f"body {body!r}: its colliders are bound to {len(materials)} physics materials; both engines "
                      f"give a body one contact material, so it takes {path!r} (not {others})")
    api = px.UsdPhysics.MaterialAPI(material)
    friction = float(api.GetDynamicFrictionAttr().Get())
    restitution = float(api.GetRestitutionAttr().Get())
    combine_attr = material.GetAttribute(_COMBINE_ATTRIBUTE)
    combine = str(combine_attr.Get()) if combine_attr and combine_attr.HasAuthoredValue() else "average"
    ok = True
    if not math.isfinite(friction) or friction < 0:
        findings.problem(f"material {path!r}: physics:dynamicFriction is {friction!r}; expected a finite number >= 0")
        ok = False
    if not math.isfinite(restitution) or not 0.0 <= restitution <= 1.0:
        findings.problem(f"material {path!r}: physics:restitution is {restitution!r}; expected a number in 0..1")
        ok = False
    if combine not in FRICTION_COMBINE_MODES:
        findings.problem(f"material {path!r}: {_COMBINE_ATTRIBUTE} is {combine!r}; expected one of "
                         f"{', '.join(FRICTION_COMBINE_MODES)}")
        ok = False
    ignored = [name for name in _IGNORED if material.HasAttribute(name)
               and material.GetAttribute(name).HasAuthoredValue()]
    if ignored:
        findings.note(f"material {path!r}: {', '.join(ignored)} ignored (the engines use one friction coefficient, "
                      "physics:dynamicFriction, and masses come from MassAPI)")
    if not ok:
        return None
    surface = BodySurface(body, friction, restitution, combine)
    if combine != "average":
        findings.note(f"material {path!r} combines friction by {combine!r}: MuJoCo takes the larger of two "
                      f"surfaces' coefficients and PyBullet multiplies them, so {_combine_note(surface)}")
    return surface


def _combine_note(surface: BodySurface) -> str:
    if surface.friction_combine == "max":
        return (f"MuJoCo honours it; PyBullet gives the body friction {engine_friction(surface, 'multiply'):g}, so "
                "that a contact takes the other surface's coefficient (exact while that is the larger)")
    if surface.friction_combine == "multiply":
        return "PyBullet honours it; MuJoCo takes the larger coefficient"
    return "neither engine honours it exactly; both use the body's coefficient under their own rule"
