"""A USD joint drive's stiffness and damping become the joint's ideal PD drive, unless the robot says otherwise."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

import numpy as np
from pxr import UsdPhysics

import simulo
from simulo.errors import AssetError
from simulo.sim.actuators.ideal_pd import IdealPDDrive

from .stages import cartpole

PER_DEGREE = 180.0 / math.pi


def _drives(stage: Any, pole_stiffness: float = 2.0) -> None:
    cart = UsdPhysics.DriveAPI.Get(stage.GetPrimAtPath("/cartpole/joints/slider_to_cart"), "linear")
    cart.CreateStiffnessAttr(100.0)
    cart.CreateDampingAttr(10.0)
    pole = UsdPhysics.DriveAPI.Apply(stage.GetPrimAtPath("/cartpole/joints/cart_to_pole"), "angular")
    pole.CreateStiffnessAttr(pole_stiffness)
    pole.CreateDampingAttr(0.1)


def test_drive_gains_are_read_per_radian_and_per_metre(tmp_path: Path) -> None:
    asset = simulo.Asset.from_usd_file(cartpole(tmp_path, edit=_drives))
    gains = asset.drive_gains
    assert set(gains) == {"slider_to_cart", "cart_to_pole"}
    assert (gains["slider_to_cart"].stiffness, gains["slider_to_cart"].damping) == pytest.approx((100.0, 10.0))
    assert gains["cart_to_pole"].stiffness == pytest.approx(2.0 * PER_DEGREE)
    assert gains["cart_to_pole"].damping == pytest.approx(0.1 * PER_DEGREE)
    assert simulo.Asset.from_registry("simulo/robot/cartpole:v1").drive_gains == {}  # URDF: none


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_the_drives_hold_the_pole_and_the_robots_actuator_gains_override_them(tmp_path: Path, engine: str) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    asset = simulo.Asset.from_usd_file(cartpole(tmp_path, edit=lambda stage: _drives(stage, pole_stiffness=50.0)))
    finals = []
    for gains in (None, {"all_joints": simulo.ActuatorGainsConfig(stiffness=0.0, damping=0.0)}):
        scene = simulo.Scene(num_envs=1)
        robot = simulo.Robot(asset, actuator_gains=gains)
        scene.add(robot, at="/World/Cartpole")
        with simulo.Simulation(scene, engine=engine) as sim:
            (pd,) = [d for d in robot.data.drives if isinstance(d, IdealPDDrive)]
            pole = list(pd.cols).index(1)
            assert pd.stiffness[pole] == pytest.approx(50.0 * PER_DEGREE if gains is None else 0.0)
            robot.set_joint_state(np.array([[0.0, 0.3]]))
            robot.set_joint_position_target(np.zeros((1, 2)))
            sim.step(240)
            finals.append(float(np.asarray(robot.state.joint_positions)[0, 1]))
    assert abs(finals[0]) < 0.05  # the USD drive pulls the pole back to its target
    assert abs(finals[1]) > 0.5  # with the robot's zero gains it falls


def test_a_negative_drive_gain_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AssetError, match=r"cart_to_pole.*drive:angular:physics:stiffness is -1\.0; expected a finite"):
        simulo.Asset.from_usd_file(cartpole(tmp_path, edit=lambda stage: _drives(stage, pole_stiffness=-1.0)))
