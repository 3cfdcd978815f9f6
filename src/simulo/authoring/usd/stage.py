"""The USD stage as a physics importer sees it: the file opened, its units and up axis, and prim frames in metres, Z up.

``pxr`` (usd-core) is imported here on first use through :func:`pxr`, never at ``import simulo``; a missing
usd-core raises :class:`~simulo.errors.MissingDependencyError` naming ``pip install 'simulo-local[usd]'``.

Frames are ``Gf.Matrix4d`` in USD's row-vector convention (a point ``p`` maps to ``p * M``). :class:`StageFrames`
turns every world transform into metres and Z up: the stage's ``metersPerUnit`` scales it and a Y-up stage is
turned +90° about X (its +Y becomes +Z), as physics importers read such a stage.
"""

from __future__ import annotations

import math
import os
from types import ModuleType
from typing import Any

from simulo._optional import require
from simulo.errors import AssetError
from simulo.frozen import frozen_dataclass

USD_SUFFIXES: tuple[str, ...] = (".usd", ".usda", ".usdc", ".usdz")
"""File extensions read as USD (case-insensitive)."""

INSTALL_HINT = "pip install 'simulo-local[usd]'"
"""The command that installs usd-core."""


@frozen_dataclass
class Pxr:
    """The ``pxr`` modules the importer uses (untyped: usd-core ships no type information mypy can rely on)."""

    Usd: Any
    UsdGeom: Any
    UsdPhysics: Any
    UsdShade: Any
    Gf: Any


def pxr() -> Pxr:
    """The ``pxr`` modules, imported now.

    Raises:
        MissingDependencyError: usd-core is not installed.
    """
    modules: list[ModuleType] = [require(f"pxr.{name}", "loading a USD asset", "usd-core", INSTALL_HINT)
                                 for name in ("Usd", "UsdGeom", "UsdPhysics", "UsdShade", "Gf")]
    return Pxr(*modules)


def open_stage(path: str, shown: str | None = None) -> tuple[Pxr, Any]:
    """The modules and the opened stage of a USD file (``shown``: the path as the caller wrote it, for messages).

    Raises:
        MissingDependencyError: usd-core is not installed.
        AssetError: The file does not exist, or USD cannot open it.
    """
    if not os.path.isfile(path):
        raise AssetError(f"USD file {shown or path!r} not found; expected a path to a {', '.join(USD_SUFFIXES)} file")
    px = pxr()
    try:
        stage = px.Usd.Stage.Open(path)
    except Exception as exc:
        raise AssetError(f"USD file {path!r} cannot be opened: {str(exc).strip()[:400]}") from exc
    if stage is None:
        raise AssetError(f"USD file {path!r} cannot be opened by USD")
    return px, stage


class StageFrames:
    """World transforms of a stage's prims in metres and Z up (see the module docstring)."""

    def __init__(self, px: Pxr, stage: Any) -> None:
        self.px = px
        self.meters_per_unit = float(px.UsdGeom.GetStageMetersPerUnit(stage))
        self.kilograms_per_unit = float(px.UsdPhysics.GetStageKilogramsPerUnit(stage))
        self.up_axis = str(px.UsdGeom.GetStageUpAxis(stage))
        for what, value in (("metersPerUnit", self.meters_per_unit), ("kilogramsPerUnit", self.kilograms_per_unit)):
            if not math.isfinite(value) or value <= 0:
                raise AssetError(f"the stage's {what} is {value!r}; expected a finite number > 0")
        scale = px.Gf.Matrix4d(1.0).SetScale(self.meters_per_unit)
        up = px.Gf.Matrix4d(1.0)
        if self.up_axis == "Y":  # +90° about X, exactly: +Y becomes +Z and +Z becomes -Y
            up = px.Gf.Matrix4d(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
        self.to_metres_z_up = scale * up
        self._cache = px.UsdGeom.XformCache()

    def world(self, prim: Any) -> Any:
        """The prim's local-to-world transform, scale included, in metres and Z up."""
        return self._cache.GetLocalToWorldTransform(prim) * self.to_metres_z_up

    def world_of(self, prim: Any | None) -> Any:
        """:meth:`world` of a prim, or of the world itself (the unit conversion) for None."""
        return self.to_metres_z_up if prim is None else self.world(prim)

    def rigid(self, matrix: Any) -> Any:
        """``matrix`` with its scale and shear removed (a rotation and a translation)."""
        out = self.px.Gf.Matrix4d(matrix)
        return out.RemoveScaleShear()

    def frame(self, quat: Any, position: Any) -> Any:
        """The rigid transform of a rotation quaternion (``Gf.Quatf``/``Quatd``) and a position."""
        gf = self.px.Gf
        q = gf.Quatd(float(quat.GetReal()), gf.Vec3d(*(float(c) for c in quat.GetImaginary())))
        if q.GetLength() < 1e-12:
            q = gf.Quatd(1.0)
        matrix = gf.Matrix4d(1.0)
        matrix.SetTransform(gf.Rotation(q.GetNormalized()), gf.Vec3d(*(float(c) for c in position)))
        return matrix


def xyz_rpy(px: Pxr, rigid: Any) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The URDF ``<origin xyz rpy>`` of a rigid ``Gf.Matrix4d`` (row-vector convention)."""
    t = rigid.ExtractTranslation()
    m = rigid.ExtractRotationMatrix()
    r = [[float(m[j][i]) for j in range(3)] for i in range(3)]  # column convention: r[i][j] = m[j][i]
    if abs(r[2][0]) < 1.0 - 1e-12:
        pitch = math.asin(max(-1.0, min(1.0, -r[2][0])))
        roll = math.atan2(r[2][1], r[2][2])
        yaw = math.atan2(r[1][0], r[0][0])
    else:  # gimbal lock: the yaw takes all of the rotation about Z
        pitch = math.copysign(math.pi / 2, -r[2][0])
        roll = 0.0
        yaw = math.atan2(-r[0][1], r[1][1])
    return (float(t[0]), float(t[1]), float(t[2])), (roll, pitch, yaw)


def quat_wxyz(rigid: Any) -> tuple[float, float, float, float]:
    """The rotation of a rigid ``Gf.Matrix4d`` as a unit quaternion ``(w, x, y, z)``."""
    q = rigid.ExtractRotationQuat().GetNormalized()
    x, y, z = (float(c) for c in q.GetImaginary())
    return float(q.GetReal()), x, y, z
