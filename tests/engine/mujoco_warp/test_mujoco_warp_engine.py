"""The MuJoCo Warp engine on Warp's CPU device: the catalog cartpole and pick arm follow the MuJoCo engine's
trajectories for the same commands, state reads and writes round-trip, and what the engine does not support
raises its one clear error.

Warp computes in float32 and MuJoCo in float64, so trajectories are compared within a stated tolerance, not bit
for bit. The first step of a process compiles Warp's kernels (about 20 s on 2 cores); Warp keeps them in its
kernel cache (``warp.config.kernel_cache_dir``, by default ``~/.cache/warp/<version>``), which every test here and
every later run shares, so only the first compiling test of a fresh machine pays for it (marked slow).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("mujoco_warp")

import simulo
from simulo.engine import registry
from simulo.engine.base import ControlMode
from simulo.engine.mujoco.engine import MuJoCoEngine
from simulo.engine.mujoco_warp.engine import MuJoCoWarpEngine
from simulo.engine.mujoco_warp.unsupported import WarpUnsupportedError
from simulo.errors import MissingDependencyError

CARTPOLE = Path(simulo.Asset.from_registry("simulo/robot/cartpole:v1").urdf_path())
ARM = Path(simulo.Asset.from_registry("simulo/robot/pick_arm:v1").urdf_path())
DT = 1.0 / 240.0
ENVS = 3

#: Largest joint-position difference (rad or m) from the MuJoCo engine after the runs below: float32 against
#: float64 (measured here: 6e-6 on the cartpole, whose pole swings through 9 rad, 1.4e-7 on the arm).
Q_TOLERANCE = 1e-3
#: Largest joint-velocity difference (rad/s or m/s).
QD_TOLERANCE = 1e-2


def _poses(n: int = ENVS, height: float = 0.0) -> np.ndarray:
    return np.array([[2.0 * i, 0.0, height, 1.0, 0.0, 0.0, 0.0] for i in range(n)])


def _engine(kind: str, n: int = ENVS) -> MuJoCoEngine | MuJoCoWarpEngine:
    return MuJoCoWarpEngine(n, DT, device="cpu") if kind == "warp" else MuJoCoEngine(n, DT)


def _trajectory(kind: str, path: Path, mode: ControlMode, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Joint positions and velocities after every step (steps, ENVS, J), and the last efforts."""
    world = _engine(kind)
    try:
        world.add_plane(0.0, None, None)
        robot = world.add_articulation(path, _poses(height=2.0 if path == CARTPOLE else 0.0), True)
        joints = len(robot.joints)
        rng = np.random.default_rng(3)
        modes = np.full((ENVS, joints), int(mode), dtype=np.int8)
        position = rng.uniform(-0.5, 0.5, (ENVS, joints))
        zeros, ones = np.zeros((ENVS, joints)), np.ones((ENVS, joints))
        q, qd, effort = (np.zeros((ENVS, joints)) for _ in range(3))
        qs, qds = [], []
        for _ in range(steps):
            torque = rng.uniform(-20.0, 20.0, (ENVS, joints)) if mode == ControlMode.TORQUE else zeros
            robot.apply(modes, position, zeros, ones * 50.0, ones * 0.1, ones, torque)
            world.step()
            robot.read_joints(q, qd, effort)
            qs.append(q.copy())
            qds.append(qd.copy())
        return np.array(qs), np.array(qds), effort.copy()
    finally:
        world.close()


@pytest.mark.slow
def test_cartpole_under_efforts_follows_the_mujoco_engine() -> None:
    q, qd, effort = _trajectory("warp", CARTPOLE, ControlMode.TORQUE, 240)
    q_ref, qd_ref, effort_ref = _trajectory("mujoco", CARTPOLE, ControlMode.TORQUE, 240)
    assert np.abs(q_ref[-1] - q_ref[0]).max() > 0.05  # the cartpole moved
    assert np.abs(q - q_ref).max() < Q_TOLERANCE
    assert np.abs(qd - qd_ref).max() < QD_TOLERANCE
    np.testing.assert_allclose(effort, effort_ref, atol=1e-12)  # the torques sent


