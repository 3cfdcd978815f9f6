"""Visual geometry of a rigid body: the prims a renderer draws, with their colours.

A visual is a geometric prim (``UsdGeom.Gprim``: Cube, Sphere, Cylinder, Capsule or Mesh) below a rigid body that
is visible (its computed visibility is not ``invisible``) and whose computed purpose is ``default`` or
``render`` (``guide`` and ``proxy`` prims, such as Isaac Sim's collision meshes, are not drawn). A collider that
is also drawn is both. Its colour is the ``diffuseColor`` (and ``opacity``) of the ``UsdPreviewSurface`` of its
bound material, else its first ``displayColor``, else none (the engine's default), each channel clamped to 0..1
as a display shows it. A visual of another prim
type, or one whose shape cannot be represented, is skipped with a note: visuals never change the dynamics.
"""

from __future__ import annotations

import math
from typing import Any

from simulo.authoring.usd.stage import Pxr

DRAWN_PURPOSES = ("default", "render")
"""The computed purposes of the prims a renderer draws."""


def is_visual(px: Pxr, prim: Any) -> bool:
    """Whether ``prim`` is drawn (see the module docstring)."""
    if not prim.IsA(px.UsdGeom.Gprim):
        return False
    imageable = px.UsdGeom.Imageable(prim)
    return (str(imageable.ComputeVisibility()) != "invisible"
            and str(imageable.ComputePurpose()) in DRAWN_PURPOSES)


def colour(px: Pxr, prim: Any) -> tuple[float, float, float, float] | None:
    """The prim's colour as RGBA in 0..1 (see the module docstring), or None."""
    material, _ = px.UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial()
    if material:
        shader, _, _ = material.ComputeSurfaceSource()
        if shader and str(shader.GetIdAttr().Get()) == "UsdPreviewSurface":
            diffuse = _input(shader, "diffuseColor")
            if diffuse is not None and len(diffuse) == 3:
                opacity = _input(shader, "opacity")
                alpha = float(opacity) if isinstance(opacity, (int, float)) else 1.0
                return _rgba((*(float(c) for c in diffuse), alpha))
    display = px.UsdGeom.Gprim(prim).GetDisplayColorAttr().Get()
    if display is not None and len(display) > 0:
        return _rgba((*(float(c) for c in display[0]), 1.0))
    return None


def _input(shader: Any, name: str) -> Any:
    """A shader input's own value (None when it is unset or connected to a texture)."""
    found = shader.GetInput(name)
    return found.Get() if found and not found.HasConnectedSource() else None


def _rgba(values: tuple[float, ...]) -> tuple[float, float, float, float] | None:
    if len(values) != 4 or not all(math.isfinite(v) for v in values):
        return None
    r, g, b, a = (min(max(v, 0.0), 1.0) for v in values)
    return r, g, b, a
