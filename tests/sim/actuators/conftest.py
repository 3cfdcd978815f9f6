"""Fixtures of the gripper tests: a lifting two-finger hand, the catalog gantry, and both engines."""

from __future__ import annotations

import pytest

import simulo

#: A hand on a vertical slide (``lift``, 0..0.3 m) with two prismatic fingers along y, left ``finger_l`` (+y) and
#: right ``finger_r`` (-y), each finger's inner face at its position's distance from the centre line (0..0.05 m).
#: At lift 0 the fingers reach from 5 mm to 85 mm above the ground.
HAND_URDF = """<?xml version="1.0"?>
<robot name="hand">
  <link name="base">
    <inertial><mass value="10"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
  <link name="palm">
    <inertial><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
    <collision><origin xyz="0 0 0.07"/><geometry><box size="0.06 0.14 0.02"/></geometry></collision>
  </link>
  <link name="left">
    <inertial><mass value="0.05"/><inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial>
    <collision><origin xyz="0 0.005 0"/><geometry><box size="0.03 0.01 0.08"/></geometry></collision>
  </link>
  <link name="right">
    <inertial><mass value="0.05"/><inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial>
    <collision><origin xyz="0 -0.005 0"/><geometry><box size="0.03 0.01 0.08"/></geometry></collision>
  </link>
  <joint name="lift" type="prismatic">
    <parent link="base"/><child link="palm"/><origin xyz="0 0 0.045"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.3" effort="100" velocity="0.5"/>
  </joint>
  <joint name="finger_l" type="prismatic">
    <parent link="palm"/><child link="left"/><origin xyz="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="0.05" effort="20" velocity="0.1"/>
  </joint>
  <joint name="finger_r" type="prismatic">
    <parent link="palm"/><child link="right"/><origin xyz="0 0 0"/><axis xyz="0 -1 0"/>
    <limit lower="0" upper="0.05" effort="20" velocity="0.1"/>
  </joint>
</robot>
"""

ENGINES = ["pybullet", "mujoco"]


@pytest.fixture(scope="session")
def hand() -> simulo.Asset:
    """The lifting two-finger hand (fixed base; joints lift, finger_l, finger_r)."""
    return simulo.Asset.from_urdf_string(HAND_URDF)


@pytest.fixture(scope="session")
def gantry() -> simulo.Asset:
    """The catalog pick-and-place gantry with its SurfaceGripper frame."""
    return simulo.Asset.from_registry("simulo/robot/pick-and-place:v1")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine under test."""
    return str(request.param)
