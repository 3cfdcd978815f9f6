"""On Warp's CPU device the MuJoCo Warp engine is deterministic: the same commands give the same bytes, run after
run and for any number of worlds beside an environment.

Warp runs a CPU kernel's threads one after another, so its atomics add in one order; on a GPU they add in the
order the threads arrive, which is why GPU runs are only repeatable to a tolerance (docs/engines.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco_warp")

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.mujoco_warp.engine import MuJoCoWarpEngine

ARM = Path(simulo.Asset.from_registry("simulo/robot/pick_arm:v1").urdf_path())
STEPS = 120


def _run(num_envs: int) -> tuple[np.ndarray, np.ndarray]:
    """Joint positions of an arm on position targets (num_envs, J) and the poses of cubes dropped beside it, after
    STEPS steps: contacts, the motor law and the constraint solver all take part."""
    world = MuJoCoWarpEngine(num_envs, 1.0 / 240.0, device="cpu")
    try:
        world.add_plane(0.0, None, None)
        offsets = np.array([[3.0 * i, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] for i in range(num_envs)])
        arm = world.add_articulation(ARM, offsets + [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], True)
        cube = world.add_rigid("box", [0.04, 0.04, 0.04], 0.2, offsets + [0.4, 0.1, 0.3, 1.0, 0.0, 0.0, 0.0])
        joints = len(arm.joints)
        rng = np.random.default_rng(7)
        targets = np.tile(rng.uniform(-0.6, 0.6, joints), (num_envs, 1))  # the same in every world
        modes = np.full((num_envs, joints), int(ControlMode.POSITION_MOTOR), dtype=np.int8)
        zeros, ones = np.zeros((num_envs, joints)), np.ones((num_envs, joints))
        for _ in range(STEPS):
            arm.apply(modes, targets, zeros, ones * 50.0, ones * 0.1, ones, zeros)
            world.step()
        q, qd, effort = (np.zeros((num_envs, joints)) for _ in range(3))
        arm.read_joints(q, qd, effort)
        poses, lin_vel, ang_vel = np.zeros((num_envs, 7)), np.zeros((num_envs, 3)), np.zeros((num_envs, 3))
        cube.read(poses, lin_vel, ang_vel)
        return q, poses - offsets
    finally:
        world.close()


@pytest.mark.slow
def test_the_same_commands_give_the_same_bytes_run_after_run() -> None:
    first, again = _run(3), _run(3)
    assert np.abs(first[1][:, 2] - 0.04).max() < 1e-3  # the cubes (0.04 m half sides) fell and rest on the ground
    for a, b in zip(first, again):
        assert a.tobytes() == b.tobytes()


@pytest.mark.slow
def test_an_environment_does_not_depend_on_how_many_worlds_step_beside_it() -> None:
    fewer, more = _run(2), _run(4)
    for a, b in zip(fewer, more):  # the worlds at the same places end on the same bytes
        assert a.tobytes() == b[:2].tobytes()
