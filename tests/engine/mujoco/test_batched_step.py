"""The MuJoCo engine's batched step (one ``mujoco.rollout`` call over every environment): when it runs, that it
steps what the per-environment path steps, the same bytes for any thread count, the last step's contacts on
demand, and teleports written straight into its arrays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.mujoco.engine import MuJoCoEngine

mujoco = pytest.importorskip("mujoco")

IDENTITY = [1.0, 0.0, 0.0, 0.0]
DT = 1.0 / 120.0
TORQUE = int(ControlMode.TORQUE)


def _robot(ref: str, num_envs: int, height: float, first: int = 0, **engine_kw: object
           ) -> tuple[MuJoCoEngine, object]:
    """``num_envs`` copies 3 m apart along x, from the place of copy ``first`` on."""
    engine = MuJoCoEngine(num_envs, DT, **engine_kw)  # type: ignore[arg-type]
    engine.add_plane(0.0, None, None)
    asset = simulo.Asset.from_registry(ref)
    poses = np.array([[3.0 * (first + i), 0.0, height, *IDENTITY] for i in range(num_envs)])
    robot = engine.add_articulation(Path(asset.urdf_path()), poses, bool(asset.fixed_base),
                                    inertia_from_file=asset.inertia_from_file)
    return engine, robot


def _torques(robot: object, torque: np.ndarray) -> None:
    n, j = torque.shape
    zeros = np.zeros((n, j))
    robot.apply(np.full((n, j), TORQUE, dtype=np.int8), zeros, zeros, zeros, zeros, zeros, torque)  # type: ignore


def _joints(robot: object) -> tuple[np.ndarray, np.ndarray]:
    n, j = robot.num_envs, len(robot.joints)  # type: ignore[attr-defined]
    q, qd, effort = (np.zeros((n, j)) for _ in range(3))
    robot.read_joints(q, qd, effort)  # type: ignore[attr-defined]
    return q, qd


def _humanoid_run(num_envs: int, steps: int, **engine_kw: object) -> tuple[MuJoCoEngine, object]:
    """Humanoids dropped on the floor under random torques (contacts from about step 30 on)."""
    engine, robot = _robot("simulo/robot/humanoid:v1", num_envs, 1.34, **engine_kw)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        _torques(robot, rng.uniform(-30.0, 30.0, (num_envs, len(robot.joints))))  # type: ignore[attr-defined]
        engine.step()
    return engine, robot


def test_torque_driven_environments_are_stepped_by_the_batched_path() -> None:
    engine, _ = _humanoid_run(3, 2)
    try:
        assert engine._worlds.blocked
    finally:
        engine.close()


def test_one_environment_and_motors_are_stepped_per_environment() -> None:
    engine, robot = _robot("simulo/robot/cartpole:v1", 1, 2.0)
    try:
        _torques(robot, np.ones((1, 2)))
        engine.step()
        assert not engine._worlds.blocked
    finally:
        engine.close()
    engine, robot = _robot("simulo/robot/cartpole:v1", 2, 2.0)
    try:
        ones = np.ones((2, 2))
        robot.apply(np.full((2, 2), int(ControlMode.POSITION_MOTOR), dtype=np.int8), ones * 0.1, ones * 0.0,  # type: ignore
                    ones * 50.0, ones * 0.3, ones, ones * 0.0)
        engine.step()
        assert not engine._worlds.blocked
    finally:
        engine.close()


def test_the_batched_step_gives_the_bytes_of_mj_step_where_no_constraint_acts() -> None:
    """The cartpole, kept clear of its rail's ends: environment by environment, the batched run of four equals
    four runs of one environment (stepped per environment), bit for bit."""
    torques = np.random.default_rng(3).uniform(-5.0, 5.0, (60, 4, 2)) * np.array([1.0, 0.0])
    batched, robot = _robot("simulo/robot/cartpole:v1", 4, 2.0)
    try:
        for t in torques:
            _torques(robot, t)
            batched.step()
        assert batched._worlds.blocked
        together = _joints(robot)
    finally:
        batched.close()
    for i in range(4):
        alone, one = _robot("simulo/robot/cartpole:v1", 1, 2.0, first=i)
        try:
            for t in torques:
                _torques(one, t[i:i + 1])
                alone.step()
            q, qd = _joints(one)
        finally:
            alone.close()
        assert q.tobytes() == together[0][i:i + 1].tobytes() and qd.tobytes() == together[1][i:i + 1].tobytes()


def test_the_batched_step_gives_the_same_bytes_for_any_thread_count() -> None:
    runs = []
    for threads in (1, 2, 3):
        engine, robot = _humanoid_run(5, 150, threads=threads)
        try:
            assert engine._worlds.blocked
            q, qd = _joints(robot)
            pose, lin, ang = np.zeros((5, 7)), np.zeros((5, 3)), np.zeros((5, 3))
            robot.read_base(pose, lin, ang)  # type: ignore[attr-defined]
            runs.append(q.tobytes() + qd.tobytes() + pose.tobytes() + lin.tobytes() + ang.tobytes())
        finally:
            engine.close()
    assert runs[0] == runs[1] == runs[2]


def test_a_batched_step_is_mj_step_from_the_blocks_state_and_warm_start() -> None:
    """With contacts (humanoids on the floor), one batched step equals ``mj_step`` from the same state and the
    warm start the block carried, bit for bit."""
    engine, robot = _humanoid_run(2, 100)
    try:
        worlds = engine._worlds
        block = worlds.block
        assert worlds.blocked and block is not None
        state = block.state.copy()
        warm = block._warms[block._current].copy()
        _torques(robot, np.zeros((2, 21)))
        engine.step()
        batched = worlds.qvel_matrix().copy()
        for i, (m, d) in enumerate(zip(worlds.models, worlds.datas)):  # the data take the state after the step
            mujoco.mj_setState(m, d, state[i], mujoco.mjtState.mjSTATE_FULLPHYSICS)
            d.qacc_warmstart[:] = warm[i]
            d.qfrc_applied[:] = 0.0
            mujoco.mj_step(m, d)
            assert d.qvel.tobytes() == batched[i].tobytes()
    finally:
        engine.close()


def test_contacts_read_after_a_batched_step_are_that_steps_own() -> None:
    """The contact forces read right after a batched step equal those the per-environment step leaves in the data
    for the same step from the same state, bit for bit; every later step is taken per environment."""
    read, robot_a = _humanoid_run(3, 90)
    reference, robot_b = _humanoid_run(3, 89)
    try:
        assert reference._worlds.blocked
        reference._worlds.step_data()  # nothing to recompute yet: makes every later step a per-environment one
        last = np.random.default_rng(8).uniform(-30.0, 30.0, (3, 21))
        _torques(robot_b, last)
        reference.step()
        assert not reference._worlds.blocked
        bodies = list(range(len(robot_a.body_names)))  # type: ignore[attr-defined]
        expected = robot_b.contact_forces(bodies, None)  # type: ignore[attr-defined]
        # the reading engine took its 90th step batched, with the same torques
        read.close()
        read, robot_a = _humanoid_run(3, 89)
        _torques(robot_a, last)
        read.step()
        assert read._worlds.blocked
        got = robot_a.contact_forces(bodies, None)  # type: ignore[attr-defined]
        assert np.abs(expected).sum() > 1.0  # the humanoid lies on the floor
        assert got.tobytes() == expected.tobytes()
        assert _joints(robot_a)[0].tobytes() == _joints(robot_b)[0].tobytes()
        _torques(robot_a, last)
        read.step()
        assert not read._worlds.blocked  # from now on the data keep each step's contacts
    finally:
        read.close()
        reference.close()


def test_teleports_in_the_batched_path_write_the_state_of_the_named_environments() -> None:
    engine, robot = _humanoid_run(4, 3)
    try:
        assert engine._worlds.blocked
        before_q, before_qd = _joints(robot)
        ids = [3, 1]
        q = np.full((2, 21), 0.2)
        qd = np.full((2, 21), -0.5)
        robot.write_joints(ids, q, qd)  # type: ignore[attr-defined]
        poses = np.array([[1.0, 2.0, 1.5, 0.0, 0.0, 0.0, 2.0], [0.5, 0.0, 1.2, 1.0, 0.0, 0.0, 0.0]])
        robot.write_base_pose(ids, poses)  # type: ignore[attr-defined]
        velocities = np.array([[0.1, 0.2, 0.3, 1.0, -2.0, 0.5], [0.0, 0.0, 0.0, 0.0, 0.0, 3.0]])
        robot.write_base_velocity(ids, velocities)  # type: ignore[attr-defined]
        assert engine._worlds.blocked  # written into the block's arrays
        after_q, after_qd = _joints(robot)
        np.testing.assert_array_equal(after_q[ids], q)
        np.testing.assert_array_equal(after_qd[ids], qd)
        np.testing.assert_array_equal(after_q[[0, 2]], before_q[[0, 2]])
        np.testing.assert_array_equal(after_qd[[0, 2]], before_qd[[0, 2]])
        pose, lin, ang = np.zeros((4, 7)), np.zeros((4, 3)), np.zeros((4, 3))
        robot.read_base(pose, lin, ang)  # type: ignore[attr-defined]
        np.testing.assert_allclose(pose[ids], [[1.0, 2.0, 1.5, 0.0, 0.0, 0.0, 1.0], poses[1]], atol=1e-15)
        np.testing.assert_allclose(lin[ids], velocities[:, :3], atol=1e-15)
        np.testing.assert_allclose(ang[ids], velocities[:, 3:], atol=1e-12)
        data = engine._worlds.datas[3]  # the data take the block's state
        assert not engine._worlds.blocked
        np.testing.assert_array_equal(data.qpos[robot.qadr], q[0])  # type: ignore[attr-defined]
        by_index = np.zeros((4, 7)), np.zeros((4, 3)), np.zeros((4, 3))
        robot.read_base(*by_index, env_ids=[3])  # type: ignore[attr-defined]
        np.testing.assert_array_equal(by_index[0][3], pose[3])
        np.testing.assert_array_equal(by_index[2][3], ang[3])
    finally:
        engine.close()


def test_fixed_roots_keep_their_poses_through_batched_steps_and_resets() -> None:
    """A fixed robot root is a mocap body: a rollout would put it back to the model's pose unless the step
    carries every environment's own."""
    engine, robot = _robot("simulo/robot/cartpole:v1", 3, 2.0)
    try:
        _torques(robot, np.zeros((3, 2)))
        engine.step()
        assert engine._worlds.blocked
        robot.write_base_pose([2], np.array([[9.0, 1.0, 2.5, *IDENTITY]]))  # type: ignore[attr-defined]
        for _ in range(5):
            engine.step()
        pose, lin, ang = np.zeros((3, 7)), np.zeros((3, 3)), np.zeros((3, 3))
        robot.read_base(pose, lin, ang)  # type: ignore[attr-defined]
        np.testing.assert_array_equal(pose[:, :3], [[0.0, 0.0, 2.0], [3.0, 0.0, 2.0], [9.0, 1.0, 2.5]])
        bodies = robot.read_bodies([0], [0, 1, 2], False)[0][:, 0]  # type: ignore[attr-defined]
        np.testing.assert_allclose(bodies[:, :3], pose[:, :3], atol=1e-12)  # the data's own bodies stand there
    finally:
        engine.close()


