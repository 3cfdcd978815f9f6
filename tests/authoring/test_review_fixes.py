"""Regression tests for authoring-value validation found in review (each failed before its fix)."""

from __future__ import annotations

import pytest

import simulo
from simulo.errors import SimuloValueError


@pytest.mark.parametrize("limits", [5, ("a", 1.0), (0.0,), (0.0, 1.0, 2.0), (1.0, 0.0), (float("nan"), 1.0)])
def test_joint_config_limits_are_checked(limits):
    with pytest.raises(SimuloValueError, match=r"limits must be \(lower, upper\)"):
        simulo.JointConfig(name="j", limits=limits)


def test_joint_config_limits_accept_a_pair():
    assert simulo.JointConfig(name="j", limits=[-1, 2]).limits == [-1, 2]


def test_rigid_physics_friction_must_be_a_number():
    with pytest.raises(SimuloValueError, match="RigidPhysics.friction must be a finite number >= 0"):
        simulo.RigidPhysics(friction="a")


def test_cuboid_size_must_be_three_lengths():
    with pytest.raises(SimuloValueError, match=r"size must be \(x, y, z\)"):
        simulo.Cuboid(name="c", size=1)
