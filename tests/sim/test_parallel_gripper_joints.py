"""ParallelGripper.joints: exactly two joint names, or a SimuloValueError that says so."""

from __future__ import annotations

import pytest

import simulo
from simulo.errors import SimuloValueError


def test_gripper_joints_must_be_two_names():
    with pytest.raises(SimuloValueError, match="ParallelGripper.joints must be two joint names"):
        simulo.ParallelGripper(joints=None)
    with pytest.raises(SimuloValueError, match="ParallelGripper.joints must be two joint names"):
        simulo.ParallelGripper(joints="ab")
