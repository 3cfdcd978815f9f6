"""What the pick-and-place cell is built from: the seed's constants, :class:`AppOptions`, cube starts, the seed plan.

Timing. The seed program moves with fixed durations (approach 1 s, lift 1 s, transfer 2 s, lower 1 s,
retreat 1 s) and settles 60 steps after each move, 240 after each gripper command and 240 at the end. The
hardware interface moves at a speed instead, so the simulated arm takes ``distance / speed`` and rounds it
up to whole quarter seconds (:data:`MOVE_QUANTUM`); with the plan speeds of :func:`seed_plan` that gives the
seed's durations exactly, and the run takes the seed's 2580 steps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, cast

import numpy as np

from simulo.apps.pick_place.hardware import PickPlacePlan
from simulo.apps.pick_place.safety import BoxFixture
from simulo.checks import check_real, is_real
from simulo.errors import SimuloValueError
from simulo.frozen import frozen_dataclass

ARM_REF = "simulo/robot/pick_arm:v1"
"""Catalog reference of the arm (the seed's URDF)."""
ARM_JOINTS = ("base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll")
FINGER_JOINTS = ("finger_left_joint", "finger_right_joint")
TCP_BODY = "tcp"
DT = 1.0 / 240.0
FRAME_EVERY = 8  # physics steps per video frame: 30 frames per simulated second
FRAME_SIZE = (320, 240)  # video width, height in pixels
CAMERA_EYE, CAMERA_TARGET = (0.85, -0.5, 0.45), (0.3, 0.1, 0.08)  # m, relative to the environment origin
POSITION_GAIN = 0.3
"""Engine-motor position gain of the arm joints (the seed's ``positionGains``)."""
GRIP_FORCE = 20.0
"""Squeeze per finger, N."""
OPENING = 0.035
"""Finger opening (distance of each finger from the centre line) when open, m."""
CUBE_SIZE = 0.04
CUBE_MASS = 0.1
PICK = (0.42, -0.12, CUBE_SIZE / 2)
PLACE = (0.25, 0.35, CUBE_SIZE / 2)
CUBE_YAW = 0.3
SECOND_CUBE = (0.40, 0.12, CUBE_SIZE / 2)
"""Start of the second cube in the stacking run."""
SECOND_CUBE_YAW = -0.2
HOVER_Z = 0.15
GRASP_Z = 0.03
TOLERANCE = 0.01
"""Largest horizontal placement error of a PASS, m."""
Z_TOLERANCE = 0.005
"""Largest height error of a PASS, m (the cube must rest where it belongs)."""
GAP_TOLERANCE = 0.003
"""The grasp check wants the finger gap within this of the cube size, m."""
SLIP_THRESHOLD = 0.005
"""A cube that sinks more than this relative to the tcp during the lift has slipped, m."""
GRAVITY = 9.81
"""m/s², as the simulation's default gravity."""
MOVE_QUANTUM = 0.25
"""Move durations are rounded up to whole multiples of this, s (divided by the speed factor)."""
SETTLE_START, SETTLE_MOVE, SETTLE_GRIPPER, SETTLE_END = 120, 60, 240, 240
TRAVEL_SPEED, LIFT_SPEED, DESCEND_SPEED = 0.25, 0.12, 0.12
"""Average tcp speeds of the plan, m/s: horizontal moves at hover height, lifts and descents."""
QUARTER_TURN = math.pi / 2

IkSolver = Literal["closed-form", "numeric"]


@frozen_dataclass
class AppOptions:
    """How the cell is built and driven.

    Attributes:
        coupled: Couple the fingers with the gripper's gear (ratio -1).
        friction: Lateral friction coefficient of the cube(s) and of both fingers.
        ik: ``"closed-form"`` (the analytic solver) or ``"numeric"`` (damped least squares on the tcp Jacobian).
        speed: Every move this many times faster (and the arm's position gain raised to match).
        fixtures: Known obstacles for the collision check, in the arm's base frame.
        dls_damping: Damping of the numeric solver.
        compensate_gain: Raise the arm's position gain with ``speed`` (see :attr:`position_gain`).
    """

    coupled: bool = True
    friction: float = 1.0
    ik: IkSolver = "closed-form"
    speed: float = 1.0
    fixtures: tuple[BoxFixture, ...] = ()
    dls_damping: float = 0.01
    compensate_gain: bool = True

    def __post_init__(self) -> None:
        check_real(self.friction, "friction", 0)
        if self.ik not in ("closed-form", "numeric"):
            raise SimuloValueError(f"ik must be 'closed-form' or 'numeric', got {self.ik!r}")
        if not is_real(self.speed, 0.1, 8):
            raise SimuloValueError(f"speed must be a number between 0.1 and 8 (times the seed's speed), "
                                   f"got {self.speed!r}")
        for fixture in self.fixtures:
            if not isinstance(fixture, BoxFixture):
                raise SimuloValueError(f"fixtures must be BoxFixture values, got {fixture!r}")
        check_real(self.dls_damping, "dls_damping", 0)

    @property
    def position_gain(self) -> float:
        """Arm motor position gain: the seed's 0.3, times the speed factor when faster (at most 1).

        The engine motor lags its target by about ``velocity / gain``; scaling the gain with the speed keeps
        the tracking error of faster moves from growing with them.
        """
        if not self.compensate_gain:
            return POSITION_GAIN
        return min(1.0, POSITION_GAIN * max(1.0, self.speed))


DEFAULT_OPTIONS = AppOptions()
"""The seed's options: coupled fingers, friction 1, closed-form IK, the seed's speed, no fixtures."""


@frozen_dataclass
class CubeStart:
    """Where a cube starts in every environment (base frame of each environment's arm).

    Attributes:
        xy: Centres (N, 2), m; the cube rests on the floor (or at ``z``).
        yaw: Yaws (N,), rad.
        z: Centre height, m.
        spawn: ``(x, y, yaw)`` every environment's cube is created at before it is moved to its start, or
            None for the first row. A shard of a larger batch passes the batch's first row, so its worlds are
            built (and step) exactly as in the whole batch.
    """

    xy: np.ndarray
    yaw: np.ndarray
    z: float = CUBE_SIZE / 2
    spawn: tuple[float, float, float] | None = None

    @property
    def created_at(self) -> tuple[float, float, float]:
        """``(x, y, yaw)`` the cubes are created at: :attr:`spawn`, else the first row."""
        if self.spawn is not None:
            return float(self.spawn[0]), float(self.spawn[1]), float(self.spawn[2])
        return float(self.xy[0, 0]), float(self.xy[0, 1]), float(self.yaw[0])


def one_cube(xy: Sequence[float], yaw: float) -> CubeStart:
    """The start of a cube at ``xy`` with ``yaw`` in a one-environment cell."""
    return CubeStart(np.array([xy[:2]], dtype=np.float64), np.array([yaw], dtype=np.float64))


def seed_plan(pick: Sequence[float] = PICK, place: Sequence[float] = PLACE, yaw: float = CUBE_YAW,
              speed: float = 1.0) -> PickPlacePlan:
    """The seed's plan: hover at 0.15 m, grasp at 0.03 m, release 5 mm higher, squeeze with 20 N.

    Args:
        pick: Cube centre at the pick location, base frame, m.
        place: Cube centre at the place location (its z says how high it rests), m.
        yaw: Cube yaw as planned, rad.
        speed: Speed factor; every plan speed is multiplied by it.

    Returns:
        The plan.
    """
    # PickPlacePlan checks that each is three finite numbers (SimuloValueError otherwise)
    pick3, place3 = cast("tuple[float, float, float]", tuple(pick)), cast("tuple[float, float, float]", tuple(place))
    return PickPlacePlan(pick=pick3, place=place3, yaw=yaw, hover_z=HOVER_Z, grasp_z=GRASP_Z,
                         place_z_offset=0.005, travel_speed=TRAVEL_SPEED * speed, lift_speed=LIFT_SPEED * speed,
                         descend_speed=DESCEND_SPEED * speed, grip_force=GRIP_FORCE)
