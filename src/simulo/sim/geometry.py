"""What the engine builds from a primitive shape: its geometry and its surface.

A ``Cone`` is built as a convex 32-sided pyramid on PyBullet (which has no cone primitive). Friction comes
from ``physics.friction`` (a simulo-local extension) or, failing that, a ``friction``/``static_friction`` field
of the shape's ``material``; restitution from ``physics.restitution`` or ``material.restitution`` (the SDK's
``Material`` is visual and has neither, so the engine defaults apply).
"""

from __future__ import annotations

from typing import Any

from simulo.authoring import shapes

#: The primitive shape classes a prop or fixture is built from (``Cone`` once the authoring layer has it).
PRIMITIVES: tuple[type[Any], ...] = tuple(getattr(shapes, name) for name in ("Cuboid", "Sphere", "Cylinder", "Cone")
                                     if hasattr(shapes, name))

#: A primitive shape value.
Primitive = shapes.Cuboid | shapes.Sphere | shapes.Cylinder


def engine_geometry(shape: Any) -> tuple[str, tuple[float, ...]]:
    """``(kind, dims)`` for :meth:`simulo.engine.base.Engine.add_rigid`: a cone is ``("cone", (radius, height))``."""
    if type(shape).__name__ == "Cone":
        return "cone", (float(shape.radius), float(shape.height))
    kind, dims = shape.engine_geometry()
    return str(kind), tuple(dims)


def _first(*values: Any) -> float | None:
    for value in values:
        if value is not None:
            return float(value)
    return None


def surface_of(shape: Any) -> tuple[float | None, float | None]:
    """``(friction, restitution)`` of a shape (``None``: the engine default)."""
    physics, material = getattr(shape, "physics", None), getattr(shape, "material", None)
    friction = _first(getattr(physics, "friction", None), getattr(material, "friction", None),
                      getattr(material, "static_friction", None))
    restitution = _first(getattr(physics, "restitution", None), getattr(material, "restitution", None))
    return friction, restitution


def half_extent(shape: Any) -> float:
    """Radius of a sphere around the shape's centre that holds the whole shape, m."""
    kind, dims = engine_geometry(shape)
    if kind == "box":
        return float(sum(d * d for d in dims) ** 0.5)
    if kind == "sphere":
        return dims[0]
    return float((dims[0] ** 2 + (dims[1] / 2) ** 2) ** 0.5)
