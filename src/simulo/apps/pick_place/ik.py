"""Closed-form inverse kinematics of the pick arm with the gripper pointing straight down.

Five constraints (tcp position, hand axis down, finger yaw) for five joints give a closed-form solution:

1. Base yaw ``q1 = atan2(y, x)`` turns the arm's vertical plane through the target.
2. The hand points down, so the wrist pitch axis lies ``l_hand`` straight above the tcp, at horizontal
   distance ``r`` and height ``h`` relative to the shoulder in the arm's plane.
3. Shoulder ``q2`` and elbow ``q3`` solve the two-link problem in that plane by the law of cosines, with
   angles measured from the vertical (the arm points straight up at zero) and the elbow above the wrist.
4. Wrist pitch ``q4 = pi - q2 - q3`` makes the pitch angles sum to pi: the hand points down.
5. Wrist roll: with the hand flipped, its yaw in the world is ``q1 - q5``. A cube looks the same every
   90 degrees, so ``q5 = q1 - grasp_yaw`` is wrapped into [-pi/4, pi/4).

The arithmetic is written operation for operation as in the seed program, so a caller reproduces its joint
targets bit for bit.
"""

from __future__ import annotations

import math

from simulo.apps.pick_place.geometry import PICK_ARM, ArmGeometry
from simulo.errors import SimuloValueError, UnreachableError

JointAngles = tuple[float, float, float, float, float]


def _as_float(name: str, value: object) -> float:
    if isinstance(value, bool):
        raise SimuloValueError(f"{name} must be a real number in metres or radians, got {value!r}")
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise SimuloValueError(f"{name} must be a real number in metres or radians, got {value!r}") from None


def _target(x: float, y: float, z: float, grasp_yaw: float) -> str:
    """How an error message names the target (built only when one is raised)."""
    return f"target (x={x!r}, y={y!r}, z={z!r}, grasp_yaw={grasp_yaw!r})"


def solve_ik(x: float, y: float, z: float, grasp_yaw: float, geometry: ArmGeometry = PICK_ARM) -> JointAngles:
    """Solve the joint angles that put the tcp at (x, y, z) with the hand pointing straight down.

    Args:
        x: Target tcp x in the arm's base frame, in metres.
        y: Target tcp y in the arm's base frame, in metres.
        z: Target tcp z above the base (the floor), in metres.
        grasp_yaw: Yaw of the object to grasp, in radians. The fingers close across ``grasp_yaw + pi/2``
            (modulo pi/2, since the roll is wrapped to the smallest turn).
        geometry: Arm dimensions and joint limits.

    Returns:
        ``(base_yaw, shoulder, elbow, wrist_pitch, wrist_roll)`` in radians.

    Raises:
        UnreachableError: A coordinate is NaN or infinite, the wrist point is farther or nearer than the two
            links can reach, or the solution violates a joint limit. The message names the target and why.
        SimuloValueError: A coordinate is not a number.
    """
    if not (type(x) is type(y) is type(z) is type(grasp_yaw) is float):  # the per-step path passes floats
        x, y, z = _as_float("x", x), _as_float("y", y), _as_float("z", z)
        grasp_yaw = _as_float("grasp_yaw", grasp_yaw)
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z) and math.isfinite(grasp_yaw)):
        raise UnreachableError(f"{_target(x, y, z, grasp_yaw)}: every coordinate must be finite")

    l_upper, l_fore = geometry.upper_arm, geometry.forearm
    q1 = math.atan2(y, x)
    r = math.hypot(x, y)  # horizontal distance in the arm's vertical plane
    h = z + geometry.l_hand - geometry.shoulder_height  # wrist pitch axis height relative to the shoulder
    c3 = (r * r + h * h - l_upper**2 - l_fore**2) / (2 * l_upper * l_fore)
    if abs(c3) > 1:
        reach = math.hypot(r, h)
        raise UnreachableError(
            f"{_target(x, y, z, grasp_yaw)} is out of reach: the wrist point is {reach:.4f} m from the shoulder, "
            f"the arm reaches between {abs(l_upper - l_fore):.4f} m and {l_upper + l_fore:.4f} m"
        )
    q3 = math.acos(c3)  # elbow bent forward, elbow above the wrist
    q2 = math.atan2(r, h) - math.atan2(l_fore * math.sin(q3), l_upper + l_fore * math.cos(q3))
    q4 = math.pi - q2 - q3  # hand axis points down
    q5 = q1 - grasp_yaw
    q5 = (q5 + math.pi / 4) % (math.pi / 2) - math.pi / 4

    if (abs(q1) <= geometry.base_yaw_limit and abs(q2) <= geometry.shoulder_limit and abs(q3) <= geometry.elbow_limit
            and abs(q4) <= geometry.wrist_pitch_limit and abs(q5) <= geometry.wrist_roll_limit):
        return (q1, q2, q3, q4, q5)
    for joint, angle, limit in (  # a limit is exceeded: name the first one
        ("base_yaw", q1, geometry.base_yaw_limit),
        ("shoulder", q2, geometry.shoulder_limit),
        ("elbow", q3, geometry.elbow_limit),
        ("wrist_pitch", q4, geometry.wrist_pitch_limit),
        ("wrist_roll", q5, geometry.wrist_roll_limit),
    ):
        if abs(angle) > limit:
            raise UnreachableError(
                f"{_target(x, y, z, grasp_yaw)} is out of reach: it needs {joint} = {angle:.4f} rad, outside the "
                f"joint limit [-{limit}, {limit}] rad"
            )
    return (q1, q2, q3, q4, q5)


def reachable(x: float, y: float, z: float, geometry: ArmGeometry = PICK_ARM) -> bool:
    """Tell whether :func:`solve_ik` can reach (x, y, z) with the hand pointing down.

    The wrist roll never limits reach (it is wrapped to at most 45 degrees), so the answer holds for every
    grasp yaw.

    Args:
        x: Target tcp x in metres.
        y: Target tcp y in metres.
        z: Target tcp z in metres.
        geometry: Arm dimensions and joint limits.

    Returns:
        True when a solution within the joint limits exists; False otherwise (including NaN or inf input).

    Raises:
        SimuloValueError: A coordinate is not a number.
    """
    try:
        solve_ik(x, y, z, 0.0, geometry)
    except UnreachableError:
        return False
    return True
