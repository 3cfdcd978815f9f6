"""Damped-least-squares IK building blocks (pure numpy, no simulation)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulo.apps.pick_place.ik import solve_ik
from simulo.apps.pick_place.kinematics import forward_kinematics
from simulo.apps.pick_place.numeric_ik import (
    dls_step,
    down_rotation,
    hand_yaw,
    orientation_error,
    pose_error,
    quat_to_matrix,
)
from simulo.errors import ShapeError, SimuloValueError


def _rz(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def test_quat_to_matrix_of_a_yaw_is_rz() -> None:
    half = 0.35
    quat = np.array([[math.cos(half), 0.0, 0.0, math.sin(half)]])
    np.testing.assert_allclose(quat_to_matrix(quat)[0], _rz(0.7), atol=1e-12)


def test_quat_to_matrix_normalises_and_checks_shape() -> None:
    np.testing.assert_allclose(quat_to_matrix(np.array([[2.0, 0.0, 0.0, 0.0]]))[0], np.eye(3))
    with pytest.raises(ShapeError, match=r"\(N, 4\)"):
        quat_to_matrix(np.zeros(4))


def test_orientation_error_is_the_rotation_vector_between_frames() -> None:
    current = np.stack([np.eye(3), _rz(0.2), np.eye(3)])
    desired = np.stack([_rz(0.5), _rz(-0.1), np.diag([-1.0, -1.0, 1.0])])  # the last is a half turn about z
    err = orientation_error(current, desired)
    np.testing.assert_allclose(err[0], [0.0, 0.0, 0.5], atol=1e-12)
    np.testing.assert_allclose(err[1], [0.0, 0.0, -0.3], atol=1e-12)
    np.testing.assert_allclose(np.abs(err[2]), [0.0, 0.0, math.pi], atol=1e-9)
    np.testing.assert_allclose(orientation_error(desired, desired), 0.0, atol=1e-12)


def test_pose_error_stacks_position_then_rotation() -> None:
    err = pose_error(np.zeros((1, 3)), np.eye(3)[None], np.array([[0.1, -0.2, 0.3]]), _rz(0.25)[None])
    np.testing.assert_allclose(err, [[0.1, -0.2, 0.3, 0.0, 0.0, 0.25]], atol=1e-12)


def test_dls_step_without_damping_solves_a_square_system() -> None:
    rng = np.random.default_rng(3)
    jac = rng.normal(size=(4, 5, 5))
    err = rng.normal(size=(4, 5))
    dq = dls_step(jac, err, damping=0.0)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", jac, dq), err, atol=1e-9)


def test_dls_step_damping_bounds_the_step_at_a_singularity() -> None:
    jac = np.zeros((1, 6, 5))
    jac[0, 0, 0] = 1e-6  # nearly singular: the pseudo-inverse would take a step of 1e6 * error
    dq = dls_step(jac, np.array([[1.0, 0, 0, 0, 0, 0]]), damping=0.01)
    assert abs(dq[0, 0]) < 0.02


def test_dls_step_rejects_bad_shapes_and_damping() -> None:
    with pytest.raises(ShapeError, match=r"\(N, m, n\)"):
        dls_step(np.zeros((6, 5)), np.zeros(6))
    with pytest.raises(SimuloValueError, match="damping must be a finite number >= 0, got -1"):
        dls_step(np.zeros((1, 6, 5)), np.zeros((1, 6)), damping=-1)


def test_hand_yaw_picks_the_quarter_turn_nearest_the_reference() -> None:
    x, y, yaw = np.array([1.0]), np.array([0.0]), np.array([0.1])
    assert hand_yaw(x, y, yaw)[0] == pytest.approx(0.1)  # bearing 0
    assert hand_yaw(x, y, yaw, reference=np.array([1.5]))[0] == pytest.approx(0.1 + math.pi / 2)
    assert hand_yaw(np.array([0.0]), np.array([1.0]), yaw)[0] == pytest.approx(0.1 + math.pi / 2)  # bearing 90


@settings(max_examples=60, deadline=None)
@given(x=st.floats(0.25, 0.45), y=st.floats(-0.2, 0.2), z=st.floats(0.03, 0.15), yaw=st.floats(-3.0, 3.0))
def test_down_rotation_of_hand_yaw_matches_the_closed_form_pose(x: float, y: float, z: float, yaw: float) -> None:
    """The numeric solver aims at the same hand orientation the closed-form IK reaches."""
    _, rotation = forward_kinematics(solve_ik(x, y, z, yaw))
    target = down_rotation(hand_yaw(np.array([x]), np.array([y]), np.array([yaw])))[0]
    np.testing.assert_allclose(rotation, target, atol=1e-9)
