"""The MuJoCo Warp engine's rigid-prop features against the MuJoCo engine's, on the same scenes (Warp's CPU device):
switching copies off and on (``set_enabled``), rescaling them (``set_scale``) and welding them to a robot body
(``add_welds``, a suction grip). Height fields stay refused (``tests/engine/mujoco_warp/test_mujoco_warp_engine.py``
checks the refusal).

Warp steps in float32 and MuJoCo in float64: poses are compared within :data:`POSE_TOLERANCE` (measured: the two
engines agree to 1e-4 m on every scene here) and forces within :data:`FORCE_TOLERANCE`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("mujoco_warp")

import simulo
from simulo.engine.base import ControlMode, RigidBatch
from simulo.engine.mujoco.engine import MuJoCoEngine
from simulo.engine.mujoco_warp.engine import MuJoCoWarpEngine
from simulo.engine.mujoco_warp.unsupported import UNSUPPORTED, WarpUnsupportedError
from simulo.errors import SimuloValueError

GANTRY = Path(simulo.__file__).parent / "authoring" / "catalog" / "pick_and_place.urdf"
DT = 1.0 / 240.0
G = 9.81
#: Largest difference between the two engines' positions, m.
POSE_TOLERANCE = 1e-3
#: Largest difference between the two engines' weld forces, N.
FORCE_TOLERANCE = 0.02

Engine = MuJoCoEngine | MuJoCoWarpEngine


def _engine(kind: str, num_envs: int) -> Engine:
    return MuJoCoWarpEngine(num_envs, DT, device="cpu") if kind == "warp" else MuJoCoEngine(num_envs, DT)


def _rows(n: int, x: float = 0.0, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    """Identity poses at ``(x + 2 i, y, z)``, one per environment ``i``."""
    return np.array([[x + 2.0 * i, y, z, 1.0, 0.0, 0.0, 0.0] for i in range(n)])


def _pose(batch: RigidBatch) -> np.ndarray:
    pose, lin, ang = np.zeros((batch.num_envs, 7)), np.zeros((batch.num_envs, 3)), np.zeros((batch.num_envs, 3))
    batch.read(pose, lin, ang)
    return pose


def _switching(kind: str) -> dict[str, np.ndarray]:
    """A 0.2 m box held at 0.5 m in environment 1 while off, a 0.1 m box dropped on it; then it comes back on and
    environment 2's box, resting on the ground under a small one, goes off."""
    world = _engine(kind, 3)
    try:
        world.add_plane(0.0, None, None)
        lower = world.add_rigid("box", [0.1, 0.1, 0.1], 1.0, _rows(3, z=0.5))
        upper = world.add_rigid("box", [0.05, 0.05, 0.05], 0.5, _rows(3, z=1.0))
        lower.set_enabled([1], False)  # while the scene is built
        out = {"masses_off": lower.masses().copy()}
        for _ in range(240):
            lower.apply_force([1], np.array([[50.0, 0.0, 0.0]]), np.zeros((1, 3)))  # dropped: it is held
            world.step()
        lower.write_velocity([1], np.array([[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]]))  # ignored while off
        out["lower_held"], out["upper_held"] = _pose(lower), _pose(upper)
        lower.set_enabled([1], True)  # and after the first step
        lower.set_enabled([2], False)
        out["masses_swapped"] = lower.masses().copy()
        for _ in range(240):
            world.step()
        out["lower_end"], out["upper_end"] = _pose(lower), _pose(upper)
        return out
    finally:
        world.close()


