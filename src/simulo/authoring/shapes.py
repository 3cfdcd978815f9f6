"""Primitive shapes and their physics (the SDK's ``PrimitiveShape`` family, ``Physics`` and ``Collision``).

The fields and constructor parameters are the SDK's; values are validated on construction and frozen.
simulo-local adds two keyword-only extensions: ``RigidPhysics(friction=...)`` and ``PrimitiveShape(color=...)``.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, NoReturn

from simulo.authoring.materials import Material
from simulo.authoring.pose import Pose
from simulo.checks import check_real
from simulo.errors import SimuloValueError
from simulo.frozen import frozen_dataclass

if TYPE_CHECKING:
    from simulo.interfaces.authoring import DeformableMaterial


def _positive(owner: str, **values: float) -> None:
    for key, value in values.items():
        check_real(value, f"{owner}.{key}", low=0, low_open=True)


class Collision:
    """Whether a body collides.

    As in the SDK, ``enabled`` is both a classmethod factory (``Collision.enabled()``) and, on an
    instance, the ``bool`` attribute (``Collision.disabled().enabled is False``).

    Args:
        enabled: Whether collision is active.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = bool(enabled)  # type: ignore[method-assign,assignment]

    @classmethod
    def enabled(cls) -> Collision:
        """A collision setting that is on."""
        return cls(enabled=True)

    @classmethod
    def disabled(cls) -> Collision:
        """A collision setting that is off."""
        return cls(enabled=False)

    def __repr__(self) -> str:
        return f"Collision(enabled={self.enabled})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Collision):
            return NotImplemented
        return self.enabled == other.enabled

    __hash__ = None  # type: ignore[assignment]


@frozen_dataclass
class RigidPhysics:
    """Rigid-body properties of a shape.

    Attributes:
        mass: Mass in kg (> 0).
        collision: Collision setting; ``None`` collides. Disabled collision is not simulated yet.
        kinematic: If True the body is fixed in place (a fixture); ``mass`` is then ignored.
        activate_contact_sensors: Accepted as in the SDK; contacts are always reported on PyBullet.
        friction: Lateral friction coefficient; ``None`` keeps the engine default (0.5 on PyBullet).
            A simulo-local extension, keyword-only.
    """

    mass: float = 1.0
    collision: Collision | None = None
    kinematic: bool = False
    activate_contact_sensors: bool = False
    friction: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        """Validate the values.

        Raises:
            SimuloValueError: ``mass`` is not > 0 or ``friction`` is negative.
            NotImplementedError: ``collision`` is disabled; every rigid body collides in simulo-local for now.
        """
        _positive("RigidPhysics", mass=self.mass)
        if self.collision == Collision.disabled():
            raise NotImplementedError("RigidPhysics(collision=Collision.disabled()) is not available in simulo-local "
                                      "yet (issue 9): every rigid body collides; leave collision unset")
        if self.friction is not None:
            check_real(self.friction, "RigidPhysics.friction", low=0)


class Physics:
    """Factories for a shape's ``physics`` (the SDK's ``simulo.Physics``)."""

    @staticmethod
    def rigid(
        mass: float = 1.0,
        collision: Collision | None = None,
        kinematic: bool = False,
        activate_contact_sensors: bool = False,
    ) -> RigidPhysics:
        """A rigid body: ``mass`` in kg; ``kinematic=True`` fixes it in place."""
        return RigidPhysics(mass=mass, collision=collision, kinematic=kinematic,
                            activate_contact_sensors=activate_contact_sensors)

    @staticmethod
    def deformable(material: DeformableMaterial | None = None) -> NoReturn:
        """Deformable bodies: not available on the PyBullet engine.

        Raises:
            NotImplementedError: Always; simulo-local simulates rigid bodies only.
        """
        raise NotImplementedError("Physics.deformable is not available in simulo-local (PyBullet simulates rigid "
                                  "bodies only); use Physics.rigid(...)")


@frozen_dataclass
class PrimitiveShape:
    """Base of the primitive shapes.

    Attributes:
        name: Item name.
        pose: Where the shape sits (relative to its parent).
        material: Surface material; its colour is the shape's colour unless ``color`` is given.
        physics: ``None`` for a static fixture, a :class:`RigidPhysics` for a rigid body.
        color: RGB in 0..1 for recordings (simulo-local extension, keyword-only).
    """

    name: str
    pose: Pose = field(default_factory=Pose.identity)
    material: Material | None = None
    physics: RigidPhysics | None = None
    color: tuple[float, float, float] | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if self.material is not None and not isinstance(self.material, Material):
            raise SimuloValueError(f"{type(self).__name__}({self.name!r}).material must be a simulo.Material (or "
                                   f"SurfaceMaterial) or None, got {self.material!r}")
        if self.physics is not None and not isinstance(self.physics, RigidPhysics):
            raise SimuloValueError(f"{type(self).__name__}({self.name!r}).physics must be a simulo.RigidPhysics or "
                                   f"None (a static fixture), got {self.physics!r}")
        if self.color is None and self.material is not None:
            object.__setattr__(self, "color", self.material.color)

    def engine_geometry(self) -> tuple[str, tuple[float, ...]]:
        """``(kind, dims)`` as the engine creates the shape; each concrete shape defines it."""
        raise NotImplementedError(f"{type(self).__name__} is not a shape the PyBullet engine can create; "
                                  "use Cuboid, Sphere or Cylinder")


@frozen_dataclass
class Cone(PrimitiveShape):
    """A cone of base ``radius`` and ``height`` m along its z axis.

    PyBullet has no cone primitive; the engine layer builds a convex approximation (:mod:`simulo.sim.geometry`).
    """

    radius: float = 0.5
    height: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        _positive(f"Cone({self.name!r})", radius=self.radius, height=self.height)


@frozen_dataclass
class Cuboid(PrimitiveShape):
    """A box. ``size`` is the full edge lengths ``(x, y, z)`` in m.

    Without ``physics`` the box is a static fixture; with it, a dynamic rigid body.
    """

    size: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not hasattr(self.size, "__len__") or len(self.size) != 3:
            raise SimuloValueError(f"Cuboid({self.name!r}).size must be (x, y, z), got {self.size!r}")
        _positive(f"Cuboid({self.name!r})", **{f"size[{i}]": s for i, s in enumerate(self.size)})

    def engine_geometry(self) -> tuple[str, tuple[float, ...]]:
        """Box with half extents."""
        return "box", tuple(s / 2 for s in self.size)


@frozen_dataclass
class Sphere(PrimitiveShape):
    """A sphere of ``radius`` m."""

    radius: float = 0.5

    def __post_init__(self) -> None:
        super().__post_init__()
        _positive(f"Sphere({self.name!r})", radius=self.radius)

    def engine_geometry(self) -> tuple[str, tuple[float, ...]]:
        """Sphere radius."""
        return "sphere", (self.radius,)


@frozen_dataclass
class Cylinder(PrimitiveShape):
    """A cylinder of ``radius`` and ``height`` m along its z axis."""

    radius: float = 0.5
    height: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        _positive(f"Cylinder({self.name!r})", radius=self.radius, height=self.height)

    def engine_geometry(self) -> tuple[str, tuple[float, ...]]:
        """Cylinder radius and height."""
        return "cylinder", (self.radius, self.height)
