"""Robot physics and joint-drive configuration (frozen values, no engine imports).

Two kinds of joint drive exist, chosen per actuator group in ``Robot.actuator_gains``:

* :class:`ActuatorGainsConfig` — a physical PD drive: ``effort = stiffness * (q* - q) + damping * (qd* - qd)``
  in N·m/rad (N/m) and N·m·s/rad, computed by the runtime every physics step and applied as effort,
  clipped to the joint's effort limit. ``stiffness = damping = 0`` makes the group effort-controlled.
* :class:`MotorGainsConfig` — the physics engine's own constraint-based joint motor (PyBullet's
  ``POSITION_CONTROL``/``VELOCITY_CONTROL``), whose gains are solver error-reduction factors, not
  stiffness. This is what scripted PyBullet programs use; it is the default for every joint that
  receives a position or velocity target and is not in an ``ActuatorGainsConfig`` group.
"""

from __future__ import annotations

from collections.abc import Iterable

from simulo.checks import check_real
from simulo.errors import SimuloValueError
from simulo.frozen import frozen_dataclass


def _check_nonneg(owner: str, **values: float | None) -> None:
    for key, value in values.items():
        if value is not None:
            check_real(value, f"{owner}.{key}", low=0)


def _is_interval(values: object) -> bool:
    """Whether ``values`` is ``(lower, upper)``: two numbers with lower <= upper (NaN is refused)."""
    if not isinstance(values, Iterable):
        return False
    try:
        lower, upper = (float(v) for v in values)
    except (TypeError, ValueError):
        return False
    return lower <= upper


@frozen_dataclass
class ActuatorGainsConfig:
    """Physical PD gains of an actuator group.

    Attributes:
        stiffness: Position gain in N·m/rad (N/m for sliders). 0 for effort control.
        damping: Velocity gain in N·m·s/rad (N·s/m). 0 for effort control.
    """

    stiffness: float = 0.0
    damping: float = 0.0

    def __post_init__(self) -> None:
        _check_nonneg("ActuatorGainsConfig", stiffness=self.stiffness, damping=self.damping)


@frozen_dataclass
class MotorGainsConfig:
    """Gains of the engine's built-in joint motor (PyBullet ``POSITION_CONTROL``).

    Attributes:
        position_gain: Solver position gain (PyBullet's ``positionGain``; its default is 0.1).
        velocity_gain: Solver velocity gain (PyBullet's ``velocityGain``; its default is 1.0).
        max_force: Largest force or torque the motor may apply; ``None`` uses the URDF effort limit.
    """

    position_gain: float = 0.1
    velocity_gain: float = 1.0
    max_force: float | None = None

    def __post_init__(self) -> None:
        _check_nonneg(
            "MotorGainsConfig",
            position_gain=self.position_gain,
            velocity_gain=self.velocity_gain,
            max_force=self.max_force,
        )


@frozen_dataclass
class JointConfig:
    """Per-joint overrides. ``None`` keeps the URDF's value.

    Attributes:
        name: Joint name (exact).
        type: Joint type, informational (``revolute``, ``prismatic``, ...).
        limits: ``(lower, upper)`` position limits in rad or m.
        effort_limit: Largest effort in N·m or N.
        velocity_limit: Largest speed in rad/s or m/s.
        damping: Joint damping (engine-side viscous damping).
        stiffness: Not applied per joint on PyBullet; use ``actuator_gains``.
        armature: Not applied on PyBullet.
    """

    name: str = ""
    type: str = "revolute"
    limits: tuple[float, float] | None = None
    effort_limit: float | None = None
    velocity_limit: float | None = None
    damping: float | None = None
    stiffness: float | None = None
    armature: float = 0.0

    def __post_init__(self) -> None:
        _check_nonneg(
            f"JointConfig({self.name!r})",
            effort_limit=self.effort_limit,
            velocity_limit=self.velocity_limit,
            damping=self.damping,
        )
        if self.limits is not None and not _is_interval(self.limits):
            raise SimuloValueError(f"JointConfig({self.name!r}).limits must be (lower, upper) with lower <= upper, "
                                   f"got {self.limits!r}")


@frozen_dataclass
class ArticulationConfig:
    """Articulation-wide physics and default state.

    Attributes:
        solver_position_iterations: A floor on the scene's constraint-solver iterations (both engines have one
            count for the whole scene): the most any robot asks for is used where it is above the engine's own
            (PyBullet 50, MuJoCo 100), unless ``Simulation(solver_iterations=...)`` names the count.
        solver_velocity_iterations: Accepted for compatibility; PyBullet has one iteration count.
        sleep_threshold: Accepted for compatibility; not used by PyBullet.
        stabilization_threshold: Accepted for compatibility; not used by PyBullet.
        enable_self_collision: Collide the robot's links with each other.
        default_joint_positions: Joint positions that ``reset`` writes (rad or m), one per joint.
        default_joint_velocities: Joint velocities that ``reset`` writes, one per joint.
        fix_root_link: Bolt the root link to the world; ``None`` takes the asset's own setting.
    """

    solver_position_iterations: int | None = None
    solver_velocity_iterations: int | None = None
    sleep_threshold: float = 0.005
    stabilization_threshold: float = 0.001
    enable_self_collision: bool | None = None
    default_joint_positions: tuple[float, ...] | None = None
    default_joint_velocities: tuple[float, ...] | None = None
    fix_root_link: bool | None = None
