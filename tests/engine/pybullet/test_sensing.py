"""PyBullet engine: cameras and rays of environments that share a world stay in their own environment."""

from __future__ import annotations

import numpy as np
import pytest

from simulo.engine.pybullet.engine import PyBulletEngine

#: a camera 1 m behind each box, looking along +x, z up
CAMERA = [-1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]


@pytest.fixture
def engine():
    made = PyBulletEngine(num_envs=3, dt=1 / 240, envs_per_world=3)
    made.add_plane(-0.5, None, None)
    # three boxes in one world, 0.3 m apart along y: each environment's camera would see all of them
    poses = np.array([[0.0, 0.3 * k, 0.0, 1.0, 0.0, 0.0, 0.0] for k in range(3)])
    made.add_rigid("box", (0.1, 0.1, 0.1), 0.0, poses, color=(1.0, 0.0, 0.0))
    yield made
    made.close()


def _cameras(k: int) -> np.ndarray:
    pose = np.array(CAMERA)
    pose[1] = 0.3 * k
    return pose[None]


def test_an_isolated_camera_shows_its_own_box_only_and_restores_the_colours(engine) -> None:
    frames = engine.render_cameras([1], _cameras(1), 32, 32, 60.0, 0.05, 10.0, depth=True, labels=True, isolate=True)
    shared = engine.render_cameras([1], _cameras(1), 32, 32, 60.0, 0.05, 10.0, depth=True, labels=True, isolate=False)
    red = (frames.rgb[0, ..., 0] > 150) & (frames.rgb[0, ..., 1] < 80)
    red_shared = (shared.rgb[0, ..., 0] > 150) & (shared.rgb[0, ..., 1] < 80)
    assert red.sum() > 0 and red_shared.sum() > red.sum()  # the neighbours show up only when not isolated
    assert frames.labels is not None and set(np.unique(frames.labels[0])) == {0, 1, 2}  # sky 0, plane 1, boxes 2
    assert frames.depth is not None and frames.depth[0, 16, 16] == pytest.approx(0.9, abs=1e-3)
    world = engine.layout.worlds[0]
    for _, body in engine.layout.env_objects[0]:  # every box is drawn again afterwards
        assert all(rgba[3] == 1.0 for _, _, rgba in world.sensing.visual_colors(body))


def test_rays_pass_through_the_neighbours_bodies(engine) -> None:
    # each environment casts along +y from beside its box, through the other boxes
    starts = np.array([[0.0, -0.5, 0.0]] * 3)
    ends = starts + [0.0, 2.0, 0.0]
    hits = engine.cast_rays(np.arange(3), starts, ends, terrain_only=False)
    np.testing.assert_allclose(hits.position[:, 1], [-0.1, 0.2, 0.5], atol=1e-6)  # each reaches its own box
    assert (hits.label == 2).all()
    down = engine.cast_rays(np.array([0]), np.array([[0.0, 0.0, 1.0]]), np.array([[0.0, 0.0, -1.0]]), True)
    assert down.position[0, 2] == pytest.approx(-0.5) and down.label[0] == 1  # through the box onto the plane


def test_joint_wrenches_refuse_the_root_body(cartpole) -> None:
    made = PyBulletEngine(num_envs=1, dt=1 / 240)
    try:
        batch = made.add_articulation(cartpole.urdf_path(), np.array([[0, 0, 2, 1, 0, 0, 0.0]]), True)
        with pytest.raises(ValueError, match="root body has no joint"):
            batch.joint_wrenches([0])
        assert batch.joint_wrenches([1, 2]).shape == (1, 2, 6)
    finally:
        made.close()
