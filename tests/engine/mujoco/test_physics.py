"""MuJoCo engine physics behind the contract: motors, gears, dynamics queries, sensing, determinism."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.engine.base import ControlMode
from simulo.engine.mujoco.engine import MuJoCoEngine
from simulo.errors import MissingDependencyError

pytest.importorskip("mujoco")

ARM = simulo.Asset.from_registry("simulo/robot/pick_arm:v1")
IDENTITY = [1.0, 0.0, 0.0, 0.0]
DT = 1.0 / 240.0


def _arm(num_envs: int = 1, **engine_kw: object) -> tuple[MuJoCoEngine, object]:
    engine = MuJoCoEngine(num_envs, DT, **engine_kw)  # type: ignore[arg-type]
    engine.add_plane(0.0, None, None)
    poses = np.array([[2.0 * i, 0.0, 0.0, *IDENTITY] for i in range(num_envs)])
    return engine, engine.add_articulation(Path(ARM.urdf_path()), poses, fixed_base=True)


def _command(batch: object, mode: int, cols: list[int], position: float = 0.0, velocity: float = 0.0,
             force: float = 20.0, torque: float | np.ndarray = 0.0) -> None:
    n, j = batch.num_envs, len(batch.joints)  # type: ignore[attr-defined]
    modes = np.zeros((n, j), dtype=np.int8)
    modes[:, cols] = mode
    full = np.full((n, j), 1.0)
    batch.apply(modes, full * position, full * velocity, full * force, full * 0.3, full,  # type: ignore[attr-defined]
                full * torque)


def test_a_blocked_position_motor_pushes_with_its_force_limit() -> None:
    engine, arm = _arm()
    try:
        fingers = [5, 6]  # prismatic, limited to 0..0.05 m
        for _ in range(60):
            _command(arm, ControlMode.POSITION_MOTOR, fingers, position=0.2, force=12.0)  # far past the limit
            engine.step()
        q, qd, effort = (np.zeros((1, 7)) for _ in range(3))
        arm.read_joints(q, qd, effort)
        np.testing.assert_allclose(effort[0, fingers], [12.0, 12.0])
        np.testing.assert_allclose(q[0, fingers], [0.05, 0.05], atol=2e-3)
    finally:
        engine.close()


def test_the_gear_mirrors_the_driven_finger() -> None:
    engine, arm = _arm()
    try:
        arm.add_gear(5, 6, -1.0, 0.1, 50.0)
        for _ in range(240):
            _command(arm, ControlMode.POSITION_MOTOR, [5], position=0.03)  # only the left finger is driven
            engine.step()
        q, qd, effort = (np.zeros((1, 7)) for _ in range(3))
        arm.read_joints(q, qd, effort)
        np.testing.assert_allclose(q[0, [5, 6]], [0.03, 0.03], atol=2e-3)
    finally:
        engine.close()


def test_jacobians_match_finite_differences_and_gravity_torques_hold_the_arm() -> None:
    engine, arm = _arm()
    try:
        q0 = np.array([[0.3, 0.5, -0.7, 0.4, 0.2, 0.01, 0.02]])
        arm.write_joints([0], q0, np.zeros((1, 7)))
        tcp = arm.body_names.index("tcp")
        jac = arm.jacobians([tcp], q0)[0, 0]
        h = 1e-6
        for c in range(7):
            poses = []
            for sign in (1.0, -1.0):
                dq = q0.copy()
                dq[0, c] += sign * h
                arm.write_joints([0], dq, np.zeros((1, 7)))
                poses.append(arm.read_bodies([tcp], [0], velocity=False)[0][0, 0, :3])
            np.testing.assert_allclose((poses[0] - poses[1]) / (2 * h), jac[:3, c], atol=1e-6)
        mass = arm.mass_matrices(q0)[0]
        np.testing.assert_allclose(mass, mass.T, atol=1e-12)
        assert np.linalg.eigvalsh(mass).min() > 0
        arm.write_joints([0], q0, np.zeros((1, 7)))
        q, qd, effort = (np.zeros((1, 7)) for _ in range(3))
        for _ in range(120):
            arm.read_joints(q, qd, effort)
            _command(arm, ControlMode.TORQUE, list(range(7)), torque=arm.gravity_torques(q))
            engine.step()
        q, qd, effort = (np.zeros((1, 7)) for _ in range(3))
        arm.read_joints(q, qd, effort)
        np.testing.assert_allclose(q, q0, atol=2e-3)
    finally:
        engine.close()


def test_rays_hit_the_terrain_and_objects_of_their_own_environment() -> None:
    engine = MuJoCoEngine(2, DT)
    try:
        engine.add_plane(0.0, None, None)
        engine.add_rigid("box", (0.1, 0.1, 0.1), 1.0, np.array([[0.0, 0, 0.1, *IDENTITY], [5.0, 0, 0.1, *IDENTITY]]))
        starts = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
        ends = np.array([[0.0, 0.0, -1.0], [0.0, 0.0, -1.0], [0.0, 0.0, 0.5]])
        hits = engine.cast_rays(np.array([0, 1, 0]), starts, ends, terrain_only=False)
        np.testing.assert_allclose(hits.fraction[:2], [0.4, 0.5])  # the box top at 0.2 m; env 1's box is at x=5
        np.testing.assert_array_equal(hits.label, [2, 1, 0])  # the plane was built first, the box second
        assert np.isinf(hits.fraction[2]) and np.isinf(hits.position[2]).all()
        np.testing.assert_allclose(hits.normal[0], [0.0, 0.0, 1.0])
        terrain = engine.cast_rays(np.array([0]), starts[:1], ends[:1], terrain_only=True)
        np.testing.assert_allclose(terrain.fraction, [0.5])
    finally:
        engine.close()


def test_contact_forces_and_joint_wrenches_carry_the_weight() -> None:
    engine, arm = _arm()
    try:
        arm.joint_wrenches([1])  # switched on: reports from the next step
        cube = engine.add_rigid("box", (0.02, 0.02, 0.02), 0.5, np.array([[0.8, 0.0, 0.02, *IDENTITY]]))
        for _ in range(240):
            _command(arm, ControlMode.POSITION_MOTOR, list(range(7)))
            engine.step()
        weight = 9.81 * arm.link_masses()[0, 1:].sum()  # every link above the base turret joint
        wrench = arm.joint_wrenches([1])[0, 0]
        np.testing.assert_allclose(wrench[2], weight, rtol=0.02)  # the base holds the turret up (body z is up)
        del cube
        assert arm.contact_forces([0], None).shape == (1, 1, 3)
    finally:
        engine.close()


def test_a_cube_on_the_plane_feels_its_weight_through_contacts(floater: simulo.Asset) -> None:
    engine = MuJoCoEngine(1, DT)
    try:
        engine.add_plane(0.0, None, None)
        robot = engine.add_articulation(Path(floater.urdf_path()), np.array([[0.0, 0, 0.06, *IDENTITY]]), False)
        for _ in range(240):
            engine.step()
        total = robot.contact_forces(range(len(robot.body_names)), None)[0].sum(axis=0)
        np.testing.assert_allclose(total, [0.0, 0.0, 9.81 * robot.link_masses()[0].sum()], rtol=0.02, atol=1e-6)
    finally:
        engine.close()


def test_the_same_commands_give_the_same_bytes_for_any_grouping_and_thread_count() -> None:
    runs = []
    for per_world, threads in ((16, 1), (1, 2), (3, 2)):
        engine, arm = _arm(num_envs=6, envs_per_world=per_world, threads=threads)
        try:
            rng = np.random.default_rng(7)
            for _ in range(100):
                _command(arm, ControlMode.POSITION_MOTOR, list(range(7)), position=float(rng.uniform(-0.5, 0.5)))
                engine.step()
            q, qd, effort = (np.zeros((6, 7)) for _ in range(3))
            arm.read_joints(q, qd, effort)
            runs.append(q.tobytes() + qd.tobytes())
            assert engine.num_worlds == -(-6 // per_world)
        finally:
            engine.close()
    assert runs[0] == runs[1] == runs[2]


@pytest.mark.filterwarnings("ignore::UserWarning")  # GLFW warns on its way to failing without a display
def test_rendering_needs_an_opengl_context_or_draws() -> None:
    engine, _ = _arm()
    try:
        try:
            image = engine.render(0, 32, 24, [1.0, -1.0, 1.0], [0.0, 0.0, 0.2])
        except MissingDependencyError as exc:
            assert "MUJOCO_GL=egl" in str(exc) and "libosmesa6" in str(exc)
        else:
            assert image.shape == (24, 32, 3) and image.dtype == np.uint8
    finally:
        engine.close()
