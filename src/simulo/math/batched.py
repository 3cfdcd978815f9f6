"""Rotations and rigid transforms on numpy arrays, w-first, with any leading batch shape.

Quaternions are arrays ``(..., 4)`` holding ``[qw, qx, qy, qz]``; vectors ``(..., 3)``; poses
``(..., 7)`` holding ``[x, y, z, qw, qx, qy, qz]``. Leading shapes broadcast. Inputs are taken as
unit quaternions except by :func:`quat_to_matrix` and :func:`normalize_quat`.
"""

from __future__ import annotations

import numpy as np

from simulo.errors import SimuloValueError


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a * b`` (rotate by ``b``, then by ``a``)."""
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    """The conjugate ``[qw, -qx, -qy, -qz]``: the inverse rotation of a unit quaternion."""
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def _rotate(w: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v`` (..., 3) by unit quaternions ``q`` (..., 4)."""
    return _rotate(q[..., :1], q[..., 1:], v)


def quat_rotate_inverse(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v`` (..., 3) by the inverse of unit quaternions ``q`` (..., 4)."""
    return _rotate(q[..., :1], -q[..., 1:], v)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of quaternions (..., 4), normalised first.

    Raises:
        SimuloValueError: A quaternion has zero length.
    """
    q = np.asarray(q, dtype=np.float64)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    if (norm < 1e-12).any():
        raise SimuloValueError("a quaternion of zero length has no rotation; expected [qw, qx, qy, qz] of unit length")
    q = q / norm
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
    ], axis=-2)


def normalize_quat(q: np.ndarray, what: str = "quaternion") -> np.ndarray:
    """A copy of ``q`` (..., 4) scaled to unit length; rows already within 1e-12 of unit length are kept.

    Raises:
        SimuloValueError: A quaternion has zero length (the message names the first such row).
    """
    norms = np.linalg.norm(q, axis=-1)
    zero = norms < 1e-9
    if zero.any():
        bad = np.argwhere(zero)[0]
        raise SimuloValueError(f"{what} at index {bad.tolist()} is {q[tuple(bad)].tolist()}; expected "
                               "[qw, qx, qy, qz] of non-zero length")
    out = np.array(q, dtype=np.float64, copy=True)
    off = np.abs(norms - 1.0) > 1e-12
    out[off] /= norms[off][..., None]
    return out


def pose_mul(parent: np.ndarray, child: np.ndarray) -> np.ndarray:
    """The pose ``parent * child`` (..., 7): ``child`` given in ``parent``'s frame, expressed in the world."""
    pos = quat_rotate(parent[..., 3:], child[..., :3]) + parent[..., :3]
    return np.concatenate([pos, quat_mul(parent[..., 3:], child[..., 3:])], axis=-1)


def pose_inverse(pose: np.ndarray) -> np.ndarray:
    """The inverse rigid transform of ``pose`` (..., 7)."""
    inv_q = quat_conjugate(pose[..., 3:])
    return np.concatenate([-quat_rotate(inv_q, pose[..., :3]), inv_q], axis=-1)
