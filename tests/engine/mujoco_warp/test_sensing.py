"""The MuJoCo Warp engine's sensors against the MuJoCo engine's, on the same scenes and commands (Warp's CPU
device): camera images, depth and labels and ray hits (drawn and cast on the host from the worlds' body poses),
contact counts and forces and joint wrenches (read from what the device computed in the last step).

Warp steps in float32 and MuJoCo in float64, so after steps the two engines' states differ by about 1e-6 and the
results are compared within a tolerance stated in each test; before the first step both hold the same numbers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("mujoco_warp")

import simulo
from simulo.engine.base import CameraFrames, ControlMode
from simulo.engine.mujoco.camera import can_render
from simulo.engine.mujoco.engine import MuJoCoEngine
from simulo.engine.mujoco_warp.engine import MuJoCoWarpEngine
from simulo.errors import SimuloValueError

ARM = Path(simulo.Asset.from_registry("simulo/robot/pick_arm:v1").urdf_path())
DT = 1.0 / 240.0
G = 9.81

#: A floating 2 kg block robot (one link, a 0.2 m cube).
BLOCK_URDF = """<robot name="block"><link name="block">
  <inertial><mass value="2.0"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
</link></robot>"""

Engine = MuJoCoEngine | MuJoCoWarpEngine


def _engine(kind: str, num_envs: int, envs_per_world: int = 1) -> Engine:
    if kind == "warp":
        return MuJoCoWarpEngine(num_envs, DT, envs_per_world=envs_per_world, device="cpu")
    return MuJoCoEngine(num_envs, DT, envs_per_world=envs_per_world)


def _arm_scene(kind: str, num_envs: int, envs_per_world: int = 1) -> Engine:
    """A plane, a fixed pick arm with bent joints and a red box falling beside it, per environment 0.4 m apart
    along y (labels: plane 1, arm 2, box 3)."""
    world = _engine(kind, num_envs, envs_per_world)
    world.add_plane(0.0, None, None)
    arm = world.add_articulation(ARM, np.array([[0.0, 0.4 * i, 0.0, 1.0, 0.0, 0.0, 0.0] for i in range(num_envs)]),
                                 True)
    q = np.tile(np.linspace(0.1, 0.5, len(arm.joints)), (num_envs, 1))
    arm.write_joints(range(num_envs), q, np.zeros_like(q))
    world.add_rigid("box", [0.05, 0.05, 0.05], 1.0,
                    np.array([[0.4, 0.4 * i, 0.3 + 0.1 * i, 1.0, 0.0, 0.0, 0.0] for i in range(num_envs)]),
                    color=(1.0, 0.0, 0.0))
    return world


def _cameras(world: Engine, isolate: bool) -> CameraFrames:
    """Cameras 1 m behind each environment's arm, pitched 15 degrees down, in the order 0, 2, 1."""
    poses = np.array([[-1.0, 0.4 * i, 0.5, 0.9914449, 0.0, 0.1305262, 0.0] for i in (0, 2, 1)])
    return world.render_cameras([0, 2, 1], poses, 64, 48, 60.0, 0.05, 10.0, depth=True, labels=True,
                                isolate=isolate)


