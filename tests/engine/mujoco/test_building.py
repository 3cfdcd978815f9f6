"""Building a MuJoCo scene: each compile carries every environment's state over, and makes the environments'
data only when something uses them (a compile that nothing reads before the next one makes none)."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.mujoco.engine import MuJoCoEngine

pytest.importorskip("mujoco")

ARM = simulo.Asset.from_registry("simulo/robot/pick_arm:v1")
IDENTITY = [1.0, 0.0, 0.0, 0.0]


def test_state_written_before_later_additions_is_kept() -> None:
    engine = MuJoCoEngine(3, 1.0 / 240.0)
    try:
        poses = np.array([[2.0 * i, 0.0, 0.0, *IDENTITY] for i in range(3)])
        arm = engine.add_articulation(Path(ARM.urdf_path()), poses, fixed_base=True)
        q = np.arange(21, dtype=float).reshape(3, 7) * 0.01
        arm.write_joints([0, 1, 2], q, -q)
        engine.add_plane(0.0, None, None)  # two compiles that read nothing in between
        arm.add_gear(5, 6, -1.0, 0.1, 50.0)
        cube = engine.add_rigid("box", [0.02, 0.02, 0.02], 0.1, np.array([[2.0 * i, 0.5, 0.3, *IDENTITY]
                                                                          for i in range(3)]))
        read_q, read_qd, effort = (np.zeros((3, 7)) for _ in range(3))
        arm.read_joints(read_q, read_qd, effort)
        np.testing.assert_array_equal(read_q, q)
        np.testing.assert_array_equal(read_qd, -q)
        pose, lin, ang = np.zeros((3, 7)), np.zeros((3, 3)), np.zeros((3, 3))
        cube.read(pose, lin, ang)
        np.testing.assert_array_equal(pose[:, :3], [[2.0 * i, 0.5, 0.3] for i in range(3)])
        base = np.zeros((3, 7))
        arm.read_base(base, np.zeros((3, 3)), np.zeros((3, 3)))
        np.testing.assert_array_equal(base, poses)
    finally:
        engine.close()


def test_building_and_batched_steps_make_no_environment_data(monkeypatch: pytest.MonkeyPatch) -> None:
    made = []
    real = mujoco.MjData

    def counting(model: mujoco.MjModel) -> mujoco.MjData:
        made.append(model)
        return real(model)

    monkeypatch.setattr(mujoco, "MjData", counting)
    num_envs = 40
    engine = MuJoCoEngine(num_envs, 1.0 / 240.0)
    try:
        for height in (0.0, -1.0, -2.0):
            engine.add_plane(height, None, None)
        arm = engine.add_articulation(Path(ARM.urdf_path()), np.array([[2.0 * i, 0.0, 0.0, *IDENTITY]
                                                                       for i in range(num_envs)]), fixed_base=True)
        engine.step()
        # the state lives in the batched step's arrays: one scratch data per compile and per stepping thread, none
        # per environment (making them at every compile would have made 5 * 40)
        assert len(made) < 10
        before = len(made)
        modes = np.full((num_envs, 7), int(ControlMode.POSITION_MOTOR), dtype=np.int8)
        ones = np.ones((num_envs, 7))
        arm.apply(modes, ones * 0.1, ones * 0.0, ones * 20.0, ones * 0.3, ones, ones * 0.0)
        engine.step()  # a motor runs per environment: each one's data, once
        engine.step()
        assert len(made) - before == num_envs
    finally:
        engine.close()
