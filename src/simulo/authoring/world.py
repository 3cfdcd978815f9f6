"""Terrain and lights: what the scene stands on and how it would be lit."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from simulo.authoring.config import _check_nonneg

_Vec3 = tuple[float, float, float]


def _vec3(values: Iterable[float]) -> _Vec3:
    """``tuple(values)``, typed as the 3-vector it should be (its length is not checked here)."""
    return cast(_Vec3, tuple(values))


@dataclass(frozen=True)
class Terrain:
    """Ground for the scene. Only flat planes exist on the PyBullet engine.

    Attributes:
        kind: ``"plane"``.
        height: Height of the ground surface in m.
        static_friction: Friction coefficient of the ground; ``None`` keeps the plane model's 1.0.
        dynamic_friction: Accepted for compatibility; PyBullet has one lateral friction.
        restitution: Bounciness of the ground, 0..1; ``None`` keeps the model's 0.
    """

    kind: str = "plane"
    height: float = 0.0
    static_friction: float | None = None
    dynamic_friction: float | None = None
    restitution: float | None = None

    def __post_init__(self) -> None:
        _check_nonneg("Terrain", static_friction=self.static_friction, dynamic_friction=self.dynamic_friction,
                      restitution=self.restitution)

    @classmethod
    def plane(cls, height: float = 0.0, static_friction: float | None = None,
              dynamic_friction: float | None = None, restitution: float | None = None) -> Terrain:
        """A flat, infinite ground plane (PyBullet's ``plane.urdf``) at ``height``."""
        return cls("plane", float(height), static_friction, dynamic_friction, restitution)


@dataclass(frozen=True)
class Light:
    """A light. Headless PyBullet runs draw nothing, so lights are recorded, not simulated.

    Attributes:
        kind: ``"dome"`` or ``"distant"``.
        intensity: Brightness (unitless).
        color: RGB in 0..1.
        direction: For distant lights, the direction the light travels.
    """

    kind: str = "dome"
    intensity: float = 1000.0
    color: tuple[float, float, float] = (1.0, 1.0, 1.0)
    direction: tuple[float, float, float] = (0.0, 0.0, -1.0)

    def __post_init__(self) -> None:
        _check_nonneg("Light", intensity=self.intensity)

    @classmethod
    def dome(cls, intensity: float = 1000.0, color: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> Light:
        """An environment (sky) light."""
        return cls("dome", intensity, _vec3(color))

    @classmethod
    def distant(cls, intensity: float = 3000.0, color: tuple[float, float, float] = (1.0, 1.0, 1.0),
                direction: tuple[float, float, float] = (0.0, 0.0, -1.0)) -> Light:
        """A sun-like directional light."""
        return cls("distant", intensity, _vec3(color), _vec3(direction))