@pytest.mark.slow
def test_pick_arm_under_position_targets_follows_the_mujoco_engine() -> None:
    q, qd, effort = _trajectory("warp", ARM, ControlMode.POSITION_MOTOR, 240)
    q_ref, qd_ref, effort_ref = _trajectory("mujoco", ARM, ControlMode.POSITION_MOTOR, 240)
    assert np.abs(q_ref[-1] - q_ref[0]).max() > 0.05  # the arm moved
    assert np.abs(q - q_ref).max() < Q_TOLERANCE
    assert np.abs(qd - qd_ref).max() < QD_TOLERANCE
    np.testing.assert_allclose(effort, effort_ref, atol=0.05, rtol=1e-3)  # the motor efforts solved


@pytest.mark.slow
def test_state_writes_round_trip_on_the_device() -> None:
    world = MuJoCoWarpEngine(ENVS, DT, device="cpu")
    try:
        world.add_plane(0.0, None, None)
        arm = world.add_articulation(ARM, _poses() + [0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0], False)
        world.step()  # the worlds are on the device from here on
        joints = len(arm.joints)
        q, qd = np.full((2, joints), 0.1), np.full((2, joints), -0.2)
        arm.write_joints([0, 2], q, qd)
        pose = np.array([[0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 1.0]] * 2)
        arm.write_base_pose([0, 2], pose)
        arm.write_base_velocity([0, 2], np.array([[0.1, 0.2, 0.3, 0.0, 0.0, 0.5]] * 2))
        read_q, read_qd, effort = (np.zeros((ENVS, joints)) for _ in range(3))
        arm.read_joints(read_q, read_qd, effort)
        np.testing.assert_allclose(read_q[[0, 2]], q, atol=1e-6)
        np.testing.assert_allclose(read_qd[[0, 2]], qd, atol=1e-6)
        base, lin, ang = np.zeros((ENVS, 7)), np.zeros((ENVS, 3)), np.zeros((ENVS, 3))
        arm.read_base(base, lin, ang)
        np.testing.assert_allclose(base[[0, 2]], pose, atol=1e-6)
        np.testing.assert_allclose(lin[[0, 2]], [[0.1, 0.2, 0.3]] * 2, atol=1e-6)
        np.testing.assert_allclose(ang[[0, 2]], [[0.0, 0.0, 0.5]] * 2, atol=1e-6)
        poses, _ = arm.read_bodies([0], [0, 2], velocity=False)  # the root body's frame: the pose written
        np.testing.assert_allclose(poses[:, 0], pose, atol=1e-5)
        assert base[1, 2] == pytest.approx(0.5, abs=0.1)  # environment 1 untouched (it fell a little)
        with pytest.raises(WarpUnsupportedError, match="the scene is final after the first step"):
            world.add_plane(0.1, None, None)
    finally:
        world.close()


def test_base_pose_and_joints_written_while_building_are_kept() -> None:
    world = MuJoCoWarpEngine(2, DT, device="cpu")  # nothing compiles for Warp before the first step
    arm = world.add_articulation(ARM, _poses(2), False)
    arm.write_joints([1], np.full((1, len(arm.joints)), 0.2), np.zeros((1, len(arm.joints))))
    world.add_plane(0.0, None, None)  # a recompile carries the state over by name
    base, lin, ang = np.zeros((2, 7)), np.zeros((2, 3)), np.zeros((2, 3))
    arm.read_base(base, lin, ang)
    np.testing.assert_allclose(base, _poses(2))
    q, qd, effort = (np.zeros((2, len(arm.joints))) for _ in range(3))
    arm.read_joints(q, qd, effort)
    np.testing.assert_allclose(q[1], 0.2)
    np.testing.assert_allclose(q[0], 0.0)


@pytest.mark.parametrize("call", ["heightfield", "gear_after_step"])
def test_unsupported_features_raise_the_one_clear_error(call: str) -> None:
    world = MuJoCoWarpEngine(2, DT, device="cpu")
    arm = world.add_articulation(ARM, _poses(2), True)
    calls = {
        "heightfield": lambda: world.add_heightfield(np.zeros((3, 3)), 0.1, _poses(1)[0], None, None),
        "gear_after_step": lambda: (world.step(), arm.add_gear(0, 1, -1.0, 0.2, 10.0)),
    }
    with pytest.raises(WarpUnsupportedError, match="'mujoco_warp' engine does not support .*engine='mujoco'"):
        calls[call]()
    assert issubclass(WarpUnsupportedError, NotImplementedError)


