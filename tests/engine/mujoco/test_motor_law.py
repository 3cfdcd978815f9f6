"""The MuJoCo motor law's batched box solve (the plain active-set answer), the step plan kept between steps and the
pose-only body read (faster paths that must give the same bytes as the plain computation)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.mujoco.commands import box_solve
from simulo.engine.mujoco.engine import MuJoCoEngine

pytest.importorskip("mujoco")

ARM = simulo.Asset.from_registry("simulo/robot/pick_arm:v1")
IDENTITY = [1.0, 0.0, 0.0, 0.0]
DT = 1.0 / 240.0


def _reference_box_solve(block: np.ndarray, rhs: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """The active-set method written plainly on numpy arrays (the law's first formulation)."""
    n = len(rhs)
    tau = np.linalg.solve(block, rhs)
    sign = np.zeros(n)
    for _ in range(4 * n):
        over = np.where(sign == 0, np.abs(tau) - limit, -np.inf)
        wants = sign * (block @ tau - rhs)
        if over.max() <= 0.0 and (wants <= 0.0).all():
            break
        if over.max() > 0.0:
            j = int(np.argmax(over))
            sign[j] = np.sign(tau[j])
        else:
            sign[int(np.argmax(wants))] = 0.0
        held = sign != 0
        tau[held] = sign[held] * limit[held]
        free = ~held
        if free.any():
            tau[free] = np.linalg.solve(block[np.ix_(free, free)], rhs[free] - block[np.ix_(free, held)] @ tau[held])
    return np.clip(tau, -limit, limit)


def test_the_batched_box_solve_gives_each_problem_the_plain_active_set_answer() -> None:
    rng = np.random.default_rng(5)
    saturated = 0
    for n in range(1, 10):
        roots = rng.normal(size=(40, n, n))
        block = roots @ roots.transpose(0, 2, 1) + 0.1 * np.eye(n)
        rhs = rng.normal(scale=3.0, size=(40, n))
        limit = rng.uniform(0.05, 2.0, size=(40, n))
        got = box_solve(block, rhs, limit)
        for b in range(40):
            expected = _reference_box_solve(block[b], rhs[b], limit[b])
            np.testing.assert_allclose(got[b], expected, rtol=1e-9, atol=1e-12)
            assert (np.abs(got[b]) <= limit[b]).all()
            if (np.abs(expected) < limit[b]).all():  # unsaturated: the same solve, the same bytes
                assert got[b].tobytes() == expected.tobytes()
            saturated += bool((np.abs(got[b]) == limit[b]).any())
    assert saturated > 200  # most problems exercise the active set, not only the unconstrained answer


def _arm_and_cube(num_envs: int) -> tuple[MuJoCoEngine, object, object]:
    engine = MuJoCoEngine(num_envs, DT)
    engine.add_plane(0.0, None, None)
    arm = engine.add_articulation(Path(ARM.urdf_path()),
                                  np.array([[2.0 * i, 0.0, 0.0, *IDENTITY] for i in range(num_envs)]),
                                  fixed_base=True)
    cube = engine.add_rigid("box", [0.02, 0.02, 0.02], 0.1,
                            np.array([[2.0 * i + 0.4, 0.0, 0.3, *IDENTITY] for i in range(num_envs)]))
    return engine, arm, cube


def _changing_run(replan_every_step: bool) -> bytes:
    """Torques, then position motors in one environment, a prop switched off, a velocity limit, wrenches read."""
    engine, arm, cube = _arm_and_cube(2)
    joints = len(arm.joints)  # type: ignore[attr-defined]
    rng = np.random.default_rng(3)
    modes = np.full((2, joints), int(ControlMode.TORQUE), dtype=np.int8)
    ones = np.ones((2, joints))
    out = []
    try:
        for k in range(60):
            if k == 15:
                modes[1] = int(ControlMode.POSITION_MOTOR)
            if k == 25:
                cube.set_enabled([0], False)  # type: ignore[attr-defined]
            if k == 35:
                arm.set_joint_properties(2, max_velocity=0.2)  # type: ignore[attr-defined]
            if k == 45:
                out.append(arm.joint_wrenches([1, 2]))  # type: ignore[attr-defined]
            arm.apply(modes, rng.uniform(-0.5, 0.5, (2, joints)), ones * 0.0, ones * 20.0,  # type: ignore[attr-defined]
                      ones * 0.3, ones, rng.uniform(-1.0, 1.0, (2, joints)))
            if replan_every_step:
                engine._plan_at = None  # the plan made afresh, as before it was kept
            engine.step()
        q, qd, effort = (np.zeros((2, joints)) for _ in range(3))
        arm.read_joints(q, qd, effort)  # type: ignore[attr-defined]
        pose, lin, ang = np.zeros((2, 7)), np.zeros((2, 3)), np.zeros((2, 3))
        cube.read(pose, lin, ang)  # type: ignore[attr-defined]
        out += [q, qd, effort, pose, lin, ang, arm.joint_wrenches([1, 2])]  # type: ignore[attr-defined]
        return b"".join(a.tobytes() for a in out)
    finally:
        engine.close()


def test_the_kept_step_plan_follows_modes_switched_off_props_limits_and_wrenches() -> None:
    assert _changing_run(replan_every_step=False) == _changing_run(replan_every_step=True)


def test_a_pose_read_then_a_velocity_read_give_what_a_velocity_read_alone_gives() -> None:
    runs = []
    for pose_first in (True, False):
        engine, arm, _ = _arm_and_cube(1)
        joints = len(arm.joints)  # type: ignore[attr-defined]
        modes = np.full((1, joints), int(ControlMode.TORQUE), dtype=np.int8)
        ones = np.ones((1, joints))
        try:
            arm.apply(modes, ones, ones, ones, ones, ones, ones * 0.5)  # type: ignore[attr-defined]
            for _ in range(5):
                engine.step()
            if pose_first:
                alone, _ = arm.read_bodies([3], [0], False)  # type: ignore[attr-defined]
            poses, vels = arm.read_bodies([3], [0], True)  # type: ignore[attr-defined]
            if pose_first:
                assert alone.tobytes() == poses.tobytes()
            runs.append(poses.tobytes() + vels.tobytes())
        finally:
            engine.close()
    assert runs[0] == runs[1]


def _torque_run(masses: bool = True, **engine_kw: object) -> bytes:
    engine = MuJoCoEngine(2, DT, **engine_kw)  # type: ignore[arg-type]
    engine.add_plane(0.0, None, None)
    arm = engine.add_articulation(Path(ARM.urdf_path()), np.array([[2.0 * i, 0.0, 0.0, *IDENTITY] for i in range(2)]),
                                  fixed_base=True)
    joints = len(arm.joints)
    modes = np.full((2, joints), int(ControlMode.TORQUE), dtype=np.int8)
    modes[1, ::2] = 0  # passive joints in environment 1
    ones = np.ones((2, joints))
    rng = np.random.default_rng(8)
    try:
        for k in range(40):
            if k == 20 and masses:  # environment 1 gets its own model (copied on this first per-environment edit)
                arm.set_link_masses([1], arm.link_masses()[[1]] * 3.0)
            arm.apply(modes, ones, ones, ones, ones, ones, rng.uniform(-1.0, 1.0, (2, joints)))
            engine.step()
        q, qd, effort = (np.zeros((2, joints)) for _ in range(3))
        arm.read_joints(q, qd, effort)
        return q.tobytes() + qd.tobytes() + effort.tobytes()
    finally:
        engine.close()


def test_the_plain_torque_step_gives_the_bytes_of_the_general_step() -> None:
    plain = _torque_run()  # one thread: the plan's plain path
    assert plain == _torque_run(envs_per_world=1, threads=2)  # a pool: every environment through the general step
    assert plain != _torque_run(envs_per_world=1, threads=2, masses=False)  # and the mass edit took effect