def test_a_switched_off_prop_collides_with_nothing_stays_in_place_and_comes_back() -> None:
    warp, reference = _switching("warp"), _switching("mujoco")
    for key, value in reference.items():
        np.testing.assert_allclose(warp[key], value, atol=POSE_TOLERANCE, err_msg=key)
    np.testing.assert_allclose(warp["masses_off"], [1.0, 0.0, 1.0])
    np.testing.assert_allclose(warp["masses_swapped"], [1.0, 1.0, 0.0])
    # off: held where it was (pushes and velocity writes ignored), and the small box fell through it
    np.testing.assert_allclose(warp["lower_held"][:, 2], [0.1, 0.5, 0.1], atol=1e-4)
    np.testing.assert_allclose(warp["lower_held"][1, :3], [2.0, 0.0, 0.5], atol=1e-6)
    np.testing.assert_allclose(warp["upper_held"][:, 2], [0.25, 0.05, 0.25], atol=1e-3)
    # back on it falls onto the small box; environment 2's small box falls through its box, which stays
    np.testing.assert_allclose(warp["lower_end"][:, 2], [0.1, 0.2, 0.1], atol=1e-3)
    np.testing.assert_allclose(warp["upper_end"][:, 2], [0.25, 0.05, 0.05], atol=1e-3)


def _scaled(kind: str) -> dict[str, np.ndarray]:
    """Shapes resting on the ground, rescaled in some environments (after the first step), lifted and let settle."""
    world = _engine(kind, 3)
    try:
        world.add_plane(0.0, None, None)
        shapes = {"box": world.add_rigid("box", [0.05, 0.05, 0.05], 1.0, _rows(3, z=0.05)),
                  "sphere": world.add_rigid("sphere", [0.05], 1.0, _rows(3, y=1.0, z=0.05)),
                  "cylinder": world.add_rigid("cylinder", [0.05, 0.1], 1.0, _rows(3, y=2.0, z=0.05))}
        world.step()
        shapes["box"].set_scale([1, 2], np.array([[1.0, 1.0, 3.0], [2.0, 0.5, 2.0]]))
        shapes["sphere"].set_scale([1], np.array([[2.0, 2.0, 2.0]]))
        shapes["cylinder"].set_scale([2], np.array([[2.0, 2.0, 0.5]]))
        for batch in shapes.values():
            batch.write_pose(range(3), _pose(batch) + [0.0, 0.0, 0.3, 0.0, 0.0, 0.0, 0.0])
        for _ in range(480):
            world.step()
        return {name: _pose(batch) for name, batch in shapes.items()}
    finally:
        world.close()


def test_a_rescaled_shape_rests_at_its_rescaled_height() -> None:
    warp, reference = _scaled("warp"), _scaled("mujoco")
    for name, pose in reference.items():
        np.testing.assert_allclose(warp[name][:, :3], pose[:, :3], atol=POSE_TOLERANCE, err_msg=name)
    np.testing.assert_allclose(warp["box"][:, 2], [0.05, 0.15, 0.1], atol=1e-3)
    np.testing.assert_allclose(warp["sphere"][:, 2], [0.05, 0.1, 0.05], atol=1e-3)
    np.testing.assert_allclose(warp["cylinder"][:, 2], [0.05, 0.05, 0.025], atol=1e-3)


def test_the_same_rescale_of_every_world_after_the_first_step_reaches_the_device() -> None:
    world = MuJoCoWarpEngine(2, DT, device="cpu")  # every world's model edited alike: none matches the shared one
    try:
        world.add_plane(0.0, None, None)
        box = world.add_rigid("box", [0.05, 0.05, 0.05], 1.0, _rows(2, z=0.05))
        world.step()
        box.set_scale([0, 1], np.tile([1.0, 1.0, 3.0], (2, 1)))
        box.write_pose([0, 1], _rows(2, z=0.2))
        for _ in range(240):
            world.step()
        np.testing.assert_allclose(_pose(box)[:, 2], [0.15, 0.15], atol=1e-3)
    finally:
        world.close()


