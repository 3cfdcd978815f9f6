"""The seed's pick arm (simulo/robot/pick_arm:v1) written as a UsdPhysics articulation loads with the catalog's
joints, limits and masses, and follows the same joint targets alike on both engines."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

import numpy as np

import simulo

from .test_usd_cartpole import _inertials
from .urdf_stage import write_stage

CATALOG = "simulo/robot/pick_arm:v1"

TOLERANCE = 1e-4
"""Largest difference in joint positions (rad, m) over the run. The stage holds lengths, masses and limits as
32-bit floats (relative differences near 1e-7), which the position motors' contact-free solve carries through;
the largest difference seen is 4.8e-6 on PyBullet and 1e-16 on MuJoCo."""


def _usd_arm(folder: Path) -> simulo.Asset:
    catalog = simulo.Asset.from_registry(CATALOG)
    return simulo.Asset.from_usd_file(write_stage(catalog.urdf_text, folder / "pick_arm.usda", fixed_base=True))


def test_usd_pick_arm_has_the_catalog_joints_limits_and_masses(tmp_path: Path) -> None:
    usd, urdf = _usd_arm(tmp_path), simulo.Asset.from_registry(CATALOG)
    assert usd.fixed_base is True and not usd.inertia_from_file  # the engine computes the inertia, as for the catalog
    assert usd.model.links == urdf.model.links and usd.model.root_link == "base_link"
    assert [j.name for j in usd.model.joints] == [j.name for j in urdf.model.joints]
    for ours, theirs in zip(usd.model.joints, urdf.model.joints):
        assert (ours.type, ours.parent, ours.child) == (theirs.type, theirs.parent, theirs.child)
        if theirs.limits is not None:
            assert ours.limits is not None
            assert (ours.limits.lower, ours.limits.upper, ours.limits.effort, ours.limits.velocity) == pytest.approx(
                (theirs.limits.lower, theirs.limits.upper, theirs.limits.effort, theirs.limits.velocity), rel=1e-6)
    ours_inertial, theirs_inertial = _inertials(usd.urdf_text), _inertials(urdf.urdf_text)
    for link, values in theirs_inertial.items():  # mass and centre of mass (the inertia is the engine's)
        mass, x, y, z = ours_inertial[link][:4]
        if link == "finger_right":  # its joint frame, and so its link frame, is turned half a turn about z (axis -y)
            x, y = -x, -y
        assert (mass, x, y, z) == pytest.approx(values[:4], rel=1e-6, abs=1e-9), link


def _trajectory(asset: simulo.Asset, engine: str) -> np.ndarray:
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(asset)
    scene.add(robot, at="/World/Arm")
    rows = []
    with simulo.Simulation(scene, engine=engine) as sim:
        for k in range(240):
            phase = 2 * math.pi * k / 240
            target = np.array([[0.8 * math.sin(phase), 0.6 * math.sin(phase), -0.9 * math.sin(phase),
                                0.5, 1.0 * math.sin(phase), 0.03, 0.03]])
            robot.set_joint_position_target(target)
            sim.step()
            rows.append(np.asarray(robot.state.joint_positions)[0].copy())
    return np.stack(rows)


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_usd_pick_arm_follows_targets_as_the_catalog_arm(tmp_path: Path, engine: str) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    ours = _trajectory(_usd_arm(tmp_path), engine)
    theirs = _trajectory(simulo.Asset.from_registry(CATALOG), engine)
    assert np.abs(theirs[120] - theirs[0]).max() > 0.3  # the arm moved
    assert np.abs(ours - theirs).max() < TOLERANCE