def test_a_torque_switch_to_motors_and_back_gives_the_same_bytes_for_any_thread_count() -> None:
    def run(threads: int) -> bytes:
        engine, robot = _robot("simulo/robot/pick_arm:v1", 4, 0.0, threads=threads)
        try:
            rng = np.random.default_rng(1)
            ones = np.ones((4, 7))
            for k in range(60):
                if 20 <= k < 40:
                    robot.apply(np.full((4, 7), int(ControlMode.POSITION_MOTOR), dtype=np.int8),  # type: ignore
                                rng.uniform(-0.3, 0.3, (4, 7)), ones * 0.0, ones * 20.0, ones * 0.3, ones, ones * 0)
                else:
                    _torques(robot, rng.uniform(-1.0, 1.0, (4, 7)))
                engine.step()
            assert engine._worlds.blocked
            return b"".join(a.tobytes() for a in _joints(robot))
        finally:
            engine.close()

    assert run(1) == run(2) == run(3)


def test_the_stepping_threads_default_to_the_usable_cores_within_the_omp_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every usable core by default; ``OMP_NUM_THREADS`` caps it (Ray sets it to an actor's CPUs), and
    ``SIMULO_MUJOCO_THREADS`` or ``threads=`` choose; a bad value is refused."""
    from simulo.engine.mujoco.engine import THREADS_VARIABLE, usable_cores  # noqa: PLC0415
    from simulo.errors import SimuloValueError  # noqa: PLC0415

    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    cores = usable_cores()
    assert cores >= 1 and MuJoCoEngine(2, DT).threads == cores
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert usable_cores() == 1 and MuJoCoEngine(2, DT).threads == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    assert usable_cores() == cores
    monkeypatch.setenv(THREADS_VARIABLE, "3")
    assert MuJoCoEngine(2, DT).threads == 3
    assert MuJoCoEngine(2, DT, threads=5).threads == 5
    monkeypatch.setenv(THREADS_VARIABLE, "0")
    with pytest.raises(SimuloValueError, match=THREADS_VARIABLE):
        MuJoCoEngine(2, DT)
    with pytest.raises(SimuloValueError, match="threads must be a positive integer"):
        MuJoCoEngine(2, DT, threads=0)
