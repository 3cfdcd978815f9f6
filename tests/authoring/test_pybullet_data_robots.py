"""Standard robots from pybullet_data pass ``simulo check-urdf``, load through ``simulo.Robot`` on a plane
and step with finite state; the checker's verdict over every URDF there is pinned."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.authoring.urdf import check_urdf
from simulo.cli import check_urdf as check_urdf_cli
from simulo.errors import UrdfError

_SPEC = importlib.util.find_spec("pybullet_data")
DATA = Path(next(iter(_SPEC.submodule_search_locations))) if _SPEC and _SPEC.submodule_search_locations else None
pytestmark = pytest.mark.skipif(DATA is None, reason="needs pybullet_data")

ROBOTS = [
    "kuka_iiwa/model.urdf",       # massless root link (a bolted arm)
    "franka_panda/panda.urdf",    # package://meshes/... meshes, OBJ files
    "r2d2.urdf",
    "husky/husky.urdf",           # $(optenv ...) left over from xacro on its IMU joint
    "a1/a1.urdf",
    "laikago/laikago_toes.urdf",  # zero-radius visual spheres on the toes
    "racecar/racecar.urdf",       # a <material> inside a <geometry>
    "humanoid/humanoid.urdf",     # spherical joints, a NUL after </robot>
    "quadruped/minitaur.urdf",    # revolute knees whose <limit> has no lower or upper: free, with a note
]
#: What the engine refuses today, outside the authoring layer (src/simulo/engine/pybullet/articulation.py).
ENGINE_REFUSES = {"humanoid/humanoid.urdf": "the PyBullet engine drives no spherical joints yet"}


@pytest.mark.parametrize("name", ROBOTS)
def test_robot_passes_the_checker_loads_and_steps(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert DATA is not None
    path = DATA / name
    assert check_urdf_cli.main([str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"{path}: OK (robot ")
    if name in ENGINE_REFUSES:
        pytest.xfail(ENGINE_REFUSES[name])
    asset = simulo.Asset.from_urdf_file(path)
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Terrain.plane(), at="/World/ground", per_environment=False)
    robot = simulo.Robot(asset=asset, initial_pose=simulo.Pose(position=(0.0, 0.0, 0.6)))
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene) as sim:
        sim.step(50)
        state = robot.state
        assert robot.num_joints == len(asset.model.movable_joints)
        for value in (state.pose, state.joint_positions, state.joint_velocities):
            assert np.all(np.isfinite(np.asarray(value)))
        height = float(np.asarray(state.pose)[0, 2])
        assert -0.05 < height < 1.0, height  # stands on, or falls onto, the plane; never through it


def test_checker_verdict_over_all_of_pybullet_data() -> None:
    """Every URDF there passes except these, refused for what urdfdom or PyBullet would get wrong."""
    assert DATA is not None
    refused: dict[str, str] = {}
    files = sorted(DATA.rglob("*.urdf"))
    for file in files:
        try:
            check_urdf(file.read_text(encoding="utf-8", errors="replace"), source=str(file), base_dir=file.parent)
        except UrdfError as exc:
            refused[file.relative_to(DATA).as_posix()] = exc.problems[0]
    expected = {
        "bicycle/bike.urdf": "xyz='0.07, 0, -0.69' must be 3 finite number(s)",          # commas: urdfdom refuses
        "biped/biped2d_pybullet.urdf": "not XML: XML or text declaration not at start",
        "cube_no_rotation.urdf": "lower=1 is above upper=-1",                           # PyBullet's "no limit"
        "differential/diff_ring.urdf": "not XML: XML or text declaration not at start",
        "kuka_iiwa/model_for_sdf.urdf": "mesh file 'meshes/coarse/link_0.stl' not found",
        "plane_implicit.urdf": "found <plane>",
        "quadruped/microtaur/microtaur.urdf": "rpy='-3.14159 1.57079 0 0' must be 3 finite number(s)",
        "quadruped/spirit40newer.urdf": "has <collision> geometry but no <inertial>",
        "racecar/racecar_differential.urdf": "scale='1 1 1 1' must be 3 finite number(s)",
        "random_urdfs/168/168.urdf": "vertex 'v nan nan nan' needs 3 finite numbers",
        "torus_deform.urdf": "the robot defines no <link>",                              # a deformable, not a robot
        "toys/concave_box.urdf": "found <cdf>",
    }
    assert sorted(refused) == sorted(expected)
    for name, fragment in expected.items():
        assert fragment in refused[name], (name, refused[name])


def test_check_urdf_prints_the_notes(capsys: pytest.CaptureFixture[str]) -> None:
    assert DATA is not None
    kuka = DATA / "kuka_iiwa" / "model.urdf"
    assert check_urdf_cli.main([str(kuka)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{kuka}: OK (robot lbr_iiwa, 8 links, 7 joints)",
        "  note: root link 'lbr_iiwa_link_0' has mass 0: PyBullet makes the base static (fixed to the world) even "
        "when the robot's base is free",
    ]


def test_panda_reaches_the_engine_with_its_package_meshes_resolved() -> None:
    assert DATA is not None
    asset = simulo.Asset.from_urdf_file(DATA / "franka_panda" / "panda.urdf")
    prepared = asset.urdf_path().read_text(encoding="utf-8")
    assert "package://" not in prepared
    assert f'filename="{(DATA / "franka_panda" / "meshes" / "collision" / "link0.obj").resolve()}"' in prepared
    def without_filenames(text: str) -> str:
        return re.sub(r'filename="[^"]*"', "", text)

    assert without_filenames(prepared) == without_filenames(asset.urdf_text)  # nothing else was touched
