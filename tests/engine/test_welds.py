"""The engines' welds (``Engine.add_welds``) keep one contract: a weld holds a rigid object where it was when
attached, reports the force it applies to that object in world axes, and lets go when detached."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.registry import create_engine
from simulo.errors import SimuloValueError

GANTRY = Path(simulo.__file__).parent / "authoring" / "catalog" / "pick_and_place.urdf"


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_a_weld_holds_a_tilted_cube_reports_its_force_and_releases_it(engine) -> None:
    world = create_engine(engine, 2, 1.0 / 240.0, (0.0, 0.0, -9.81), 16, None)
    try:
        robot = world.add_articulation(GANTRY, np.tile([0, 0, 0, 1, 0, 0, 0.0], (2, 1)), True)
        c, s = np.cos(0.3), np.sin(0.3)  # tilted 0.6 rad about y, hanging 6 cm below the cup's link
        poses = np.array([[0.05, 0.0, 0.8, c, 0.0, s, 0.0], [0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0]])
        cube = world.add_rigid("box", (0.025, 0.025, 0.025), 0.5, poses)
        welds = world.add_welds(robot, list(robot.body_names).index("suction_cup"))
        joints = len(robot.joints)
        hold = np.full((2, joints), int(ControlMode.POSITION_MOTOR), dtype=np.int8)
        robot.apply(hold, np.zeros((2, joints)), np.zeros((2, joints)), np.full((2, joints), 400.0),
                    np.full((2, joints), 0.1), np.full((2, joints), 1.0), np.zeros((2, joints)))
        welds.attach([0], cube)
        for _ in range(240):
            cube.apply_force([0], np.array([[3.0, 0.0, 0.0]]), np.zeros((1, 3)))  # a steady 3 N along +x
            world.step()
        now, lin, ang = np.zeros((2, 7)), np.zeros((2, 3)), np.zeros((2, 3))
        cube.read(now, lin, ang)
        np.testing.assert_allclose(now[0, :3], poses[0, :3], atol=2e-4)  # held where it was
        np.testing.assert_allclose(welds.forces(), [[-3.0, 0.0, 0.5 * 9.81], [0.0, 0.0, 0.0]], atol=0.02)
        welds.detach([0])
        for _ in range(24):
            world.step()
        cube.read(now, lin, ang)
        assert now[0, 2] < poses[0, 2] - 0.02 and welds.forces().tolist() == [[0.0] * 3] * 2  # let go: falling
    finally:
        world.close()


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_a_weld_holds_only_its_own_engines_objects(engine) -> None:
    world = create_engine(engine, 1, 1.0 / 240.0, (0.0, 0.0, -9.81), 16, None)
    try:
        robot = world.add_articulation(GANTRY, np.array([[0, 0, 0, 1, 0, 0, 0.0]]), True)
        welds = world.add_welds(robot, 4)
        with pytest.raises(SimuloValueError, match="weld holds a .* rigid batch, got object"):
            welds.attach([0], object())  # type: ignore[arg-type]
    finally:
        world.close()
