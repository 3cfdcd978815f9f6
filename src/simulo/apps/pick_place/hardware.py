"""The pick-and-place sequence written once, against a hardware-shaped arm and gripper interface.

:class:`RobotArm` and :class:`Gripper` have the shape of a vendor driver: a straight-line tcp move at a
speed, and a gripper that opens, closes with a force and reports whether it holds something. The
simulated implementation over the simulo contract and a real robot's driver both satisfy them, so
:func:`run_pick_and_place` runs unchanged on either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol, runtime_checkable

from simulo.checks import check_real
from simulo.errors import SimuloValueError
from simulo.frozen import frozen_dataclass


@runtime_checkable
class RobotArm(Protocol):
    """An arm that moves its tcp along straight lines with the gripper pointing down."""

    def move_linear(self, x: float, y: float, z: float, yaw: float, speed: float) -> None:
        """Move the tcp in a straight line to (x, y, z) metres with the fingers at ``yaw`` radians.

        Args:
            x: Target tcp x, metres.
            y: Target tcp y, metres.
            z: Target tcp z, metres.
            yaw: Yaw of the object to grasp (the fingers close across it), radians.
            speed: Tcp speed, metres per second.
        """
        ...


@runtime_checkable
class Gripper(Protocol):
    """A parallel gripper with a settable closing force and a grasp check."""

    def open(self) -> None:
        """Open the fingers fully."""
        ...

    def close(self, force: float) -> None:
        """Close the fingers, squeezing with at most ``force`` newtons."""
        ...

    def holding_object(self) -> bool:
        """Whether the closed fingers hold an object (from finger position, force or contact)."""
        ...


StepKind = Literal["open", "close", "move"]


@frozen_dataclass
class PlanStep:
    """One step of the sequence.

    Attributes:
        phase: Name of the phase, passed to ``on_phase`` when the step is done.
        kind: ``"open"``, ``"close"`` or ``"move"``.
        target: Tcp target (x, y, z) of a move; None otherwise.
        speed: Tcp speed of a move, m/s; None otherwise.
        force: Closing force, N, for ``"close"``; None otherwise.
    """

    phase: str
    kind: StepKind
    target: tuple[float, float, float] | None = None
    speed: float | None = None
    force: float | None = None


def _finite(name: str, value: object) -> float:
    return check_real(value, f"PickPlacePlan.{name}")


def _xyz(name: str, value: object) -> tuple[float, float, float]:
    try:
        items: tuple[object, ...] = tuple(value)  # type: ignore[arg-type]
    except TypeError:
        items = ()
    if len(items) != 3:
        raise SimuloValueError(f"PickPlacePlan.{name} must be (x, y, z) in metres, got {value!r}")
    return (_finite(f"{name}[0]", items[0]), _finite(f"{name}[1]", items[1]), _finite(f"{name}[2]", items[2]))


@frozen_dataclass
class PickPlacePlan:
    """Where to pick and place, and how fast and hard to do it.

    Heights are tcp heights in the arm's base frame. The place height is the grasp height shifted by the
    difference between the object's place and pick heights (0 for floor to floor, the cube's size when
    stacking), plus ``place_z_offset`` so that the object is released just above its resting height.

    Attributes:
        pick: Object centre at the pick location (x, y, z), metres.
        place: Object centre at the place location (x, y, z), metres.
        yaw: Object yaw, radians; the fingers close across it.
        hover_z: Tcp height for moves above the workspace.
        grasp_z: Tcp height when grasping at the pick location.
        place_z_offset: Extra tcp height when releasing.
        travel_speed: Speed of horizontal moves at hover height, m/s.
        lift_speed: Speed of vertical moves away from contact (lift, retreat), m/s.
        descend_speed: Speed of vertical moves towards contact (approach, lower), m/s.
        grip_force: Closing force, N.
    """

    pick: tuple[float, float, float]
    place: tuple[float, float, float]
    yaw: float
    hover_z: float = 0.15
    grasp_z: float = 0.03
    place_z_offset: float = 0.005
    travel_speed: float = 0.1
    lift_speed: float = 0.05
    descend_speed: float = 0.02
    grip_force: float = 20.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "pick", _xyz("pick", self.pick))
        object.__setattr__(self, "place", _xyz("place", self.place))
        for name in ("yaw", "hover_z", "grasp_z", "place_z_offset"):
            object.__setattr__(self, name, _finite(name, getattr(self, name)))
        for name in ("travel_speed", "lift_speed", "descend_speed", "grip_force"):
            value = _finite(name, getattr(self, name))
            if value <= 0:
                raise SimuloValueError(f"PickPlacePlan.{name} must be > 0, got {value!r}")
            object.__setattr__(self, name, value)
        if not (self.descend_speed <= self.lift_speed < self.travel_speed):
            raise SimuloValueError(
                "PickPlacePlan speeds must satisfy descend_speed <= lift_speed < travel_speed (slower near "
                f"contact), got descend {self.descend_speed}, lift {self.lift_speed}, travel {self.travel_speed}"
            )
        low = max(self.grasp_z, self.place_z)
        if self.hover_z <= low:
            raise SimuloValueError(
                f"PickPlacePlan.hover_z ({self.hover_z}) must be above the grasp and place heights ({low})"
            )

    @property
    def place_z(self) -> float:
        """Tcp height when releasing the object."""
        return self.grasp_z + (self.place[2] - self.pick[2]) + self.place_z_offset

    def steps(self) -> tuple[PlanStep, ...]:
        """The sequence: open, hover, approach, close, lift, transfer, lower, release, retreat.

        Returns:
            The steps in order; the grasp check sits between ``close`` and ``lift``.
        """
        (px, py, _), (qx, qy, _) = self.pick, self.place
        return (
            PlanStep("open", "open"),
            PlanStep("hover", "move", (px, py, self.hover_z), self.travel_speed),
            PlanStep("approach", "move", (px, py, self.grasp_z), self.descend_speed),
            PlanStep("close", "close", force=self.grip_force),
            PlanStep("lift", "move", (px, py, self.hover_z), self.lift_speed),
            PlanStep("transfer", "move", (qx, qy, self.hover_z), self.travel_speed),
            PlanStep("lower", "move", (qx, qy, self.place_z), self.descend_speed),
            PlanStep("release", "open"),
            PlanStep("retreat", "move", (qx, qy, self.hover_z), self.lift_speed),
        )


@frozen_dataclass
class PickPlaceOutcome:
    """What :func:`run_pick_and_place` did.

    Attributes:
        completed: Phases finished, in order.
        grasped: Whether the gripper reported holding the object after closing.
        failure: Why the sequence stopped early; None when every phase ran.
    """

    completed: tuple[str, ...]
    grasped: bool
    failure: str | None = None

    @property
    def ok(self) -> bool:
        """True when every phase ran."""
        return self.failure is None


def run_pick_and_place(
    arm: RobotArm, gripper: Gripper, plan: PickPlacePlan, on_phase: Callable[[str], None] | None = None
) -> PickPlaceOutcome:
    """Run the pick-and-place sequence once.

    The grasp is checked between ``close`` and ``lift``: when the gripper holds nothing the sequence stops
    before any lift move and the outcome says why. Errors raised by the arm or gripper (a refused move, a
    driver fault) propagate unchanged.

    Args:
        arm: Moves the tcp.
        gripper: Opens, closes and checks the grasp.
        plan: Positions, heights, speeds and force.
        on_phase: Called with the phase name after each phase is done (e.g. to print a status line).

    Returns:
        The phases completed, whether the grasp held, and the reason for stopping early if it did.
    """
    completed: list[str] = []
    grasped = False
    for step in plan.steps():
        if step.kind == "open":
            gripper.open()
        elif step.kind == "close":
            gripper.close(force=step.force)  # type: ignore[arg-type]
        else:
            x, y, z = step.target  # type: ignore[misc]
            arm.move_linear(x, y, z, plan.yaw, speed=step.speed)  # type: ignore[arg-type]
        completed.append(step.phase)
        if on_phase is not None:
            on_phase(step.phase)
        if step.kind == "close":
            grasped = bool(gripper.holding_object())
            if not grasped:
                return PickPlaceOutcome(
                    completed=tuple(completed),
                    grasped=False,
                    failure=(
                        f"grasp failed: after closing with {step.force} N at "
                        f"({plan.pick[0]:.4f}, {plan.pick[1]:.4f}, {plan.grasp_z:.4f}) the gripper reports no "
                        "object; stopped before the lift"
                    ),
                )
    return PickPlaceOutcome(completed=tuple(completed), grasped=grasped)
