"""Dimensions and joint limits of the pick-and-place arm.

The arm is a base yaw joint, three pitch joints (shoulder, elbow, wrist) about the turret's y axis and a
wrist roll about the hand's own axis, with two prismatic fingers that slide along the hand's y axis and a
fixed tool centre point (tcp) between the finger pads. With every joint at zero the arm points straight up
and each joint origin lies on the local z axis of its parent link. All lengths are in metres, angles in
radians.
"""

from __future__ import annotations

import math

from simulo.checks import check_real
from simulo.errors import SimuloValueError
from simulo.frozen import frozen_dataclass


@frozen_dataclass
class ArmGeometry:
    """Link offsets and joint limits of the five-joint arm with a parallel gripper.

    Attributes:
        base_to_turret: Height of the base yaw joint above the base origin (the floor).
        turret_to_shoulder: Height of the shoulder pitch axis above the base yaw joint.
        upper_arm: Shoulder axis to elbow axis.
        forearm: Elbow axis to wrist pitch axis.
        wrist_to_hand: Wrist pitch axis to the wrist roll joint (the hand plate origin).
        hand_to_tcp: Hand plate origin to the tool centre point, along the hand's z axis.
        hand_to_finger: Hand plate origin to the finger joints, along the hand's z axis.
        finger_length: Length of each finger along the hand's z axis, from its joint to its tip.
        finger_travel: Lower and upper limit of each finger's opening (distance from the centre line).
        base_yaw_limit: Symmetric limit of the base yaw joint.
        shoulder_limit: Symmetric limit of the shoulder pitch joint.
        elbow_limit: Symmetric limit of the elbow pitch joint.
        wrist_pitch_limit: Symmetric limit of the wrist pitch joint.
        wrist_roll_limit: Symmetric limit of the wrist roll joint.
    """

    base_to_turret: float = 0.1
    turret_to_shoulder: float = 0.1
    upper_arm: float = 0.30
    forearm: float = 0.25
    wrist_to_hand: float = 0.04
    hand_to_tcp: float = 0.055
    hand_to_finger: float = 0.02
    finger_length: float = 0.06
    finger_travel: tuple[float, float] = (0.0, 0.05)
    base_yaw_limit: float = 3.14
    shoulder_limit: float = 1.6
    elbow_limit: float = 2.6
    wrist_pitch_limit: float = 2.6
    wrist_roll_limit: float = 3.14

    def __post_init__(self) -> None:
        for name in (
            "base_to_turret",
            "turret_to_shoulder",
            "upper_arm",
            "forearm",
            "wrist_to_hand",
            "hand_to_tcp",
            "hand_to_finger",
            "finger_length",
            "base_yaw_limit",
            "shoulder_limit",
            "elbow_limit",
            "wrist_pitch_limit",
            "wrist_roll_limit",
        ):
            value = getattr(self, name)
            check_real(value, f"ArmGeometry.{name}", 0, low_open=True)
        lo, hi = self.finger_travel
        if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo < hi):
            raise SimuloValueError(
                f"ArmGeometry.finger_travel must be (lower, upper) with 0 <= lower < upper, got {self.finger_travel!r}"
            )

    @property
    def shoulder_height(self) -> float:
        """Height of the shoulder pitch axis above the floor (0.20 m for the seed's arm)."""
        return self.base_to_turret + self.turret_to_shoulder

    @property
    def l_hand(self) -> float:
        """Wrist pitch axis to the tcp along the hand axis (0.095 m for the seed's arm)."""
        return self.wrist_to_hand + self.hand_to_tcp

    @property
    def finger_tip_below_tcp(self) -> float:
        """How far the finger tips reach beyond the tcp along the hand axis (0.025 m for the seed's arm)."""
        return self.hand_to_finger + self.finger_length - self.hand_to_tcp


PICK_ARM = ArmGeometry()
"""The seed's arm: shoulder 0.20 m above the floor, links of 0.30 m and 0.25 m, tcp 0.095 m past the wrist."""
