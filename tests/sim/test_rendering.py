"""Headless rendering: drawable models, images that show the scene, physics unchanged by visuals."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError


def _scene(visuals: bool):
    scene = simulo.Scene()
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/pick_arm:v1"))
    scene.add(robot, at="/World/Arm")
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.04,) * 3, pose=simulo.Pose.from_xyz(0.42, -0.12, 0.02),
                                     physics=simulo.RigidPhysics(mass=0.1)))
    scene.add(cube, at="/World/Cube")
    return scene, robot, cube, simulo.Simulation(scene, visuals=visuals)


def test_render_shows_the_arm_and_the_cube():
    _, robot, _, sim = _scene(visuals=True)
    img = sim.render(width=160, height=120)
    assert img.shape == (120, 160, 3) and img.dtype == np.uint8
    # the cube is drawn green, the arm in the palette's dark blue/orange: both differ from the floor
    green = (img[:, :, 1] > 120) & (img[:, :, 0] < 100) & (img[:, :, 2] < 120)
    assert green.sum() > 5
    q = np.zeros((1, 7))
    q[0, 1] = 1.0
    robot.set_joint_state(q)
    assert not np.array_equal(sim.render(width=160, height=120), img)  # the picture follows the state
    sim.close()


def test_without_visuals_the_arm_is_not_drawn():
    _, _, _, plain = _scene(visuals=False)
    _, _, _, drawn = _scene(visuals=True)
    a, b = plain.render(width=96, height=72), drawn.render(width=96, height=72)
    assert (np.abs(a.astype(int) - b.astype(int)).sum(axis=2) > 60).sum() > 20
    plain.close()
    drawn.close()


def test_visuals_do_not_change_the_physics():
    finals = []
    for visuals in (False, True):
        _, robot, cube, sim = _scene(visuals)
        robot.set_joint_position_target(np.full((1, 7), 0.3))
        sim.step(240)
        finals.append(np.concatenate([np.asarray(robot.state.joint_positions).ravel(),
                                      np.asarray(cube.state.pose).ravel()]))
        sim.close()
    assert finals[0].tobytes() == finals[1].tobytes()


@pytest.mark.parametrize("kwargs", [{"width": 0}, {"height": 5000}, {"width": 12.5}, {"env": 3}])
def test_bad_render_arguments(kwargs):
    _, _, _, sim = _scene(visuals=True)
    with pytest.raises(SimuloValueError):
        sim.render(**kwargs)
    sim.close()


def test_video_writer_writes_a_gif(tmp_path):
    imageio = pytest.importorskip("imageio")
    from simulo.rl.recording import VideoWriter

    _, robot, _, sim = _scene(visuals=True)
    writer = VideoWriter(tmp_path / "run.gif", fps=10)
    for k in range(3):
        q = np.zeros((1, 7))
        q[0, 1] = 0.5 * k  # a different picture each frame (identical GIF frames are merged)
        robot.set_joint_state(q)
        writer.add(sim.render(width=64, height=48))
    path = writer.close()
    frames = imageio.v2.mimread(path)
    assert len(frames) == 3 and frames[0].shape[:2] == (48, 64)
    with pytest.raises(SimuloValueError, match=r"\.gif or \.mp4"):
        VideoWriter(tmp_path / "run.avi")
    sim.close()
