"""The MuJoCo engine loads what the PyBullet engine loads, in the same order: catalog robots, MJCF, terrain."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.authoring.catalog.registry import entries
from simulo.engine.registry import create_engine
from simulo.errors import AssetError

pytest.importorskip("mujoco")

CATALOG = [e.ref for e in entries()]

MJCF = """<mujoco>
  <worldbody>
    <body name="torso" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="2"/>
      <body name="left" pos="0.1 0 0">
        <joint name="hip_l" type="hinge" axis="0 1 0" range="-1 1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5"/>
        <body name="foot" pos="0.3 0 0">
          <joint name="ankle" type="slide" axis="1 0 0" range="0 0.1"/>
          <geom type="sphere" size="0.04" mass="0.1"/>
        </body>
      </body>
      <body name="right" pos="-0.1 0 0">
        <joint name="hip_r" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 -0.3 0 0" size="0.03" mass="0.5"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _scene(asset: simulo.Asset, num_envs: int = 2) -> tuple[simulo.Robot, simulo.Scene]:
    scene = simulo.Scene(num_envs=num_envs)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(asset)
    scene.add(robot, at="/World/Robot")
    return robot, scene


@pytest.mark.parametrize("ref", CATALOG)
def test_catalog_robots_load_and_step_with_the_pybullet_engines_names(ref: str) -> None:
    asset = simulo.Asset.from_registry(ref)
    names = {}
    for engine in ("pybullet", "mujoco"):
        robot, scene = _scene(asset)
        with simulo.Simulation(scene, engine=engine) as sim:
            names[engine] = (robot.get_body_names(), robot.get_joint_names())
            if engine == "mujoco":
                sim.step(20)
                assert np.isfinite(np.asarray(robot.state.joint_positions)).all()
                assert np.isfinite(np.asarray(robot.state.pose)).all()
    assert names["mujoco"] == names["pybullet"]


def test_an_mjcf_file_loads_in_document_order(tmp_path: Path) -> None:
    path = tmp_path / "walker.xml"
    path.write_text(MJCF, encoding="utf-8")
    engine = create_engine("mujoco", num_envs=2, dt=0.005)
    try:
        engine.add_plane(0.0, None, None)
        poses = np.array([[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]])
        batch = engine.add_articulation(path, poses, fixed_base=False)
        assert list(batch.body_names) == ["torso", "left", "foot", "right"]
        assert [(j.name, j.kind) for j in batch.joints] == [("hip_l", "revolute"), ("ankle", "prismatic"),
                                                             ("hip_r", "revolute")]
        assert (batch.joints[0].lower, batch.joints[0].upper) == (-1.0, 1.0)
        assert batch.joints[2].lower > batch.joints[2].upper  # unlimited
        pose, lin, ang = np.empty((2, 7)), np.empty((2, 3)), np.empty((2, 3))
        batch.read_base(pose, lin, ang)
        np.testing.assert_allclose(pose, poses)
        for _ in range(200):
            engine.step()
        batch.read_base(pose, lin, ang)
        assert pose[0, 2] < 0.5  # it fell onto the plane
        np.testing.assert_allclose(pose[1, :3] - pose[0, :3], [2.0, 0.0, 0.0], atol=1e-9)  # same fall, 2 m apart
    finally:
        engine.close()


def test_a_ball_joint_in_mjcf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ball.xml"
    path.write_text(MJCF.replace('type="slide" axis="1 0 0" range="0 0.1"', 'type="ball"'), encoding="utf-8")
    engine = create_engine("mujoco", num_envs=1, dt=0.005)
    try:
        with pytest.raises(AssetError, match="joint 'ankle' of .* is a ball or free joint"):
            engine.add_articulation(path, np.array([[0.0, 0, 1, 1, 0, 0, 0]]), fixed_base=False)
    finally:
        engine.close()


def test_a_heightfield_puts_its_rows_along_y_and_columns_along_x() -> None:
    engine = create_engine("mujoco", num_envs=3, dt=0.005)
    try:
        heights = np.zeros((5, 9))  # rows at y = -0.5 .. 0.5, columns at x = -1 .. 1
        heights[:, 5:] = 0.2  # a step up on the +x side
        heights[4, :] += 0.1  # and a ridge along the last row (+y)
        engine.add_heightfield(heights, 0.25, np.array([0.0, 0, 0, 1, 0, 0, 0]), None, None)
        starts = np.array([[-0.6, -0.25, 0.5, 1, 0, 0, 0], [0.6, -0.25, 0.5, 1, 0, 0, 0],
                           [-0.6, 0.5, 0.5, 1, 0, 0, 0]])
        balls = engine.add_rigid("sphere", (0.05,), 0.1, starts)
        for _ in range(400):
            engine.step()
        pose, lin, ang = np.empty((3, 7)), np.empty((3, 3)), np.empty((3, 3))
        balls.read(pose, lin, ang)
        np.testing.assert_allclose(pose[:, 2], [0.05, 0.25, 0.15], atol=3e-3)
    finally:
        engine.close()
