"""PyBullet engine: link inertias come from the URDF (PyBullet's default recomputes them from collision shapes).

The seed's pick-and-place arm is the one catalog model that keeps PyBullet's recomputation, as the seed loads it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.authoring.catalog.registry import available
from simulo.engine.pybullet.engine import PyBulletEngine
from simulo.engine.pybullet.urdf_file import file_inertias

CATALOG = Path(simulo.__file__).parent / "authoring" / "catalog"
GEARS = np.array([67.5] * 7 + [45, 45, 45, 135, 45, 45, 135, 45, 90, 90, 22.5, 22.5, 22.5, 22.5])
IDENTITY = [0.0, 0.0, 1.4, 1.0, 0.0, 0.0, 0.0]


def test_usable_inertia_diagonals_are_listed_by_link(tmp_path: Path) -> None:
    urdf = tmp_path / "two.urdf"
    urdf.write_text("""<robot name="two">
  <link name="solid"><inertial><mass value="1"/><inertia ixx="1" iyy="2" izz="3" ixy="0.1" ixz="0" iyz="0"/>
    </inertial><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="dummy"><inertial><mass value="0.05"/><inertia ixx="0.0002" iyy="0.0003" izz="0.0004" ixy="0" ixz="0"
    iyz="0"/></inertial></link>
  <link name="zero"><inertial><mass value="0.05"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/>
    </inertial></link>
  <link name="flat"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="5" ixy="0" ixz="0" iyz="0"/>
    </inertial></link>
  <link name="nothing"/>
  <joint name="a" type="revolute"><parent link="solid"/><child link="dummy"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="b" type="fixed"><parent link="dummy"/><child link="zero"/></joint>
  <joint name="c" type="fixed"><parent link="zero"/><child link="nothing"/></joint>
  <joint name="d" type="fixed"><parent link="nothing"/><child link="flat"/></joint>
</robot>""", encoding="utf-8")
    assert file_inertias(urdf) == {"solid": (1.0, 2.0, 3.0), "dummy": (0.0002, 0.0003, 0.0004)}


@pytest.mark.parametrize("from_file", [True, False])
def test_the_engine_loads_the_files_inertias_unless_told_not_to(from_file: bool) -> None:
    inertias = file_inertias(CATALOG / "humanoid.urdf")
    engine = PyBulletEngine(num_envs=2, dt=1.0 / 120.0)
    try:
        batch = engine.add_articulation(CATALOG / "humanoid.urdf", np.tile(IDENTITY, (2, 1)), False,
                                        inertia_from_file=from_file)
        for world, body in batch.handles:
            links = {j.link_name: k for k, j in enumerate(world.joints(body))}
            dummy = world.inertia_diagonal(body, links["right_thigh_x"])  # a hip split: no collision shape
            if from_file:
                np.testing.assert_allclose(dummy, inertias["right_thigh_x"])
            else:
                assert max(dummy) < 1e-6  # PyBullet's recomputation for a link without a shape
    finally:
        engine.close()


def test_only_the_seeds_arm_and_pybullet_datas_panda_keep_pybullets_recomputed_inertia() -> None:
    refs = available()
    engine = {"simulo/robot/pick_arm:v1", "simulo/robot/franka-panda:v1", "simulo/robot/franka-panda:v2"}
    assert engine <= set(refs) and "simulo/robot/humanoid:v1" in refs
    for ref in refs:
        assert simulo.Asset.from_registry(ref).inertia_from_file == (ref not in engine), ref
    assert simulo.Asset.from_urdf_file(CATALOG / "pick_arm.urdf").inertia_from_file  # a file of one's own: yes


def test_the_catalog_humanoid_stays_sound_under_the_samples_torques_at_dt_1_120() -> None:
    scene = simulo.Scene(num_envs=4, env_spacing=4.0)
    scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
    robot = simulo.Robot(asset=simulo.Asset.from_registry("simulo/robot/humanoid:v1"),
                         initial_pose=simulo.Pose.identity())
    scene.add(robot, at="/World/Robot")
    sim = simulo.Simulation(scene, dt=1.0 / 120.0)
    try:
        rng = np.random.default_rng(0)
        fastest = 0.0
        for _ in range(240):  # two seconds of random full-gear torques: it falls, it does not fly
            robot.set_joint_effort_target(rng.uniform(-1.0, 1.0, (4, 21)) * GEARS)
            sim.step()
            fastest = max(fastest, float(np.abs(np.asarray(robot.state.linear_velocity)).max()))
        assert fastest < 15.0  # about 100 m/s (PyBullet's joint-speed cap) with PyBullet's recomputed inertias
    finally:
        sim.close()
