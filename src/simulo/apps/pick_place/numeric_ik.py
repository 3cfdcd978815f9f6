"""Damped-least-squares (DLS) inverse kinematics on a body Jacobian.

The closed-form solver in :mod:`simulo.apps.pick_place.ik` knows the arm's geometry. This one knows nothing
but what a robot reports each control step: the tcp pose and its Jacobian (``robot.get_jacobians()``, rows
``[vx, vy, vz, wx, wy, wz]`` in world axes). One DLS step turns the 6-D pose error into a joint correction

    dq = J^T (J J^T + lambda^2 I)^-1 e

which is the least-squares solution of ``J dq = e`` that stays bounded near singularities. Used once per
control step from the measured joint positions (``q_target = q + dq``), it is a differential IK controller:
the error it corrects is re-measured on the next step.

Everything here is batched over a leading environment axis and pure (numpy only).
"""

from __future__ import annotations

import math

import numpy as np

from simulo.checks import check_real
from simulo.errors import ShapeError
from simulo.math import batched

DEFAULT_DAMPING = 0.01
"""lambda in rad or m; small against the arm's ~0.5 m reach, large enough to keep dq bounded."""


def quat_to_matrix(quat_wxyz: np.ndarray) -> np.ndarray:
    """Rotation matrices of w-first quaternions, normalised first (:func:`simulo.math.batched.quat_to_matrix`).

    Args:
        quat_wxyz: Quaternions ``[qw, qx, qy, qz]``, shape (N, 4).

    Returns:
        Rotation matrices, shape (N, 3, 3).

    Raises:
        ShapeError: ``quat_wxyz`` is not (N, 4).
        SimuloValueError: A quaternion has zero length.
    """
    q = np.asarray(quat_wxyz, dtype=np.float64)
    if q.ndim != 2 or q.shape[1] != 4:
        raise ShapeError(f"quat_wxyz must have shape (N, 4), got {q.shape}")
    return batched.quat_to_matrix(q)


def hand_yaw(x: np.ndarray, y: np.ndarray, grasp_yaw: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """World yaw ``psi`` of a downward hand whose fingers line up with an object of yaw ``grasp_yaw``.

    Any ``psi = grasp_yaw + k pi/2`` lines the fingers up with a cube's faces. The ``k`` chosen keeps
    ``psi`` nearest to ``reference`` (the hand's current yaw, so the wrist never flips mid-move), or, without
    one, nearest to the arm's bearing ``atan2(y, x)`` (the smallest wrist roll, at most 45 degrees).

    Args:
        x: Target tcp x, shape (N,), metres.
        y: Target tcp y, shape (N,), metres.
        grasp_yaw: Object yaw, shape (N,), radians.
        reference: Yaw to stay near, shape (N,), radians; None for the bearing.

    Returns:
        Hand yaws, shape (N,), radians.
    """
    yaw = np.asarray(grasp_yaw, dtype=np.float64)
    if reference is None:
        reference = np.arctan2(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64))
    return yaw + np.round((np.asarray(reference, dtype=np.float64) - yaw) / (math.pi / 2)) * (math.pi / 2)


def down_rotation(psi: np.ndarray) -> np.ndarray:
    """Rotation of a hand pointing straight down with world yaw ``psi``: ``Rz(psi) Ry(pi)``.

    Args:
        psi: Hand yaws, shape (N,), radians.

    Returns:
        Rotation matrices, shape (N, 3, 3); the third column (the hand axis) is (0, 0, -1).
    """
    psi = np.asarray(psi, dtype=np.float64)
    c, s = np.cos(psi), np.sin(psi)
    zero, one = np.zeros_like(psi), np.ones_like(psi)
    return np.stack([
        np.stack([-c, -s, zero], axis=1),
        np.stack([-s, c, zero], axis=1),
        np.stack([zero, zero, -one], axis=1),
    ], axis=1)


def orientation_error(current: np.ndarray, desired: np.ndarray) -> np.ndarray:
    """Rotation vector (axis times angle, world axes) that turns ``current`` into ``desired``.

    Args:
        current: Rotation matrices, shape (N, 3, 3).
        desired: Rotation matrices, shape (N, 3, 3).

    Returns:
        Rotation vectors of ``desired @ current.T``, shape (N, 3), angles in radians in [0, pi].
    """
    r = np.einsum("nij,nkj->nik", desired, current)
    vee = np.stack([r[:, 2, 1] - r[:, 1, 2], r[:, 0, 2] - r[:, 2, 0], r[:, 1, 0] - r[:, 0, 1]], axis=1)
    cos = np.clip((np.trace(r, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0)
    angle = np.arccos(cos)
    sin = np.sin(angle)
    out = np.zeros_like(vee)
    small = sin < 1e-6
    big = ~small
    out[big] = vee[big] * (angle[big] / (2.0 * sin[big]))[:, None]
    near_zero = small & (angle < 1.0)
    out[near_zero] = 0.5 * vee[near_zero]  # first order around the identity
    for n in np.nonzero(small & ~near_zero)[0]:  # a half turn: the axis from R + I
        m = r[n] + np.eye(3)
        col = int(np.argmax(np.linalg.norm(m, axis=0)))
        out[n] = math.pi * m[:, col] / np.linalg.norm(m[:, col])
    return out


def pose_error(position: np.ndarray, rotation: np.ndarray, target_position: np.ndarray,
               target_rotation: np.ndarray) -> np.ndarray:
    """The 6-D error ``[dx, dy, dz, rx, ry, rz]`` from the current to the target pose, world axes.

    Args:
        position: Current positions, shape (N, 3).
        rotation: Current rotation matrices, shape (N, 3, 3).
        target_position: Target positions, shape (N, 3).
        target_rotation: Target rotation matrices, shape (N, 3, 3).

    Returns:
        Errors, shape (N, 6): position in metres, then a rotation vector in radians.
    """
    return np.concatenate([np.asarray(target_position) - np.asarray(position),
                           orientation_error(rotation, target_rotation)], axis=1)


def dls_step(jacobian: np.ndarray, error: np.ndarray, damping: float = DEFAULT_DAMPING) -> np.ndarray:
    """One damped-least-squares step: ``dq = J^T (J J^T + damping^2 I)^-1 e`` per environment.

    Args:
        jacobian: Jacobians, shape (N, m, n) (m task rows, n joints).
        error: Task errors, shape (N, m), in the Jacobian's row units.
        damping: Damping ``lambda`` >= 0; 0 gives the plain pseudo-inverse step (where J J^T is invertible).

    Returns:
        Joint corrections, shape (N, n).

    Raises:
        ShapeError: The shapes do not agree.
        SimuloValueError: ``damping`` is negative or not finite.
    """
    j = np.asarray(jacobian, dtype=np.float64)
    e = np.asarray(error, dtype=np.float64)
    if j.ndim != 3 or e.shape != j.shape[:2]:
        raise ShapeError(f"jacobian must be (N, m, n) and error (N, m); got {j.shape} and {e.shape}")
    check_real(damping, "damping", 0)
    jjt = j @ j.transpose(0, 2, 1) + (damping * damping) * np.eye(j.shape[1])
    return np.einsum("nmk,nm->nk", j, np.linalg.solve(jjt, e[:, :, None])[:, :, 0])
