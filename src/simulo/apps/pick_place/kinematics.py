"""Forward kinematics of the pick arm by chaining the URDF's joint transforms.

This is deliberately independent of :mod:`simulo.apps.pick_place.ik`: it knows nothing about law-of-cosines
angles or flipped hands, only each joint's origin (relative to its parent link) and axis, as the arm's URDF
declares them. A test checks one against the other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simulo.apps.pick_place.geometry import PICK_ARM, ArmGeometry
from simulo.errors import NonFiniteError, ShapeError
from simulo.frozen import frozen_dataclass


@frozen_dataclass
class JointSpec:
    """One joint of the chain from the base to the tcp.

    Attributes:
        name: Joint name in the URDF.
        origin: Translation of the joint frame in the parent link's frame (no rotation in this arm).
        axis: Unit rotation axis in the joint frame; None for the fixed tcp joint.
    """

    name: str
    origin: tuple[float, float, float]
    axis: tuple[float, float, float] | None


def arm_chain(geometry: ArmGeometry = PICK_ARM) -> tuple[JointSpec, ...]:
    """The joints from the base link to the tcp, in URDF order (the five arm joints, then the tcp joint).

    Args:
        geometry: Arm dimensions.

    Returns:
        ``base_yaw``, ``shoulder``, ``elbow``, ``wrist_pitch``, ``wrist_roll`` and the fixed ``tcp_joint``.
    """
    z_axis, y_axis = (0.0, 0.0, 1.0), (0.0, 1.0, 0.0)
    return (
        JointSpec("base_yaw", (0.0, 0.0, geometry.base_to_turret), z_axis),
        JointSpec("shoulder", (0.0, 0.0, geometry.turret_to_shoulder), y_axis),
        JointSpec("elbow", (0.0, 0.0, geometry.upper_arm), y_axis),
        JointSpec("wrist_pitch", (0.0, 0.0, geometry.forearm), y_axis),
        JointSpec("wrist_roll", (0.0, 0.0, geometry.wrist_to_hand), z_axis),
        JointSpec("tcp_joint", (0.0, 0.0, geometry.hand_to_tcp), None),
    )


def _axis_angle(axis: tuple[float, float, float], angle: float) -> np.ndarray:
    """Rotation matrix about a unit axis (Rodrigues' formula)."""
    k = np.asarray(axis, dtype=np.float64)
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(angle) * kx + (1.0 - np.cos(angle)) * (kx @ kx)


def _joint_transform(joint: JointSpec, angle: float) -> np.ndarray:
    t = np.eye(4)
    t[:3, 3] = joint.origin
    if joint.axis is not None:
        t[:3, :3] = _axis_angle(joint.axis, angle)
    return t


def forward_kinematics(q: Sequence[float] | np.ndarray,
                       geometry: ArmGeometry = PICK_ARM) -> tuple[np.ndarray, np.ndarray]:
    """Pose of the tcp in the base frame for the five arm joint angles.

    Args:
        q: ``(base_yaw, shoulder, elbow, wrist_pitch, wrist_roll)`` in radians, shape (5,).
        geometry: Arm dimensions.

    Returns:
        ``(position, rotation)``: the tcp position, shape (3,), and the rotation matrix of the tcp frame
        (which is the hand frame; columns are its x, y, z axes in the base frame), shape (3, 3). The hand's
        z axis points from the hand plate towards the finger tips; the fingers slide along its y axis.

    Raises:
        ShapeError: ``q`` does not hold exactly five angles.
        NonFiniteError: An angle is NaN or infinite.
    """
    angles = np.asarray(q, dtype=np.float64)
    if angles.shape != (5,):
        raise ShapeError(f"q must hold the 5 arm joint angles, shape (5,), got shape {angles.shape}")
    if not np.all(np.isfinite(angles)):
        raise NonFiniteError(f"q must be finite, got {angles.tolist()}")
    chain = arm_chain(geometry)
    pose = np.eye(4)
    for joint, angle in zip(chain, [*angles.tolist(), 0.0]):
        pose = pose @ _joint_transform(joint, angle)
    return pose[:3, 3].copy(), pose[:3, :3].copy()