def test_a_shape_that_cannot_keep_its_kind_refuses_the_scale() -> None:
    world = MuJoCoWarpEngine(2, DT, device="cpu")
    ball = world.add_rigid("sphere", [0.05], 1.0, _rows(2))
    cone = world.add_rigid("cone", [0.05, 0.1], 1.0, _rows(2, y=1.0))
    with pytest.raises(SimuloValueError, match=r"a sphere keeps its shape .* got \[1\.0, 1\.0, 2\.0\] at row 1"):
        ball.set_scale([0, 1], np.array([[2.0, 2.0, 2.0], [1.0, 1.0, 2.0]]))
    with pytest.raises(SimuloValueError, match="builds a cone as a mesh and cannot rescale it"):
        cone.set_scale([0], np.ones((1, 3)))


def _gantry(kind: str, num_envs: int) -> tuple[Engine, object, int]:
    world = _engine(kind, num_envs)
    world.add_plane(0.0, None, None)
    robot = world.add_articulation(GANTRY, _rows(num_envs), True)
    return world, robot, list(robot.body_names).index("suction_cup")


def _drive(robot: object, z: np.ndarray) -> None:
    """Hold the gantry's x and y at 0 and its quill at ``z`` (num_envs,) with stiff position motors."""
    n, joints = len(z), 3
    target = np.zeros((n, joints))
    target[:, 2] = z
    robot.apply(np.full((n, joints), int(ControlMode.POSITION_MOTOR), dtype=np.int8), target,  # type: ignore[attr-defined]
                np.zeros((n, joints)), np.full((n, joints), 400.0), np.full((n, joints), 0.1),
                np.full((n, joints), 1.0), np.zeros((n, joints)))


def _lift(kind: str) -> dict[str, np.ndarray]:
    """The gantry's cup comes down onto a cube (environment 0) and a ball (environment 1) on the ground, grips it
    where it touches, lifts it 0.3 m, holds it, and lets it go."""
    world, robot, cup = _gantry(kind, 2)
    try:
        cube = world.add_rigid("box", [0.025, 0.025, 0.025], 0.5, _rows(2, z=0.025))
        ball = world.add_rigid("sphere", [0.03], 0.2, _rows(2, x=0.3, z=0.03))
        ball.write_pose([1], _rows(2, z=0.03)[1:])  # the ball under the cup in environment 1, away in 0
        cube.write_pose([1], _rows(2, x=0.3, z=0.025)[1:])
        welds = world.add_welds(robot, cup)  # type: ignore[arg-type]
        low = np.array([-0.80, -0.79])  # the cup's face 1 cm into the cube's top, and onto the ball's
        out: dict[str, np.ndarray] = {}
        for _ in range(240):
            _drive(robot, low)
            world.step()
        welds.attach([0], cube)
        welds.attach([1], ball)
        for _ in range(360):
            _drive(robot, low + 0.3)
            world.step()
        out["cube_held"], out["ball_held"], out["forces_held"] = _pose(cube), _pose(ball), welds.forces()
        welds.detach([0, 1])
        for _ in range(240):
            _drive(robot, low + 0.3)
            world.step()
        out["cube_end"], out["ball_end"], out["forces_end"] = _pose(cube), _pose(ball), welds.forces()
        return out
    finally:
        world.close()


def test_a_weld_holds_what_the_gantry_lifts_and_lets_it_go() -> None:
    warp, reference = _lift("warp"), _lift("mujoco")
    for key, value in reference.items():
        tolerance = FORCE_TOLERANCE if key.startswith("forces") else POSE_TOLERANCE
        np.testing.assert_allclose(warp[key][..., :3], value[..., :3], atol=tolerance, err_msg=key)
    # held 0.3 m up, each world holding its own object at its own relative pose, against its weight
    assert warp["cube_held"][0, 2] == pytest.approx(0.325, abs=0.01)
    assert warp["ball_held"][1, 2] == pytest.approx(0.33, abs=0.01)
    np.testing.assert_allclose(warp["cube_held"][1, 2], 0.025, atol=1e-3)  # not held in environment 1
    np.testing.assert_allclose(warp["forces_held"], [[0.0, 0.0, 0.5 * G], [0.0, 0.0, 0.2 * G]], atol=0.05)
    # let go: both back on the ground, no force
    np.testing.assert_allclose([warp["cube_end"][0, 2], warp["ball_end"][1, 2]], [0.025, 0.03], atol=1e-3)
    assert warp["forces_end"].tolist() == [[0.0] * 3] * 2


