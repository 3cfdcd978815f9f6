"""Rotations on plain Python tuples, for authoring values that must not import numpy.

Angles are radians; roll, pitch and yaw are extrinsic rotations about x, then y, then z (the URDF's
``rpy`` and PyBullet's Euler convention).
"""

from __future__ import annotations

import math

Quat = tuple[float, float, float, float]


def quat_from_rpy(roll: float, pitch: float, yaw: float) -> Quat:
    """The unit quaternion ``(qw, qx, qy, qz)`` of roll, pitch and yaw (extrinsic x, y, z).

    Args:
        roll: Rotation about x, rad.
        pitch: Rotation about y, rad.
        yaw: Rotation about z, rad.

    Returns:
        The w-first quaternion.
    """
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return (
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    )


def rpy_from_quat(q_wxyz: tuple[float, ...] | list[float]) -> tuple[float, float, float]:
    """Roll, pitch and yaw (extrinsic x, y, z) of a w-first unit quaternion.

    At the gimbal lock (pitch of ±90°) roll is reported as 0 and the whole turn as yaw, as PyBullet's
    ``getEulerFromQuaternion`` does.

    Args:
        q_wxyz: The quaternion ``(qw, qx, qy, qz)``.

    Returns:
        ``(roll, pitch, yaw)`` in radians.
    """
    qw, qx, qy, qz = (float(v) for v in q_wxyz)
    sarg = -2.0 * (qx * qz - qw * qy)
    if sarg <= -0.99999:
        return 0.0, -0.5 * math.pi, 2.0 * math.atan2(qx, -qy)
    if sarg >= 0.99999:
        return 0.0, 0.5 * math.pi, 2.0 * math.atan2(-qx, qy)
    squ, sqx, sqy, sqz = qw * qw, qx * qx, qy * qy, qz * qz
    roll = math.atan2(2.0 * (qy * qz + qw * qx), squ - sqx - sqy + sqz)
    pitch = math.asin(sarg)
    yaw = math.atan2(2.0 * (qx * qy + qw * qz), squ + sqx - sqy - sqz)
    return roll, pitch, yaw
