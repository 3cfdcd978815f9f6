"""``ArticulationBatch.apply_efforts`` on both engines: new torques sent on their own act exactly as a full ``apply``
of the same commands with those torques, beside running position motors and with environments whose modes differ."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.registry import create_engine

ARM = Path(simulo.Asset.from_registry("simulo/robot/pick_arm:v1").urdf_path())
ENVS = 3


def _modes(kind: str, joints: int) -> np.ndarray:
    modes = np.full((ENVS, joints), int(ControlMode.TORQUE), dtype=np.int8)
    if kind == "mixed":  # environments 0 and 1: the first four joints on position motors; 2: torques only
        modes[:2, :4] = int(ControlMode.POSITION_MOTOR)
    return modes


def _run(engine: str, kind: str, efforts_alone: bool) -> bytes:
    """60 steps, new random torques before each, every other command as the first step's."""
    world = create_engine(engine, ENVS, 1.0 / 240.0, (0.0, 0.0, -9.81), 16, None)
    try:
        poses = np.array([[2.0 * i, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0] for i in range(ENVS)])
        arm = world.add_articulation(ARM, poses, True)
        joints = len(arm.joints)
        modes, rng = _modes(kind, joints), np.random.default_rng(5)
        position = rng.uniform(-0.4, 0.4, (ENVS, joints))
        zeros, ones = np.zeros((ENVS, joints)), np.ones((ENVS, joints))
        for k in range(60):
            torque = np.where(modes == int(ControlMode.TORQUE), rng.uniform(-2.0, 2.0, (ENVS, joints)), 0.0)
            if efforts_alone and k:
                arm.apply_efforts(torque)
            else:
                arm.apply(modes, position, zeros, ones * 20.0, ones * 0.3, ones, torque)
            world.step()
        q, qd, effort = (np.zeros((ENVS, joints)) for _ in range(3))
        arm.read_joints(q, qd, effort)
        assert np.abs(q).max() > 0.05  # the arm moved
        return q.tobytes() + qd.tobytes() + effort.tobytes()
    finally:
        world.close()


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
@pytest.mark.parametrize("kind", ["torques", "mixed"])
def test_new_torques_sent_alone_act_as_a_full_apply_of_the_same_commands(engine: str, kind: str) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    assert _run(engine, kind, efforts_alone=True) == _run(engine, kind, efforts_alone=False)
