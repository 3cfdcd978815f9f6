"""Catalog models that take PyBullet's inertia (``engine_inertia``) get the same link inertia on MuJoCo."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.engine.mujoco.inertia import box_inertia

pytest.importorskip("mujoco")

PANDA_HOME = [0.0, -0.569, 0.0, -2.810, 0.0, 3.037, 0.741, 0.04, 0.04]
ARM_Q = [0.3, 0.5, -0.7, 0.4, 0.2, 0.01, 0.02]


def _mass_matrix(ref: str, q: list[float], engine: str) -> np.ndarray:
    scene = simulo.Scene()
    robot = simulo.Robot(simulo.Asset.from_registry(ref))
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene, engine=engine):
        robot.set_joint_state(np.array([q]))
        return np.asarray(robot.get_mass_matrix())[0]


def test_a_box_has_the_textbook_moments() -> None:
    np.testing.assert_allclose(box_inertia(12.0, np.array([1.0, 2.0, 3.0])), [13.0, 10.0, 5.0])


@pytest.mark.parametrize(("ref", "q", "rtol"), [("simulo/robot/pick_arm:v1", ARM_Q, 0.02),
                                                ("simulo/robot/franka-panda:v1", PANDA_HOME, 0.1)])
def test_the_mass_matrix_is_pybullets(ref: str, q: list[float], rtol: float) -> None:
    # the Panda's file gives every link 0.1 kg m2: read as such, its wrist's diagonal entry is 0.2, not 0.005; on
    # MuJoCo its convex meshes are a little smaller than their hulls in PyBullet (up to 8.5 % on the diagonal)
    pybullet, mujoco = (np.diag(_mass_matrix(ref, q, e)) for e in ("pybullet", "mujoco"))
    np.testing.assert_allclose(mujoco, pybullet, rtol=rtol)