def _tilted(kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A tilted cube welded in mid-air under a steady 3 N push, then the weld moved to a ball in the same world
    (replacing it): the cube's pose and the weld force, then the ball's and the cube's poses."""
    world, robot, cup = _gantry(kind, 1)
    try:
        c, s = np.cos(0.3), np.sin(0.3)
        start = np.array([[0.05, 0.0, 0.8, c, 0.0, s, 0.0]])
        cube = world.add_rigid("box", (0.025, 0.025, 0.025), 0.5, start)
        ball = world.add_rigid("sphere", (0.03,), 0.2, start + [0.0, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0])
        welds = world.add_welds(robot, cup)  # type: ignore[arg-type]
        welds.attach([0], cube)  # before the first step
        for _ in range(240):
            _drive(robot, np.zeros(1))
            cube.apply_force([0], np.array([[3.0, 0.0, 0.0]]), np.zeros((1, 3)))
            world.step()
        held, force = _pose(cube), welds.forces()
        ball.write_pose([0], start + [0.0, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0])
        ball.write_velocity([0], np.zeros((1, 6)))
        welds.attach([0], ball)
        for _ in range(48):
            _drive(robot, np.zeros(1))
            world.step()
        return held, force, _pose(ball), _pose(cube)
    finally:
        world.close()


def test_a_weld_reports_its_force_in_world_axes_and_a_new_grip_replaces_it() -> None:
    warp, reference = _tilted("warp"), _tilted("mujoco")
    for got, want in zip(warp, reference):
        np.testing.assert_allclose(got[:, :3], want[:, :3], atol=FORCE_TOLERANCE)
    held, force, ball, cube = warp
    np.testing.assert_allclose(held[0], [0.05, 0.0, 0.8, np.cos(0.3), 0.0, np.sin(0.3), 0.0], atol=5e-4)
    np.testing.assert_allclose(force, [[-3.0, 0.0, 0.5 * G]], atol=FORCE_TOLERANCE)
    np.testing.assert_allclose(ball[0, :3], [0.05, 0.1, 0.8], atol=5e-4)  # the ball is held now
    assert cube[0, 2] < 0.8 - 0.05  # and the cube falls


def test_a_weld_refuses_what_it_cannot_hold() -> None:
    world, robot, cup = _gantry("warp", 1)
    try:
        fixture = world.add_rigid("box", [0.1, 0.1, 0.1], 0.0, _rows(1, x=0.5))
        welds = world.add_welds(robot, cup)  # type: ignore[arg-type]
        later = world.add_rigid("box", [0.02, 0.02, 0.02], 0.1, _rows(1, z=0.5))
        with pytest.raises(SimuloValueError, match="weld holds a MuJoCo Warp rigid batch, got object"):
            welds.attach([0], object())  # type: ignore[arg-type]
        with pytest.raises(SimuloValueError, match="static"):
            welds.attach([0], fixture)
        with pytest.raises(SimuloValueError, match="built after the welds were made"):
            welds.attach([0], later)
        world.step()
        with pytest.raises(WarpUnsupportedError, match="the scene is final"):
            world.add_welds(robot, cup)  # type: ignore[arg-type]
    finally:
        world.close()


def test_height_fields_stay_refused_with_their_cause() -> None:
    assert "phantom" in UNSUPPORTED["heightfield"]
    world = MuJoCoWarpEngine(1, DT, device="cpu")
    with pytest.raises(WarpUnsupportedError, match="height field"):
        world.add_heightfield(np.zeros((3, 3)), 0.1, _rows(1)[0], None, None)
