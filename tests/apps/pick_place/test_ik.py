"""Closed-form IK of the pick arm, checked against independent forward kinematics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from simulo.apps.pick_place.geometry import PICK_ARM, ArmGeometry
from simulo.apps.pick_place.ik import reachable, solve_ik
from simulo.apps.pick_place.kinematics import arm_chain, forward_kinematics
from simulo.errors import NonFiniteError, ShapeError, SimuloValueError, UnreachableError


def test_geometry_matches_the_seed_constants_exactly() -> None:
    assert PICK_ARM.shoulder_height == 0.20
    assert PICK_ARM.l_hand == 0.095
    assert (PICK_ARM.upper_arm, PICK_ARM.forearm) == (0.30, 0.25)
    assert PICK_ARM.finger_tip_below_tcp == pytest.approx(0.025, abs=1e-15)
    assert PICK_ARM.finger_travel == (0.0, 0.05)


def test_geometry_rejects_bad_values() -> None:
    with pytest.raises(SimuloValueError, match="upper_arm"):
        ArmGeometry(upper_arm=-0.3)
    with pytest.raises(SimuloValueError, match="finger_travel"):
        ArmGeometry(finger_travel=(0.05, 0.0))


def test_fk_at_zero_points_straight_up() -> None:
    pos, rot = forward_kinematics([0, 0, 0, 0, 0])
    assert np.allclose(pos, [0, 0, 0.1 + 0.1 + 0.30 + 0.25 + 0.04 + 0.055], atol=1e-15)
    assert np.allclose(rot, np.eye(3), atol=1e-15)
    assert [j.name for j in arm_chain()] == ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll", "tcp_joint"]


def test_fk_positive_shoulder_leans_forward_along_x() -> None:
    pos, _ = forward_kinematics([0, math.pi / 2, 0, 0, 0])
    assert np.allclose(pos, [0.30 + 0.25 + 0.095, 0, 0.20], atol=1e-12)


def test_fk_rejects_bad_q() -> None:
    with pytest.raises(ShapeError, match=r"\(4,\)"):
        forward_kinematics([0, 0, 0, 0])
    with pytest.raises(NonFiniteError):
        forward_kinematics([0, math.nan, 0, 0, 0])


def test_seed_pick_pose() -> None:
    q = solve_ik(0.42, -0.12, 0.15, 0.3)
    assert isinstance(q, tuple) and len(q) == 5 and all(type(v) is float for v in q)
    assert q[0] == math.atan2(-0.12, 0.42)
    assert q[1] + q[2] + q[3] == pytest.approx(math.pi, abs=1e-15)
    assert -math.pi / 4 <= q[4] <= math.pi / 4
    pos, _ = forward_kinematics(q)
    assert np.allclose(pos, [0.42, -0.12, 0.15], atol=1e-12)


def test_numpy_scalars_give_the_same_bits_as_floats() -> None:
    point = (1 - 0.3) * np.array([0.42, -0.12, 0.15]) + 0.3 * np.array([0.42, -0.12, 0.03])
    assert solve_ik(*point, 0.3) == solve_ik(*(float(v) for v in point), 0.3)


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ((1.0, 0.0, 0.1), "out of reach: the wrist point"),
        ((0.0, 0.0, 0.105), "out of reach: the wrist point"),  # wrist point on the shoulder axis
        ((0.0, 0.0, 0.2), "elbow"),  # straight above the base: the elbow would fold past 2.6
        ((math.nan, 0.0, 0.1), "must be finite"),
        ((0.3, math.inf, 0.1), "must be finite"),
        ((-0.3, 0.0, 0.1), "base_yaw"),  # behind the robot: atan2 gives pi, the URDF limit is 3.14
        ((0.05, 0.0, 0.7), "shoulder"),  # close above the base: the shoulder would lean back past -1.6
    ],
)
def test_unreachable_targets_raise_naming_target_and_reason(target: tuple[float, float, float], why: str) -> None:
    with pytest.raises(UnreachableError, match="target") as info:
        solve_ik(*target, 0.0)
    assert why in str(info.value)
    assert not reachable(*target)


def test_non_numbers_are_rejected() -> None:
    with pytest.raises(SimuloValueError, match="x must be a real number"):
        solve_ik("near", 0.0, 0.1, 0.0)  # type: ignore[arg-type]


def test_unreachable_is_a_simulo_value_error() -> None:
    assert issubclass(UnreachableError, SimuloValueError)


def _yaw_mod_quarter(angle: float) -> float:
    """Distance of an angle from the nearest multiple of pi/2."""
    r = math.remainder(angle, math.pi / 2)
    return abs(r)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    x=st.floats(-0.7, 0.7),
    y=st.floats(-0.7, 0.7),
    z=st.floats(-0.1, 0.75),
    yaw=st.floats(-2 * math.pi, 2 * math.pi),
)
def test_fk_of_ik_reaches_target_pointing_down(x: float, y: float, z: float, yaw: float) -> None:
    assume(reachable(x, y, z))
    q = solve_ik(x, y, z, yaw)
    pos, rot = forward_kinematics(q)
    assert np.max(np.abs(pos - [x, y, z])) < 1e-9
    # hand z axis (from the plate to the finger tips) points straight down
    assert np.max(np.abs(rot[:, 2] - [0.0, 0.0, -1.0])) < 1e-9
    # the fingers slide along the hand's y axis: they close across grasp_yaw + 90 deg, modulo 90 deg
    finger_yaw = math.atan2(rot[1, 1], rot[0, 1])
    assert _yaw_mod_quarter(finger_yaw - (yaw + math.pi / 2)) < 1e-9
    # with the hand flipped, its yaw in the world is q1 - q5
    assert _yaw_mod_quarter(math.atan2(rot[1, 1], rot[0, 1]) - (q[0] - q[4] + math.pi / 2)) < 1e-9
    assert abs(q[4]) <= math.pi / 4 + 1e-12
    for angle, limit in zip(q[1:4], (1.6, 2.6, 2.6)):
        assert abs(angle) <= limit


def test_wrist_roll_uses_the_flipped_hand_sign() -> None:
    # q1 = 0 (target on +x) and grasp yaw 0.3: the wrist must roll by -0.3, not +0.3
    q = solve_ik(0.4, 0.0, 0.05, 0.3)
    assert q[0] == 0.0
    assert q[4] == pytest.approx(-0.3, abs=1e-15)
