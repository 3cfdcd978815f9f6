"""The catalog cartpole written as a UsdPhysics articulation loads as the catalog's URDF does, and moves alike."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

import numpy as np
from pxr import Gf

import simulo
from simulo.authoring.urdf_xml import parse

from .stages import cartpole

TOLERANCE = 1e-6
"""Largest difference in joint positions (m, rad) and velocities (m/s, rad/s) over the run: the USD file holds its
masses and inertias as 32-bit floats, the URDF as written decimals (relative differences near 1e-7); the largest
difference seen is 8e-8 on both engines."""


def _inertials(text: str) -> dict[str, tuple[float, ...]]:
    root, _ = parse(text)
    assert root is not None
    out: dict[str, tuple[float, ...]] = {}
    for link in root.findall("link"):
        inertial = link.find("inertial")
        assert inertial is not None
        mass, inertia, origin = inertial.find("mass"), inertial.find("inertia"), inertial.find("origin")
        assert mass is not None and inertia is not None
        xyz = tuple(float(v) for v in origin.attrib["xyz"].split()) if origin is not None else (0.0, 0.0, 0.0)
        out[link.attrib["name"]] = (float(mass.attrib["value"]), *xyz,
                                    *(float(inertia.attrib[k]) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")))
    return out


def test_usd_cartpole_has_the_catalog_joints_limits_masses_and_inertias(tmp_path: Path) -> None:
    usd = simulo.Asset.from_usd_file(cartpole(tmp_path))
    urdf = simulo.Asset.from_registry("simulo/robot/cartpole:v1")
    assert usd.name == "cartpole" and usd.fixed_base is True and usd.spawn_pose == urdf.spawn_pose
    assert usd.model.links == urdf.model.links and usd.model.root_link == "slider"
    assert len(usd.model.joints) == len(urdf.model.joints)
    for ours, theirs in zip(usd.model.joints, urdf.model.joints):
        assert (ours.name, ours.type, ours.parent, ours.child, ours.axis) == (
            theirs.name, theirs.type, theirs.parent, theirs.child, theirs.axis)
        assert ours.limits == theirs.limits
        assert ours.origin_xyz == pytest.approx(theirs.origin_xyz)
        assert ours.origin_rpy == pytest.approx(theirs.origin_rpy)
    ours_inertial, theirs_inertial = _inertials(usd.urdf_text), _inertials(urdf.urdf_text)
    assert ours_inertial.keys() == theirs_inertial.keys()
    for link, values in theirs_inertial.items():
        assert ours_inertial[link] == pytest.approx(values, rel=1e-6, abs=1e-12), link
    assert usd.inertia_from_file and usd.source_path is None


def test_from_usd_and_usd_are_from_usd_file(tmp_path: Path) -> None:
    path = cartpole(tmp_path)
    text = simulo.Asset.from_usd_file(path).urdf_text
    assert simulo.Asset.usd(path).urdf_text == text == simulo.Asset.from_usd(str(path)).urdf_text
    assert simulo.Asset.from_usd_file(path, fixed_base=False).fixed_base is False


def _trajectory(asset: simulo.Asset, engine: str) -> np.ndarray:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(asset)
    scene.add(robot, at="/World/Cartpole")
    rows = []
    with simulo.Simulation(scene, engine=engine) as sim:
        for k in range(60):
            robot.set_joint_effort_target(np.array([[20.0 * math.sin(0.3 * k), 0.0], [-15.0, 0.3]]))
            sim.step()
            state = robot.state
            rows.append(np.concatenate([np.asarray(state.joint_positions), np.asarray(state.joint_velocities)], 1))
    return np.stack(rows)


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
@pytest.mark.parametrize("turned", [False, True], ids=["as_catalog", "turned_joint_frame"])
def test_usd_cartpole_moves_as_the_catalog_cartpole(tmp_path: Path, engine: str, turned: bool) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    # turned: the pole's joint frame is turned 90° about z and its axis written as X, which is the same y axis
    half = math.sqrt(0.5)
    stage = (cartpole(tmp_path, pole_rot=Gf.Quatf(half, 0.0, 0.0, half), pole_axis="X") if turned
             else cartpole(tmp_path))
    ours = _trajectory(simulo.Asset.from_usd_file(stage), engine)
    theirs = _trajectory(simulo.Asset.from_registry("simulo/robot/cartpole:v1"), engine)
    assert np.abs(theirs[-1, :, :2]).max() > 0.05  # the cart and the pole moved
    assert np.abs(ours - theirs).max() < TOLERANCE
