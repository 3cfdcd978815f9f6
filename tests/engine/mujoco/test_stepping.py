"""The MuJoCo engine's step: what a command or a push acts on (one step, its own environment), and the same bytes
for every grouping and thread count when environments mix torques, motors, passive joints and held props."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.mujoco.engine import MuJoCoEngine

pytest.importorskip("mujoco")

ARM = simulo.Asset.from_registry("simulo/robot/pick_arm:v1")
IDENTITY = [1.0, 0.0, 0.0, 0.0]
DT = 1.0 / 240.0
JOINTS = 7


def _scene(num_envs: int, **engine_kw: object) -> tuple[MuJoCoEngine, object, object]:
    engine = MuJoCoEngine(num_envs, DT, **engine_kw)  # type: ignore[arg-type]
    engine.add_plane(0.0, None, None)
    poses = np.array([[2.0 * i, 0.0, 0.0, *IDENTITY] for i in range(num_envs)])
    arm = engine.add_articulation(Path(ARM.urdf_path()), poses, fixed_base=True)
    cubes = engine.add_rigid("box", [0.02, 0.02, 0.02], 0.1,
                             np.array([[2.0 * i + 0.4, 0.0, 0.3, *IDENTITY] for i in range(num_envs)]))
    return engine, arm, cubes


def _apply(arm: object, modes: np.ndarray, torque: np.ndarray, position: np.ndarray) -> None:
    ones = np.ones(modes.shape)
    arm.apply(modes, position, ones * 0.0, ones * 20.0, ones * 0.3, ones, torque)  # type: ignore[attr-defined]


def _state(engine: MuJoCoEngine, arm: object, cubes: object) -> bytes:
    n = engine.num_envs
    q, qd, effort = (np.zeros((n, JOINTS)) for _ in range(3))
    arm.read_joints(q, qd, effort)  # type: ignore[attr-defined]
    pose, lin, ang = np.zeros((n, 7)), np.zeros((n, 3)), np.zeros((n, 3))
    cubes.read(pose, lin, ang)  # type: ignore[attr-defined]
    return q.tobytes() + qd.tobytes() + effort.tobytes() + pose.tobytes() + lin.tobytes()


def _run_one_step_of_torque(then_zero: bool, torque: float) -> bytes:
    """A torque on every joint for one step, then passive joints for 30 steps (or explicit zero torques)."""
    engine, arm, cubes = _scene(2)
    try:
        modes = np.full((2, JOINTS), int(ControlMode.TORQUE), dtype=np.int8)
        _apply(arm, modes, np.full((2, JOINTS), torque), np.zeros((2, JOINTS)))
        engine.step()
        for _ in range(30):
            if then_zero:
                _apply(arm, modes, np.zeros((2, JOINTS)), np.zeros((2, JOINTS)))
            else:
                _apply(arm, np.zeros((2, JOINTS), dtype=np.int8), np.zeros((2, JOINTS)), np.zeros((2, JOINTS)))
            engine.step()
        return _state(engine, arm, cubes)
    finally:
        engine.close()


def test_a_torque_acts_for_one_step_only() -> None:
    passive_after = _run_one_step_of_torque(then_zero=False, torque=3.0)
    assert passive_after == _run_one_step_of_torque(then_zero=True, torque=3.0)
    assert passive_after != _run_one_step_of_torque(then_zero=False, torque=0.0)


def test_a_push_acts_for_one_step_on_its_own_environment() -> None:
    engine, _, cubes = _scene(2)
    try:
        cubes.apply_force([1], np.array([[0.0, 5.0, 0.0]]), np.zeros((1, 3)))  # type: ignore[attr-defined]
        for _ in range(30):  # the cubes fall freely: no contact in 30 steps
            engine.step()
        pose, lin, ang = np.zeros((2, 7)), np.zeros((2, 3)), np.zeros((2, 3))
        cubes.read(pose, lin, ang)  # type: ignore[attr-defined]
        np.testing.assert_allclose(lin[:, 1], [0.0, 5.0 * DT / 0.1], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(lin[:, 2], [-9.81 * DT * 30] * 2, rtol=1e-6)
    finally:
        engine.close()


def _mixed_run(envs_per_world: int, threads: int) -> bytes:
    """Six environments: torques, position motors, passive joints and a mode switch, a velocity limit, a
    switched-off cube held in place, a push, per-environment masses."""
    engine, arm, cubes = _scene(6, envs_per_world=envs_per_world, threads=threads)
    try:
        arm.set_joint_properties(1, max_velocity=0.5)  # type: ignore[attr-defined]
        arm.set_link_masses([4], arm.link_masses()[[4]] * 1.5)  # type: ignore[attr-defined]
        cubes.set_enabled([2, 5], False)  # type: ignore[attr-defined]
        rng = np.random.default_rng(11)
        modes = np.zeros((6, JOINTS), dtype=np.int8)
        modes[[0, 3]] = int(ControlMode.TORQUE)
        modes[[1, 4]] = int(ControlMode.POSITION_MOTOR)
        for k in range(80):
            if k == 40:  # environment 0 switches from torques to motors, 1 from motors to torques, 2 wakes up
                modes[0], modes[1], modes[2] = (int(ControlMode.POSITION_MOTOR), int(ControlMode.TORQUE),
                                                int(ControlMode.TORQUE))
            _apply(arm, modes, rng.uniform(-2.0, 2.0, (6, JOINTS)), rng.uniform(-0.5, 0.5, (6, JOINTS)))
            if k % 10 == 0:
                arm.apply_link_forces([3], rng.uniform(-5, 5, (1, 3)), np.zeros((1, 3)))  # type: ignore[attr-defined]
            engine.step()
        return _state(engine, arm, cubes)
    finally:
        engine.close()


def test_mixed_commands_give_the_same_bytes_for_any_grouping_and_thread_count() -> None:
    runs = [_mixed_run(per_world, threads) for per_world, threads in ((16, 1), (1, 2), (4, 2))]
    assert runs[0] == runs[1] == runs[2]


def test_reads_of_one_environment_through_kept_views_give_its_data_after_every_step() -> None:
    """The humanoid at N = 1 (a floating base, joint columns scattered in qpos): joint, base and body-pose reads
    after each step and a teleport, which from the first step on go through views of its data kept by the batch,
    match reads from the data itself and the reads of the environment by index."""
    engine = MuJoCoEngine(1, DT)
    try:
        engine.add_plane(0.0, None, None)
        asset = simulo.Asset.from_registry("simulo/robot/humanoid:v1")
        robot = engine.add_articulation(Path(asset.urdf_path()), np.array([[0.0, 0.0, 1.4, *IDENTITY]]), False,
                                        inertia_from_file=asset.inertia_from_file)
        joints, rng = len(robot.joints), np.random.default_rng(2)
        modes = np.full((1, joints), int(ControlMode.TORQUE), dtype=np.int8)
        data = engine._worlds.datas[0]
        hand = robot.body_pose_reader(len(robot.body_names) - 1)
        assert hand().tobytes() == robot.read_bodies([len(robot.body_names) - 1], [0], False)[0][:, 0].tobytes()
        for k in range(40):
            if k == 20:
                robot.write_joints([0], np.full((1, joints), 0.1), np.zeros((1, joints)))  # a teleport
                assert hand().tobytes() == robot.read_bodies([len(robot.body_names) - 1], [0], False)[0][:, 0].tobytes()
            robot.apply(modes, *(np.zeros((1, joints)),) * 5, rng.uniform(-20.0, 20.0, (1, joints)))
            engine.step()
            q, qd, effort = (np.zeros((1, joints)) for _ in range(3))
            robot.read_joints(q, qd, effort)
            assert q.tobytes() == data.qpos[robot.qadr].tobytes() and qd.tobytes() == data.qvel[robot.dofs].tobytes()
            kept, by_index = [(np.zeros((1, 7)), np.zeros((1, 3)), np.zeros((1, 3))) for _ in range(2)]
            robot.read_base(*kept)
            robot.read_base(*by_index, env_ids=[0])
            assert b"".join(a.tobytes() for a in kept) == b"".join(a.tobytes() for a in by_index)
            assert kept[0].tobytes() == data.qpos[robot.free_q:robot.free_q + 7].tobytes()
            pose = hand()
            assert pose.tobytes() == robot.read_bodies([len(robot.body_names) - 1], [0], False)[0][:, 0].tobytes()
        assert robot._rows is not None and robot._rows[1] is not None and robot._base_rows is not None
    finally:
        engine.close()
