"""Collision check of a planned straight-line tcp move against the floor and known box fixtures.

The gripper always points straight down, so the part of the tool that leads into the workspace is the
vertical segment from the tcp down to the finger tips (``ArmGeometry.finger_tip_below_tcp`` below the tcp).
A straight move sweeps that segment over a parallelogram; the check is exact for that parallelogram against
the floor plane and against each box inflated by the clearance (in the box's own frame). The object being
grasped is not a fixture: the caller leaves it out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from simulo.apps.pick_place.geometry import PICK_ARM, ArmGeometry
from simulo.checks import is_real
from simulo.errors import CollisionError, NonFiniteError, ShapeError, SimuloValueError
from simulo.frozen import frozen_dataclass

DEFAULT_CLEARANCE = 0.003
"""Metres. The seed grasps with the finger tips 5 mm above the floor, so the default must stay below that."""


@frozen_dataclass
class BoxFixture:
    """A box-shaped obstacle: a table top, a bin wall, a fixture plate.

    Attributes:
        name: Name used in error messages.
        center: Box centre in the arm's base frame, metres.
        half_extents: Half sizes along the box's own x, y, z axes, metres, each > 0.
        yaw: Rotation of the box about the vertical, radians.
    """

    name: str
    center: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    yaw: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SimuloValueError(f"BoxFixture.name must be a non-empty string, got {self.name!r}")
        try:
            center = tuple(float(v) for v in self.center)
            half = tuple(float(v) for v in self.half_extents)
            yaw = float(self.yaw)
        except (TypeError, ValueError):
            raise SimuloValueError(
                f"BoxFixture {self.name!r}: center, half_extents and yaw must be numbers, got "
                f"{self.center!r}, {self.half_extents!r}, {self.yaw!r}"
            ) from None
        if len(center) != 3 or not all(math.isfinite(v) for v in center):
            raise SimuloValueError(f"BoxFixture {self.name!r}: center must be 3 finite numbers, got {self.center!r}")
        if len(half) != 3 or not all(math.isfinite(v) and v > 0 for v in half):
            raise SimuloValueError(
                f"BoxFixture {self.name!r}: half_extents must be 3 finite numbers > 0, got {self.half_extents!r}"
            )
        if not math.isfinite(yaw):
            raise SimuloValueError(f"BoxFixture {self.name!r}: yaw must be finite, got {self.yaw!r}")
        object.__setattr__(self, "center", center)
        object.__setattr__(self, "half_extents", half)
        object.__setattr__(self, "yaw", yaw)


def _tcp_point(name: str, value: Sequence[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.shape != (3,):
        raise ShapeError(f"{name} must be a tcp position of shape (3,), got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise NonFiniteError(f"{name} must be finite, got {array.tolist()}")
    return array


def _fmt(point: np.ndarray) -> str:
    return "(" + ", ".join(f"{v:.4f}" for v in point) + ")"


def _sweep_hits_box(start: np.ndarray, goal: np.ndarray, drop: float, lo: np.ndarray, hi: np.ndarray) -> bool:
    """Whether {start + t (goal - start) - u (0, 0, drop) : t, u in [0, 1]} meets the box [lo, hi].

    The set is convex in (t, u); each box face is a half-plane in (t, u). Clip the unit square by the six
    half-planes and report whether anything is left.
    """
    delta = goal - start
    polygon = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    for axis in range(3):
        a, b = delta[axis], -drop if axis == 2 else 0.0
        # lo <= start + a t + b u  and  start + a t + b u <= hi, each as c0 + ct t + cu u >= 0
        for c0, ct, cu in ((start[axis] - lo[axis], a, b), (hi[axis] - start[axis], -a, -b)):
            polygon = _clip(polygon, c0, ct, cu)
            if not polygon:
                return False
    return True


def _clip(polygon: list[tuple[float, float]], c0: float, ct: float, cu: float) -> list[tuple[float, float]]:
    """Sutherland-Hodgman: keep the part of a convex polygon where c0 + ct t + cu u >= 0."""
    out: list[tuple[float, float]] = []
    count = len(polygon)
    for k in range(count):
        p, q = polygon[k], polygon[(k + 1) % count]
        fp, fq = c0 + ct * p[0] + cu * p[1], c0 + ct * q[0] + cu * q[1]
        if fp >= 0:
            out.append(p)
        if (fp >= 0) != (fq >= 0):
            w = fp / (fp - fq)
            out.append((p[0] + w * (q[0] - p[0]), p[1] + w * (q[1] - p[1])))
    return out


def check_path(
    name: str,
    start: Sequence[float] | np.ndarray,
    goal: Sequence[float] | np.ndarray,
    fixtures: Iterable[BoxFixture] = (),
    floor_z: float = 0.0,
    clearance: float = DEFAULT_CLEARANCE,
    geometry: ArmGeometry = PICK_ARM,
) -> None:
    """Refuse a straight tcp move that would bring the gripper too close to the floor or into a fixture.

    Args:
        name: Name of the move, used in the error (e.g. ``"approach"``).
        start: Tcp position where the move begins, shape (3,).
        goal: Tcp position where the move ends, shape (3,).
        fixtures: Known obstacles; leave out the object being grasped.
        floor_z: Height of the floor in the base frame.
        clearance: Minimum distance kept from the floor and from every fixture (each box is inflated by it
            along its own axes), metres, >= 0.
        geometry: Arm dimensions (for how far the finger tips reach below the tcp).

    Raises:
        CollisionError: The move comes closer than ``clearance`` to the floor or a fixture; the message names
            the move, its end points and what it would hit.
        ShapeError: ``start`` or ``goal`` is not shape (3,).
        NonFiniteError: ``start`` or ``goal`` holds NaN or infinity.
        SimuloValueError: ``clearance`` or ``floor_z`` is invalid, or a fixture is not a :class:`BoxFixture`.
    """
    start_arr = _tcp_point("start", start)
    goal_arr = _tcp_point("goal", goal)
    if not is_real(clearance, 0):
        raise SimuloValueError(f"clearance must be a finite number >= 0 in metres, got {clearance!r}")
    if not is_real(floor_z):
        raise SimuloValueError(f"floor_z must be a finite number in metres, got {floor_z!r}")
    boxes = list(fixtures)
    for fixture in boxes:
        if not isinstance(fixture, BoxFixture):
            raise SimuloValueError(f"fixtures must be BoxFixture values, got {fixture!r}")

    move = f"move {name!r} from {_fmt(start_arr)} to {_fmt(goal_arr)}"
    drop = geometry.finger_tip_below_tcp
    lowest_tip = min(start_arr[2], goal_arr[2]) - drop
    if lowest_tip < floor_z + clearance:
        raise CollisionError(
            f"{move} would bring the finger tips (tcp - {drop:.3f} m) down to z={lowest_tip:.4f} m, "
            f"closer than the clearance {clearance:.4f} m to the floor at z={floor_z:.4f} m"
        )
    for box in boxes:
        c, s = math.cos(box.yaw), math.sin(box.yaw)
        to_box = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])  # world -> box frame
        center = np.asarray(box.center)
        half = np.asarray(box.half_extents) + clearance
        local_start = to_box @ (start_arr - center)
        local_goal = to_box @ (goal_arr - center)
        if _sweep_hits_box(local_start, local_goal, drop, -half, half):
            raise CollisionError(
                f"{move} would sweep the gripper (tcp down to the finger tips) into fixture {box.name!r} "
                f"(center {_fmt(center)}, half extents {_fmt(np.asarray(box.half_extents))}, yaw {box.yaw:.4f} rad) "
                f"inflated by the clearance {clearance:.4f} m"
            )
