"""simulo.math: w-first quaternions and poses, checked against rotation matrices built independently."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulo.errors import SimuloValueError
from simulo.math.batched import (
    normalize_quat,
    pose_inverse,
    pose_mul,
    quat_conjugate,
    quat_mul,
    quat_rotate,
    quat_rotate_inverse,
    quat_to_matrix,
)
from simulo.math.scalar import quat_from_rpy, rpy_from_quat

angles = st.floats(-math.pi, math.pi, allow_nan=False)


def _rx(a: float) -> np.ndarray:
    return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])


def _ry(a: float) -> np.ndarray:
    return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])


def _rz(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])


def _random_quats(n: int, seed: int = 0) -> np.ndarray:
    q = np.random.default_rng(seed).normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(angles, st.floats(-1.5, 1.5), angles)
def test_rpy_quaternion_is_extrinsic_xyz_and_round_trips(roll: float, pitch: float, yaw: float) -> None:
    q = np.array(quat_from_rpy(roll, pitch, yaw))
    assert np.allclose(quat_to_matrix(q), _rz(yaw) @ _ry(pitch) @ _rx(roll), atol=1e-12)
    assert np.allclose(rpy_from_quat(tuple(q)), (roll, pitch, yaw), atol=1e-9)


def test_rpy_at_gimbal_lock_puts_the_turn_in_yaw() -> None:
    roll, pitch, yaw = rpy_from_quat(quat_from_rpy(0.0, math.pi / 2, 0.7))
    assert roll == 0.0 and pitch == pytest.approx(math.pi / 2) and yaw == pytest.approx(0.7, abs=1e-6)


def test_quaternion_product_composes_rotation_matrices() -> None:
    a, b = _random_quats(8, 1), _random_quats(8, 2)
    assert np.allclose(quat_to_matrix(quat_mul(a, b)), quat_to_matrix(a) @ quat_to_matrix(b), atol=1e-12)


def test_rotate_and_inverse_rotate_match_the_matrix_and_undo_each_other() -> None:
    q = _random_quats(16, 3)
    v = np.random.default_rng(4).normal(size=(16, 3))
    rotated = quat_rotate(q, v)
    assert np.allclose(rotated, np.einsum("nij,nj->ni", quat_to_matrix(q), v), atol=1e-12)
    assert np.allclose(quat_rotate_inverse(q, rotated), v, atol=1e-12)
    assert np.allclose(quat_rotate(quat_conjugate(q), rotated), v, atol=1e-12)


def test_leading_batch_shapes_broadcast() -> None:
    q = _random_quats(6, 5).reshape(2, 3, 4)
    v = np.ones((2, 3, 3))
    assert quat_rotate(q, v).shape == (2, 3, 3) and quat_mul(q, q).shape == (2, 3, 4)
    assert quat_to_matrix(q).shape == (2, 3, 3, 3)


def test_pose_product_and_inverse_are_rigid_transforms() -> None:
    q = _random_quats(5, 6)
    p = np.concatenate([np.random.default_rng(7).normal(size=(5, 3)), q], axis=1)
    identity = pose_mul(p, pose_inverse(p))
    assert np.allclose(identity[:, :3], 0.0, atol=1e-12)
    assert np.allclose(np.abs(identity[:, 3]), 1.0, atol=1e-12)
    point = np.array([0.1, -0.2, 0.3])
    child = np.concatenate([np.tile(point, (5, 1)), np.tile([1.0, 0, 0, 0], (5, 1))], axis=1)
    assert np.allclose(pose_mul(p, child)[:, :3], p[:, :3] + quat_rotate(q, np.tile(point, (5, 1))), atol=1e-12)


def test_normalize_quat_scales_to_unit_length_and_refuses_zero() -> None:
    out = normalize_quat(np.array([[2.0, 0, 0, 0], [1.0, 1.0, 0, 0]]))
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)
    with pytest.raises(SimuloValueError, match=r"index \[1\]"):
        normalize_quat(np.array([[1.0, 0, 0, 0], [0.0, 0, 0, 0]]))


def test_quat_to_matrix_refuses_a_zero_quaternion() -> None:
    with pytest.raises(SimuloValueError, match="zero length"):
        quat_to_matrix(np.zeros(4))