def test_registered_under_its_name_and_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "mujoco_warp" in registry.available_engines()
    assert registry.engine_factory("mujoco_warp") is MuJoCoWarpEngine
    monkeypatch.setenv(registry.ENGINE_VARIABLE, "mujoco_warp")
    assert registry.default_engine() == "mujoco_warp"
    monkeypatch.setenv("SIMULO_WARP_DEVICE", "cpu")
    world = registry.create_engine(None, 2, DT)
    assert isinstance(world, MuJoCoWarpEngine) and world.device == "cpu" and world.num_worlds == 2  # 1 per world


def test_a_missing_package_names_the_gpu_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._ENGINES, "mujoco_warp", "simulo.engine.mujoco_warp.engine:MuJoCoWarpEngine")
    for name in [m for m in sys.modules if m.startswith("simulo.engine.mujoco_warp")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mujoco_warp", None)  # import mujoco_warp now fails as if not installed
    with pytest.raises(MissingDependencyError, match=r"pip install 'simulo-local\[gpu\]'"):
        registry.engine_factory("mujoco_warp")


def test_build_time_edits_and_gears_are_replayed_after_a_recompile() -> None:
    world = MuJoCoWarpEngine(2, DT, device="cpu")
    arm = world.add_articulation(ARM, _poses(2), True)
    masses = arm.link_masses()
    arm.scale_masses(2.0)
    arm.add_gear(len(arm.joints) - 2, len(arm.joints) - 1, -1.0, 0.2, 10.0)  # the fingers, as a gripper couples them
    world.add_plane(0.0, None, None)  # a recompile: the edit is replayed, the gear is in the spec
    np.testing.assert_allclose(arm.link_masses(), 2.0 * masses)
    model = world._worlds.model
    assert model is not None and model.neq == 1


@pytest.mark.slow
def test_per_environment_gravity_and_masses_reach_their_own_worlds() -> None:
    world = MuJoCoWarpEngine(3, DT, device="cpu")
    try:
        box = world.add_rigid("box", [0.05, 0.05, 0.05], 1.0, _poses(3, height=1.0))
        world.set_gravity([1], np.array([[0.0, 0.0, 0.0]]))  # while the scene is built
        world.step()
        world.set_gravity([2], np.array([[0.0, 0.0, -2.0]]))  # and after the first step (the model is sent again)
        box.set_masses([0], np.array([3.0]))
        np.testing.assert_allclose(world.gravity()[:, 2], [-9.81, 0.0, -2.0])
        np.testing.assert_allclose(box.masses(), [3.0, 1.0, 1.0])
        for _ in range(59):
            world.step()
        pose, lin, ang = np.zeros((3, 7)), np.zeros((3, 3)), np.zeros((3, 3))
        box.read(pose, lin, ang)
        # 0.25 s of free fall at each world's own gravity (the first step at -9.81 everywhere but world 1)
        assert lin[0, 2] == pytest.approx(-9.81 * 60 * DT, rel=1e-3)
        assert lin[1, 2] == pytest.approx(0.0, abs=1e-6)
        assert lin[2, 2] == pytest.approx(-9.81 * DT - 2.0 * 59 * DT, rel=1e-3)
    finally:
        world.close()


@pytest.mark.slow
def test_gravity_is_cancelled_with_each_worlds_own_masses_and_gravity() -> None:
    world = MuJoCoWarpEngine(3, DT, device="cpu")
    try:
        arm = world.add_articulation(ARM, _poses(3, height=1.0), False)  # floating, nothing to stand on
        masses = arm.link_masses()
        arm.set_link_masses([1], 3.0 * masses[1:2])  # heavier links in world 1
        world.set_gravity([2], np.array([[0.0, 0.0, -3.0]]))  # weaker gravity in world 2
        for _ in range(60):
            arm.cancel_gravity()
            world.step()
        pose, lin, ang = np.zeros((3, 7)), np.zeros((3, 3)), np.zeros((3, 3))
        arm.read_base(pose, lin, ang)
        # weightless in every world: after 0.25 s the base has not fallen (free fall would drop it 0.31 m)
        np.testing.assert_allclose(pose[:, 2], 1.0, atol=1e-4)
        np.testing.assert_allclose(lin, 0.0, atol=1e-3)
    finally:
        world.close()
