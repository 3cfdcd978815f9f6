"""Poses and transforms: plain values, no numpy.

Quaternions are w-first ``(qw, qx, qy, qz)`` everywhere in simulo; a pose as a row is
``[x, y, z, qw, qx, qy, qz]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from simulo.errors import SimuloValueError
from simulo.frozen import frozen_dataclass
from simulo.math.scalar import quat_from_rpy


def _floats(values: Iterable[Any], n: int, what: str) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError) as exc:
        raise SimuloValueError(f"{what} must be {n} numbers, got {values!r}") from exc
    if len(out) != n:
        raise SimuloValueError(f"{what} must have {n} numbers, got {len(out)}: {values!r}")
    if not all(math.isfinite(v) for v in out):
        raise SimuloValueError(f"{what} must be finite, got {values!r}")
    return out


@frozen_dataclass  # with its own __init__
class Pose:
    """A rigid pose: position in metres and a unit quaternion, w first.

    Args:
        xyz: Position ``(x, y, z)``.
        quat_wxyz: Orientation ``(qw, qx, qy, qz)``; normalised on construction.
        position: Keyword alias of ``xyz``.
        orientation: Keyword alias of ``quat_wxyz``.

    Raises:
        SimuloValueError: A component is not a finite number, or the quaternion has zero norm.
    """

    xyz: tuple[float, float, float]
    quat_wxyz: tuple[float, float, float, float]

    def __init__(
        self,
        xyz: Iterable[float] = (0.0, 0.0, 0.0),
        quat_wxyz: Iterable[float] = (1.0, 0.0, 0.0, 0.0),
        *,
        position: Iterable[float] | None = None,
        orientation: Iterable[float] | None = None,
    ) -> None:
        pos = _floats(position if position is not None else xyz, 3, "Pose position")
        quat = _floats(orientation if orientation is not None else quat_wxyz, 4, "Pose quaternion (w, x, y, z)")
        norm = math.sqrt(sum(q * q for q in quat))
        if norm < 1e-9:
            raise SimuloValueError(f"Pose quaternion must be non-zero, got {quat!r}")
        object.__setattr__(self, "xyz", pos)
        object.__setattr__(self, "quat_wxyz", tuple(q / norm for q in quat))

    @classmethod
    def identity(cls) -> Pose:
        """The pose at the origin with no rotation."""
        return cls()

    @classmethod
    def from_xyz(cls, x: float, y: float, z: float) -> Pose:
        """A pose at ``(x, y, z)`` with no rotation."""
        return cls((x, y, z))

    @classmethod
    def from_xyz_rpy(cls, xyz: Iterable[float], rpy: Iterable[float]) -> Pose:
        """A pose from a position and roll, pitch, yaw in radians (extrinsic x, y, z)."""
        quat = quat_from_rpy(*_floats(rpy, 3, "roll, pitch, yaw"))
        return cls(xyz, quat)

    def to_translation(self) -> tuple[float, float, float]:
        """The position ``(x, y, z)``."""
        return self.xyz

    def to_orientation(self) -> tuple[float, float, float, float]:
        """The orientation quaternion ``(qw, qx, qy, qz)``."""
        return self.quat_wxyz

    def to_list(self) -> list[float]:
        """The pose as a row ``[x, y, z, qw, qx, qy, qz]``."""
        return [*self.xyz, *self.quat_wxyz]

    @property
    def is_identity(self) -> bool:
        """True for the origin pose with no rotation."""
        return self.xyz == (0.0, 0.0, 0.0) and self.quat_wxyz == (1.0, 0.0, 0.0, 0.0)


class Transform:
    """A scene node that places its children at an offset (the SDK's ``Transform``).

    Items added to the scene under a Transform's path, or to the Transform itself with
    :meth:`add`, spawn at the Transform's pose (composed with their own).

    Args:
        translation: Offset ``(x, y, z)`` in metres.
        rotation: Orientation ``(qw, qx, qy, qz)``; ``None`` is no rotation.
        name: Node name (simulo-local extension, keyword-only).
        pose: The offset as a :class:`Pose` instead of ``translation``/``rotation`` (simulo-local extension,
            keyword-only).

    Raises:
        SimuloValueError: Both ``pose`` and ``translation``/``rotation`` are given, or a value is malformed.
    """

    def __init__(
        self,
        translation: Iterable[float] = (0.0, 0.0, 0.0),
        rotation: Iterable[float] | None = None,
        *,
        name: str = "transform",
        pose: Pose | None = None,
    ) -> None:
        offset = tuple(translation)
        if pose is not None and (rotation is not None or offset != (0.0, 0.0, 0.0)):
            raise SimuloValueError(f"Transform({name!r}) takes either pose= or translation/rotation, not both")
        identity = (1.0, 0.0, 0.0, 0.0)
        self._pose = pose if pose is not None else Pose(offset, identity if rotation is None else rotation)
        self._rotation_given = pose is not None or rotation is not None
        self.name = name
        self._children: list[tuple[Any, str]] = []

    @property
    def translation(self) -> tuple[float, float, float]:
        """The offset ``(x, y, z)`` in metres."""
        return self._pose.xyz

    @property
    def rotation(self) -> tuple[float, float, float, float] | None:
        """The orientation ``(qw, qx, qy, qz)`` (normalised), or ``None`` when none was given."""
        return self._pose.quat_wxyz if self._rotation_given else None

    @property
    def pose(self) -> Pose:
        """The offset as a :class:`Pose`."""
        return self._pose

    def add(self, entity: Any, at: str = "") -> Transform:
        """Attach a child item under the relative path ``at``; returns the transform for chaining."""
        self._children.append((entity, at))
        return self

    @property
    def children(self) -> list[tuple[Any, str]]:
        """A copy of the attached children as ``(item, relative_path)`` pairs."""
        return list(self._children)

    def __repr__(self) -> str:
        return f"Transform(name={self.name!r}, translation={self.translation}, rotation={self.rotation})"
