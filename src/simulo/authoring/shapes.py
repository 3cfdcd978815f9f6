"""Primitive shapes for props and fixtures (plain values)."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulo._checks import check_real
from simulo.authoring.pose import Pose
from simulo.errors import SimuloValueError


def _positive(owner: str, **values: float) -> None:
    for key, value in values.items():
        check_real(value, f"{owner}.{key}", low=0, low_open=True)


@dataclass(frozen=True)
class RigidPhysics:
    """Rigid-body properties of a shape.

    Attributes:
        mass: Mass in kg (> 0).
        friction: Lateral friction coefficient; ``None`` keeps the engine default (0.5 on PyBullet).
        kinematic: If True the body is fixed in place (a fixture); ``mass`` is then ignored.
    """

    mass: float = 1.0
    friction: float | None = None
    kinematic: bool = False

    def __post_init__(self) -> None:
        _positive("RigidPhysics", mass=self.mass)
        if self.friction is not None:
            check_real(self.friction, "RigidPhysics.friction", low=0)


@dataclass(frozen=True)
class _Shape:
    name: str
    pose: Pose = field(default_factory=Pose.identity)
    physics: RigidPhysics | None = None
    color: tuple[float, float, float] | None = None

    def engine_geometry(self) -> tuple[str, tuple[float, ...]]:
        """``(kind, dims)`` as the engine creates the shape; each concrete shape defines it."""
        raise NotImplementedError(f"{type(self).__name__} is not a concrete shape; use Cuboid, Sphere or Cylinder")


@dataclass(frozen=True)
class Cuboid(_Shape):
    """A box. ``size`` is the full edge lengths ``(x, y, z)`` in m.

    Without ``physics`` the box is a static fixture; with it, a dynamic rigid body.
    """

    size: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def __post_init__(self) -> None:
        if not hasattr(self.size, "__len__") or len(self.size) != 3:
            raise SimuloValueError(f"Cuboid({self.name!r}).size must be (x, y, z), got {self.size!r}")
        _positive(f"Cuboid({self.name!r})", **{f"size[{i}]": s for i, s in enumerate(self.size)})

    def engine_geometry(self) -> tuple[str, tuple[float, ...]]:
        """Box with half extents."""
        return "box", tuple(s / 2 for s in self.size)


@dataclass(frozen=True)
class Sphere(_Shape):
    """A sphere of ``radius`` m."""

    radius: float = 0.5

    def __post_init__(self) -> None:
        _positive(f"Sphere({self.name!r})", radius=self.radius)

    def engine_geometry(self) -> tuple[str, tuple[float, ...]]:
        """Sphere radius."""
        return "sphere", (self.radius,)


@dataclass(frozen=True)
class Cylinder(_Shape):
    """A cylinder of ``radius`` and ``height`` m along its z axis."""

    radius: float = 0.5
    height: float = 1.0

    def __post_init__(self) -> None:
        _positive(f"Cylinder({self.name!r})", radius=self.radius, height=self.height)

    def engine_geometry(self) -> tuple[str, tuple[float, ...]]:
        """Cylinder radius and height."""
        return "cylinder", (self.radius, self.height)
