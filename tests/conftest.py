"""Shared fixtures of the runtime tests: catalog assets, a small floating-base URDF, a scene builder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import simulo
from simulo.engine.mujoco.gl_backend import select_backend

# MuJoCo reads MUJOCO_GL once, when it is first imported, and test modules import it as they are collected: the
# engine's headless choice is made first, as an app's first use of the MuJoCo engine makes it.
select_backend()

#: A 2 kg box base (0.2 x 0.2 x 0.1 m) with one 0.5 kg arm on a vertical hinge at its +x edge.
FLOATER_URDF = """<?xml version="1.0"?>
<robot name="floater">
  <link name="base">
    <inertial>
      <mass value="2.0"/>
      <inertia ixx="0.0083" ixy="0" ixz="0" iyy="0.0083" iyz="0" izz="0.0133"/>
    </inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial>
      <origin xyz="0.15 0 0"/>
      <mass value="0.5"/>
      <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.004"/>
    </inertial>
    <collision>
      <origin xyz="0.15 0 0"/>
      <geometry><box size="0.3 0.04 0.04"/></geometry>
    </collision>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="base"/>
    <child link="arm"/>
    <origin xyz="0.1 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3.0" upper="3.0" effort="10" velocity="5"/>
  </joint>
</robot>
"""

ARM_Q = np.array([0.3, 0.5, -0.7, 0.4, 0.2, 0.01, 0.02])


@pytest.fixture(scope="session")
def cartpole() -> simulo.Asset:
    """The catalog cartpole (fixed base, slider_to_cart + cart_to_pole, spawn height 2 m)."""
    return simulo.Asset.from_registry("simulo/robot/cartpole:v1")


@pytest.fixture(scope="session")
def arm() -> simulo.Asset:
    """The catalog pick arm (fixed base, 5 arm joints, 2 prismatic fingers, a fixed tcp link)."""
    return simulo.Asset.from_registry("simulo/robot/pick_arm:v1")


@pytest.fixture(scope="session")
def floater() -> simulo.Asset:
    """The floating-base test robot (root link ``base``, one revolute joint ``hinge``)."""
    return simulo.Asset.from_urdf_string(FLOATER_URDF)


@pytest.fixture
def arm_q() -> np.ndarray:
    """A pick-arm configuration away from every singularity and limit (5 arm joints, 2 fingers)."""
    return ARM_Q.copy()


@pytest.fixture
def make() -> Any:
    """Factory ``make(asset, num_envs=1, plane=False, at=..., scene=..., sim=..., **robot_kwargs)``.

    Builds a scene with one robot (and a ground plane when asked) and a Simulation; returns
    ``(robot, sim)``. Every simulation made is closed after the test.
    """
    made: list[simulo.Simulation] = []

    def _make(asset: simulo.Asset, num_envs: int = 1, plane: bool = False, at: str = "/World/Robot",
              scene: dict[str, Any] | None = None, sim: dict[str, Any] | None = None,
              extra: Callable[[simulo.Scene], None] | None = None, **robot_kwargs: Any
              ) -> tuple[simulo.Robot, simulo.Simulation]:
        sc = simulo.Scene(num_envs=num_envs, **(scene or {}))
        if plane:
            sc.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
        robot = simulo.Robot(asset, **robot_kwargs)
        sc.add(robot, at=at)
        if extra is not None:
            extra(sc)
        simulation = simulo.Simulation(sc, **(sim or {}))
        made.append(simulation)
        return robot, simulation

    yield _make
    for s in made:
        s.close()

