"""JointConfig.limits: a (lower, upper) pair of numbers with lower <= upper, or a clear SimuloValueError."""

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


@pytest.mark.parametrize("field", ["effort_limit", "velocity_limit", "damping"])
@pytest.mark.parametrize("value", [-1.0, float("nan"), float("inf"), "a", True])
def test_joint_config_limits_and_damping_must_be_finite_and_non_negative(field, value):
    with pytest.raises(SimuloValueError, match=rf"JointConfig\('j'\)\.{field} must be a finite number >= 0, got"):
        simulo.JointConfig(name="j", **{field: value})