def _differing(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of pixels where two images differ."""
    return float((a != b).reshape(*a.shape[:3], -1).any(axis=-1).mean())


@pytest.mark.slow
@pytest.mark.skipif(not can_render(), reason="no OpenGL context for MuJoCo's renderer on this machine")
@pytest.mark.parametrize("steps", [0, 30])
def test_cameras_draw_what_the_mujoco_engine_draws(steps: int) -> None:
    frames: dict[str, tuple[CameraFrames, CameraFrames, np.ndarray]] = {}
    for kind in ("warp", "mujoco"):
        world = _arm_scene(kind, 3, envs_per_world=3)
        try:
            for _ in range(steps):
                world.step()
            frames[kind] = (_cameras(world, isolate=True), _cameras(world, isolate=False),
                            world.render(1, 40, 30, [1.5, 1.5, 1.0], [0.0, 0.4, 0.3]))
        finally:
            world.close()
    for warp, mujoco in zip(frames["warp"][:2], frames["mujoco"][:2]):
        assert warp.depth is not None and mujoco.depth is not None
        assert warp.labels is not None and mujoco.labels is not None
        assert set(np.unique(warp.labels)) == {0, 1, 2, 3}  # sky, plane, arm, box
        if steps == 0:  # the same poses: the same pictures
            np.testing.assert_array_equal(warp.rgb, mujoco.rgb)
            np.testing.assert_array_equal(warp.labels, mujoco.labels)
            np.testing.assert_array_equal(warp.depth, mujoco.depth)
        else:  # float32 poses: at most 1% of the pixels differ, and depths by 1 mm (measured: none)
            assert _differing(warp.rgb, mujoco.rgb) <= 0.01
            assert _differing(warp.labels[..., None], mujoco.labels[..., None]) <= 0.01
            both = np.isfinite(warp.depth) & np.isfinite(mujoco.depth)
            assert (np.isfinite(warp.depth) != np.isfinite(mujoco.depth)).mean() <= 0.01
            np.testing.assert_allclose(warp.depth[both], mujoco.depth[both], atol=1e-3)
    isolated, shared = frames["warp"][0], frames["warp"][1]
    assert isolated.labels is not None and shared.labels is not None
    assert (shared.labels == 3).sum() > (isolated.labels == 3).sum()  # the neighbours' boxes only when shared
    assert _differing(frames["warp"][2][None], frames["mujoco"][2][None]) <= (0.0 if steps == 0 else 0.01)


@pytest.mark.slow
@pytest.mark.skipif(not can_render(), reason="no OpenGL context for MuJoCo's renderer on this machine")
def test_cameras_follow_the_worlds_after_steps() -> None:
    world = _arm_scene("warp", 1)
    try:
        pose = np.array([[0.4, -1.0, 0.3, 0.7071068, 0.0, 0.0, 0.7071068]])  # beside the box, looking along +y
        before = world.render_cameras([0], pose, 64, 48, 60.0, 0.05, 10.0, depth=False, labels=True, isolate=True)
        for _ in range(72):  # the box falls 0.25 m onto the plane (0.3 s)
            world.step()
        after = world.render_cameras([0], pose, 64, 48, 60.0, 0.05, 10.0, depth=False, labels=True, isolate=True)
        assert before.labels is not None and after.labels is not None
        box_rows = [np.flatnonzero((frame.labels[0] == 3).any(axis=1)).mean() for frame in (before, after)]
        assert box_rows[1] > box_rows[0] + 5  # drawn lower in the image (rows grow downwards)
    finally:
        world.close()


@pytest.mark.slow
def test_rays_hit_what_they_hit_on_the_mujoco_engine() -> None:
    ids = np.array([2, 0, 3, 0, 1, 2, 3, 1])
    y = 0.4 * ids
    starts = np.column_stack([[0.4, 0.4, -0.5, 0.03, 0.4, 0.4, -0.5, 0.0], y, np.full(8, 1.5)])
    ends = starts - [0.0, 0.0, 3.0]
    ends[7] = starts[7] + [0.0, 0.0, 1.0]  # up into the sky: a miss
    hits = {}
    for kind in ("warp", "mujoco"):
        world = _arm_scene(kind, 4)
        try:
            for _ in range(20):
                world.step()
            hits[kind] = (world.cast_rays(ids, starts, ends, False), world.cast_rays(ids, starts, ends, True))
        finally:
            world.close()
    for warp, mujoco in zip(hits["warp"], hits["mujoco"]):
        np.testing.assert_array_equal(warp.label, mujoco.label)
        np.testing.assert_array_equal(np.isinf(warp.fraction), np.isinf(mujoco.fraction))
        hit = np.isfinite(mujoco.fraction)
        # float32 poses: within 1e-5 of the segment (3 m: 30 µm; measured: 5e-8)
        np.testing.assert_allclose(warp.fraction[hit], mujoco.fraction[hit], atol=1e-5)
        np.testing.assert_allclose(warp.position[hit], mujoco.position[hit], atol=1e-4)
        np.testing.assert_allclose(warp.normal, mujoco.normal, atol=1e-5)
    everything, terrain = hits["warp"]
    np.testing.assert_array_equal(everything.label, [3, 3, 1, 2, 3, 3, 1, 0])  # box, box, plane, arm, ..., a miss
    np.testing.assert_array_equal(terrain.label, [1, 1, 1, 1, 1, 1, 1, 0])  # only the plane
    np.testing.assert_allclose(terrain.position[:7, 2], 0.0, atol=1e-9)


def _block_scene(kind: str, path: Path) -> tuple[Engine, object, object, object]:
    """Two environments: a floating 2 kg block on the plane, with a 1 kg cube resting on it in environment 0 and
    beside it in environment 1, and a static prop far away."""
    world = _engine(kind, 2)
    world.add_plane(0.0, None, None)
    block = world.add_articulation(path, np.array([[0.0, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0],
                                                   [2.0, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0]]), False)
    cube = world.add_rigid("box", [0.05] * 3, 1.0, np.array([[0.0, 0.0, 0.25, 1.0, 0.0, 0.0, 0.0],
                                                             [2.5, 0.0, 0.05, 1.0, 0.0, 0.0, 0.0]]))
    far = world.add_rigid("box", [0.05] * 3, 0.0, np.array([[0.0, 3.0, 0.05, 1.0, 0.0, 0.0, 0.0],
                                                            [2.0, 3.0, 0.05, 1.0, 0.0, 0.0, 0.0]]))
    return world, block, cube, far


@pytest.mark.slow
def test_contact_counts_and_forces_match_the_mujoco_engine(tmp_path: Path) -> None:
    path = tmp_path / "block.urdf"
    path.write_text(BLOCK_URDF)
    read = {}
    for kind in ("warp", "mujoco"):
        world, block, cube, far = _block_scene(kind, path)
        try:
            before = (block.contact_counts(cube, None), block.contact_forces([0], None))  # type: ignore[attr-defined]
            for _ in range(120):
                world.step()
            read[kind] = (before, block.contact_counts(cube, None), block.contact_counts(cube, [0]),  # type: ignore[attr-defined]
                          block.contact_counts(far, [0]), block.contact_forces([0], cube),  # type: ignore[attr-defined]
                          block.contact_forces([0], None), block.contact_forces([0], far))  # type: ignore[attr-defined]
        finally:
            world.close()
    (counts0, forces0), total, per_body, far_counts, from_cube, net, from_far = read["warp"]
    np.testing.assert_array_equal(counts0, [0, 0])  # before the first step: no contacts (as on MuJoCo)
    np.testing.assert_array_equal(forces0, np.zeros((2, 1, 3)))
    np.testing.assert_array_equal(total, [4, 0])  # the cube's face on the block: 4 points, in environment 0 only
    np.testing.assert_array_equal(per_body, [[4], [0]])
    np.testing.assert_array_equal(far_counts, [[0], [0]])
    # the cube presses down with its weight; the net force on the block holds it up against its own weight
    np.testing.assert_allclose(from_cube[:, 0], [[0.0, 0.0, -1.0 * G], [0.0, 0.0, 0.0]], atol=0.01 * G)
    np.testing.assert_allclose(net[:, 0], [[0.0, 0.0, 2.0 * G], [0.0, 0.0, 2.0 * G]], atol=0.01 * G)
    np.testing.assert_array_equal(from_far, np.zeros((2, 1, 3)))
    mujoco = read["mujoco"]
    np.testing.assert_array_equal(mujoco[0][0], counts0)
    for warp_value, mujoco_value in zip(read["warp"][1:4], mujoco[1:4]):
        np.testing.assert_array_equal(warp_value, mujoco_value)
    for warp_value, mujoco_value in zip(read["warp"][4:], mujoco[4:]):  # float32: within 1 mN (measured 8e-6 N)
        np.testing.assert_allclose(warp_value, mujoco_value, atol=1e-3)


def test_contacts_are_taken_against_a_warp_prop_only(tmp_path: Path) -> None:
    path = tmp_path / "block.urdf"
    path.write_text(BLOCK_URDF)
    world, block, _, _ = _block_scene("warp", path)
    other = MuJoCoEngine(2, DT).add_rigid("box", [0.05] * 3, 1.0, np.tile([0.0, 0, 1, 1, 0, 0, 0], (2, 1)))
    with pytest.raises(SimuloValueError, match="MuJoCo Warp rigid batch, got MuJoCoRigidBatch"):
        block.contact_counts(other, None)  # type: ignore[attr-defined]
    with pytest.raises(SimuloValueError, match="MuJoCo Warp rigid batch, got MuJoCoRigidBatch"):
        block.contact_forces([0], other)  # type: ignore[attr-defined]


def _held_arm_wrenches(kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A fixed pick arm held still by its position motors at bent joints: the wrenches of every non-root body when
    first asked, after 30 steps, after one more step with gravity cancelled; and the link masses."""
    world = _engine(kind, 2)
    try:
        arm = world.add_articulation(ARM, np.array([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
                                                    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]), True)
        joints = len(arm.joints)
        q = np.tile(np.linspace(0.1, 0.5, joints), (2, 1))
        q[:, -2:] = 0.0  # the fingers closed
        arm.write_joints([0, 1], q, np.zeros_like(q))
        bodies = list(range(1, len(arm.body_names)))
        first = arm.joint_wrenches(bodies)
        modes = np.full((2, joints), int(ControlMode.POSITION_MOTOR), dtype=np.int8)
        zeros, ones = np.zeros((2, joints)), np.ones((2, joints))
        arm.apply(modes, q, zeros, ones * 200.0, ones * 0.1, ones, zeros)
        for _ in range(30):
            world.step()
        held = arm.joint_wrenches(bodies)
        arm.cancel_gravity()
        world.step()
        return first, held, arm.joint_wrenches(bodies), arm.link_masses()
    finally:
        world.close()


@pytest.mark.slow
def test_joint_wrenches_of_a_held_arm_match_the_mujoco_engine() -> None:
    first, held, weightless, masses = _held_arm_wrenches("warp")
    ref_first, ref_held, ref_weightless, _ = _held_arm_wrenches("mujoco")
    np.testing.assert_array_equal(first, np.zeros_like(first))  # switched on by the first call: zeros until a step
    np.testing.assert_array_equal(ref_first, first)
    # float32 against float64: within 1 mN and 1 mN·m (measured: 8e-6)
    np.testing.assert_allclose(held, ref_held, atol=1e-3)
    np.testing.assert_allclose(weightless, ref_weightless, atol=1e-3)
    # the turret (body 1) turns about the vertical base axis: its frame's z is the world's, and the base holds up
    # everything above it, in both environments (the second one's base turned 180 degrees about z)
    np.testing.assert_allclose(held[:, 0, 2], masses[:, 1:].sum(axis=1) * G, rtol=1e-3)
    # with gravity cancelled for a step (pushes included), the base carries (almost) nothing
    assert np.abs(weightless[:, 0, :3]).max() < 0.01 * masses[0, 1:].sum() * G
