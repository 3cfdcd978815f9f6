"""Colliders (``UsdPhysics.CollisionAPI``) and visuals of a rigid body, as URDF shapes in the body's link frame.

Cube, Sphere, Cylinder and Capsule prims become ``<box>``, ``<sphere>``, ``<cylinder>`` and ``<capsule>``, with
the prim's scale folded into their sizes and a Cylinder's or Capsule's ``axis`` (X, Y or Z) turned onto URDF's Z.
A scale that the primitive cannot represent (a sphere scaled unevenly, a cylinder whose two radial scales
differ, any shear or mirror) is refused, naming the prim. A Mesh prim's points, with every transform and scale
applied, are written as OBJ triangles (its polygons fanned); the engines collide with their convex hull, as
PhysX's default ``convexHull`` approximation does. Other prim types with the API are refused. A visual's
mesh is drawn as its triangles.
"""

from __future__ import annotations

import math
from typing import Any

from simulo.authoring.usd.stage import Pxr, xyz_rpy
from simulo.errors import AssetError
from simulo.frozen import frozen_dataclass

_RELATIVE = 1e-6
"""How far apart two scales may be and still count as equal (relative)."""


@frozen_dataclass
class Shape:
    """One collision shape in its link's frame.

    Attributes:
        path: The collider prim's path.
        kind: ``"box"``, ``"sphere"``, ``"cylinder"``, ``"capsule"`` or ``"mesh"``.
        size: Box edge lengths; sphere radius; cylinder and capsule radius and length (m); empty for a mesh.
        xyz: Shape origin in the link frame (m).
        rpy: Shape orientation in the link frame (rad).
        obj: A mesh's OBJ text (vertices already in the link frame), or None.
        rgba: A visual's colour (red, green, blue, opacity in 0..1), or None (a collider, or no colour given).
    """

    path: str
    kind: str
    size: tuple[float, ...]
    xyz: tuple[float, float, float]
    rpy: tuple[float, float, float]
    obj: str | None = None
    rgba: tuple[float, float, float, float] | None = None


def _axes_and_scales(px: Pxr, relative: Any, path: str, role: str) -> tuple[Any, tuple[float, float, float]]:
    """Split the 3×3 part of ``relative`` (row convention: row i = scale i × local axis i) into a rotation and the
    three scales; refuse shear and mirroring."""
    rows = [px.Gf.Vec3d(*(float(relative[i][j]) for j in range(3))) for i in range(3)]
    scales = tuple(float(row.GetLength()) for row in rows)
    if min(scales) <= 0:
        raise AssetError(f"{role} {path!r} has a zero scale; expected a scale > 0 on every axis")
    axes = [row / s for row, s in zip(rows, scales)]
    for i, j in ((0, 1), (0, 2), (1, 2)):
        if abs(px.Gf.Dot(axes[i], axes[j])) > 1e-6:
            raise AssetError(f"{role} {path!r} is sheared (its scale is applied in a rotated frame); expected a "
                             "transform of rotation, translation and per-axis scale")
    if px.Gf.Dot(px.Gf.Cross(axes[0], axes[1]), axes[2]) < 0:
        raise AssetError(f"{role} {path!r} is mirrored (a negative scale); expected positive scales")
    rotation = px.Gf.Matrix4d(1.0)
    rotation.SetRow3(0, axes[0])
    rotation.SetRow3(1, axes[1])
    rotation.SetRow3(2, axes[2])
    rotation.SetTranslateOnly(relative.ExtractTranslation())
    return rotation, (scales[0], scales[1], scales[2])


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= _RELATIVE * max(abs(a), abs(b))


def _turn_z_onto(px: Pxr, axis: str) -> Any:
    """The rotation (row convention) that carries URDF's cylinder axis, Z, onto the prim's ``axis``."""
    gf = px.Gf
    if axis == "X":
        return gf.Matrix4d(1.0).SetRotate(gf.Rotation(gf.Vec3d(0.0, 1.0, 0.0), 90.0))
    if axis == "Y":
        return gf.Matrix4d(1.0).SetRotate(gf.Rotation(gf.Vec3d(1.0, 0.0, 0.0), -90.0))
    return gf.Matrix4d(1.0)


