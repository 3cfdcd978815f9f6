"""Physics a model file gives beyond what its URDF text carries: a USD stage's drives, materials and solver settings.

A URDF asset has none of these (every field empty). A USD asset (:mod:`simulo.authoring.usd`) fills them, and the
simulation applies them when it loads the robot: the drive gains as the robot's default actuator gains, the
surfaces through the engine's per-body friction and restitution, the solver iterations as a floor on the
scene's, and the self-collision setting as the robot's default.
"""

from __future__ import annotations

from simulo.frozen import frozen_dataclass

FRICTION_COMBINE_MODES: tuple[str, ...] = ("average", "min", "multiply", "max")
"""How two touching surfaces' friction coefficients combine (PhysX's ``frictionCombineMode`` tokens)."""


@frozen_dataclass
class BodySurface:
    """The contact material of one body's colliders.

    Attributes:
        body: The link name.
        friction: The Coulomb friction coefficient (a USD material's ``dynamicFriction``).
        restitution: The coefficient of restitution, 0..1.
        friction_combine: How the file combines it with the other surface's: one of
            :data:`FRICTION_COMBINE_MODES`.
    """

    body: str
    friction: float
    restitution: float
    friction_combine: str = "average"


@frozen_dataclass
class ModelPhysics:
    """A model's physics settings beyond its URDF text.

    Attributes:
        drive_gains: ``(joint name, stiffness, damping)`` of each joint the file drives, in SI units per radian
            or metre.
        surfaces: The contact material of each body the file gives one.
        solver_iterations: The constraint-solver position iterations the file asks for, or None.
        self_collision: Whether the file collides the robot's links with each other, or None when it does not say.
        notes: What the reader accepted while changing or dropping it (for ``simulo asset check``).
    """

    drive_gains: tuple[tuple[str, float, float], ...] = ()
    surfaces: tuple[BodySurface, ...] = ()
    solver_iterations: int | None = None
    self_collision: bool | None = None
    notes: tuple[str, ...] = ()


ENGINE_FRICTION_RULES: tuple[str, ...] = ("multiply", "max")
"""How an engine combines two touching shapes' coefficients: PyBullet (Bullet) multiplies them, MuJoCo takes the
larger."""


def engine_friction(surface: BodySurface, engine_rule: str) -> float:
    """The coefficient to give the body in an engine whose rule is ``engine_rule`` (see
    :data:`ENGINE_FRICTION_RULES`), so that its contacts come nearest to the file's combine mode.

    A ``max`` surface on a multiplying engine gets ``max(friction, 1)``: a contact then takes the other surface's
    coefficient, which is the file's answer whenever the other is the larger. Every other case keeps the file's
    coefficient (exact for ``max`` on MuJoCo and ``multiply`` on PyBullet).
    """
    if surface.friction_combine == "max" and engine_rule == "multiply":
        return max(surface.friction, 1.0)
    return surface.friction
