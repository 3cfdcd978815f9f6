"""Primitive shapes and their physics: sizes, masses and friction are checked when the value is made."""

from __future__ import annotations

import pytest

import simulo
from simulo.errors import SimuloValueError


def test_rigid_physics_friction_must_be_a_number():
    with pytest.raises(SimuloValueError, match="RigidPhysics.friction must be a finite number >= 0"):
        simulo.RigidPhysics(friction="a")


@pytest.mark.parametrize("mass", [0, -1.0, float("nan"), True, "1"])
def test_rigid_physics_mass_must_be_a_positive_number(mass):
    with pytest.raises(SimuloValueError, match=r"RigidPhysics\.mass must be a finite number > 0, got"):
        simulo.RigidPhysics(mass=mass)


def test_cuboid_size_must_be_three_lengths():
    with pytest.raises(SimuloValueError, match=r"size must be \(x, y, z\)"):
        simulo.Cuboid(name="c", size=1)


def test_sphere_radius_must_be_positive():
    with pytest.raises(SimuloValueError, match=r"Sphere\('s'\)\.radius must be a finite number > 0, got 0"):
        simulo.Sphere(name="s", radius=0)