def collider_shape(px: Pxr, prim: Any, relative: Any, role: str = "collider") -> Shape:
    """The shape of a collider (or, with ``role`` ``"visual"``, a visual) prim; ``relative`` is its transform
    (scale included) in the link frame.

    Raises:
        AssetError: The prim type is not a supported shape, or its scale cannot be represented.
    """
    path = str(prim.GetPath())
    geom = px.UsdGeom
    if prim.IsA(geom.Mesh):
        return Shape(path, "mesh", (), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), _mesh_obj(px, prim, relative, path, role))
    kinds = ((geom.Cube, "Cube"), (geom.Sphere, "Sphere"), (geom.Cylinder, "Cylinder"), (geom.Capsule, "Capsule"))
    kind = next((name for schema, name in kinds if prim.IsA(schema)), None)
    if kind is None:
        raise AssetError(f"{role} {path!r} is a {prim.GetTypeName() or 'typeless prim'}; the USD importer reads "
                         f"Cube, Sphere, Cylinder, Capsule and Mesh {role}s")
    rotation, scales = _axes_and_scales(px, relative, path, role)
    if kind == "Cube":
        edge = float(geom.Cube(prim).GetSizeAttr().Get())
        xyz, rpy = xyz_rpy(px, rotation)
        return Shape(path, "box", tuple(edge * s for s in scales), xyz, rpy)
    if kind == "Sphere":
        if not (_same(scales[0], scales[1]) and _same(scales[0], scales[2])):
            raise AssetError(f"Sphere {role} {path!r} has the non-uniform scale {_listed(scales)}; a sphere can "
                             f"only be scaled evenly (use a Mesh {role} for an ellipsoid)")
        xyz, rpy = xyz_rpy(px, rotation)
        return Shape(path, "sphere", (float(geom.Sphere(prim).GetRadiusAttr().Get()) * scales[0],), xyz, rpy)
    schema = geom.Cylinder(prim) if kind == "Cylinder" else geom.Capsule(prim)
    axis = str(schema.GetAxisAttr().Get())
    along = "XYZ".index(axis)
    radial = [scales[i] for i in range(3) if i != along]
    if not _same(radial[0], radial[1]):
        raise AssetError(f"{kind} {role} {path!r} (axis {axis}) has the scale {_listed(scales)}, whose two radial "
                         f"components differ; a {kind.lower()} can only be scaled evenly across its axis (use a "
                         f"Mesh {role} for an elliptic one)")
    radius = float(schema.GetRadiusAttr().Get()) * radial[0]
    length = float(schema.GetHeightAttr().Get()) * scales[along]
    xyz, rpy = xyz_rpy(px, _turn_z_onto(px, axis) * rotation)
    return Shape(path, kind.lower(), (radius, length), xyz, rpy)


def _listed(values: tuple[float, ...]) -> str:
    return "(" + ", ".join(f"{v:g}" for v in values) + ")"


def _mesh_obj(px: Pxr, prim: Any, relative: Any, path: str, role: str) -> str:
    mesh = px.UsdGeom.Mesh(prim)
    points = mesh.GetPointsAttr().Get() or []
    counts = mesh.GetFaceVertexCountsAttr().Get() or []
    indices = mesh.GetFaceVertexIndicesAttr().Get() or []
    if sum(int(c) for c in counts) != len(indices):
        raise AssetError(f"Mesh {role} {path!r}: faceVertexCounts add up to {sum(int(c) for c in counts)} but "
                         f"faceVertexIndices has {len(indices)} entries; expected them to match")
    lines = ["# mesh converted from USD by simulo"]
    for point in points:
        p = relative.Transform(px.Gf.Vec3d(*(float(c) for c in point)))
        if not all(math.isfinite(c) for c in p):
            raise AssetError(f"Mesh {role} {path!r} has a point that is not finite; expected finite points")
        lines.append(f"v {p[0]!r} {p[1]!r} {p[2]!r}")
    start = 0
    faces = 0
    for count in (int(c) for c in counts):
        face = [int(i) for i in indices[start:start + count]]
        start += count
        if any(not 0 <= i < len(points) for i in face):
            raise AssetError(f"Mesh {role} {path!r} has a face index out of range; it has {len(points)} points")
        for k in range(1, count - 1):  # a fan: polygons are convex in a collision mesh
            lines.append(f"f {face[0] + 1} {face[k] + 1} {face[k + 1] + 1}")
            faces += 1
    if faces == 0:
        raise AssetError(f"Mesh {role} {path!r} has no face of 3 or more points; a mesh needs triangles")
    return "\n".join(lines) + "\n"
