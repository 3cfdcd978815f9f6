"""The catalog humanoid (``simulo/robot/humanoid:v1``) is pybullet_data's ``mjcf/humanoid.xml`` with MuJoCo's own
shapes: every MJCF capsule is a URDF capsule of its radius and length, placed where the MJCF puts it; the masses
and centres of mass are those MuJoCo computes for the MJCF, and so is the torso's inertia (the other links' is
isotropic at their largest moment); the 21 hinges keep the order the humanoid sample's gear list expects. On
MuJoCo, lying on the floor with self-collision on, it makes fewer contacts than the same humanoid made of
cylinders; on both engines it falls and comes to rest lying on the floor."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pybullet_data
import pytest

import simulo
from simulo.authoring import catalog
from simulo.cli import check_urdf

REF = "simulo/robot/humanoid:v1"
URDF = Path(catalog.lookup(REF).file_path)
MJCF = Path(pybullet_data.getDataPath()) / "mjcf" / "humanoid.xml"
DT = 1.0 / 120.0

#: The joints in declaration order (the humanoid sample's joint_gears list relies on it), as the file had them
#: when its shapes were cylinders.
JOINTS = [
    "abdomen_z", "abdomen_y", "right_shoulder1", "right_shoulder2", "left_shoulder1", "left_shoulder2",
    "abdomen_x", "right_elbow", "left_elbow",
    "right_hip_x", "right_hip_y", "right_hip_z", "left_hip_x", "left_hip_y", "left_hip_z",
    "right_knee", "left_knee", "right_ankle_y", "right_ankle_x", "left_ankle_y", "left_ankle_x",
]
#: The light links that chain a body's two or three hinges.
HELPERS = {"lower_waist_z", "right_thigh_x", "right_thigh_z", "right_foot_y", "left_thigh_x", "left_thigh_z",
           "left_foot_y", "right_upper_arm_1", "left_upper_arm_1"}
#: URDF link -> MJCF body, for the links that carry shapes.
BODIES = {"torso": "torso", "lower_waist": "lwaist", "pelvis": "pelvis", "right_thigh": "right_thigh",
          "right_shin": "right_shin", "right_foot": "right_foot", "left_thigh": "left_thigh",
          "left_shin": "left_shin", "left_foot": "left_foot", "right_upper_arm": "right_upper_arm",
          "right_lower_arm": "right_lower_arm", "left_upper_arm": "left_upper_arm",
          "left_lower_arm": "left_lower_arm"}
#: Total mass of the file (kg): the MJCF's 40.844 kg of capsules and spheres plus the helper links.
TOTAL_MASS = 41.294


def _urdf_root() -> ET.Element:
    """The catalog file's ``<robot>`` element."""
    return ET.parse(URDF).getroot()


def _shape(element: ET.Element) -> ET.Element:
    """The one shape of a ``<collision>`` or ``<visual>`` element."""
    geometry = element.find("geometry")
    assert geometry is not None
    (shape,) = list(geometry)
    return shape


def _shapes(kind: str) -> Counter[tuple[str, float, float]]:
    """The file's ``kind`` (``collision`` or ``visual``) shapes as (shape, radius, length) with 5 decimals."""
    found: Counter[tuple[str, float, float]] = Counter()
    for element in _urdf_root().iter(kind):
        shape = _shape(element)
        found[(shape.tag, round(float(shape.get("radius", "nan")), 5),
               round(float(shape.get("length", "0")), 5))] += 1
    return found


@pytest.fixture
def mujoco() -> ModuleType:
    """MuJoCo (an optional dependency: its tests skip without it)."""
    return pytest.importorskip("mujoco")


def _urdf_model(mujoco: ModuleType) -> Any:
    """The file through MuJoCo's URDF importer, its root on a free joint."""
    spec = mujoco.MjSpec.from_file(str(URDF))
    spec.worldbody.first_body().add_freejoint()
    return spec.compile()


def _mjcf_model(mujoco: ModuleType) -> Any:
    """pybullet_data's MJCF humanoid without its two 0.004 rad body tilts (lower waist and pelvis), which the
    URDF leaves out: the bodies' frames are then the URDF links' frames, moved to the joints."""
    spec = mujoco.MjSpec.from_file(str(MJCF))
    for body in spec.bodies[1:]:
        body.quat = [1.0, 0.0, 0.0, 0.0]
    return spec.compile()


def _body(mujoco: ModuleType, model: Any, name: str) -> int:
    return int(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name))


def test_the_file_passes_the_checker_with_the_same_joints_and_links() -> None:
    assert check_urdf.main([str(URDF)]) == 0
    model = simulo.Asset.from_registry(REF).model
    assert [j.name for j in model.movable_joints] == JOINTS
    assert model.root_link == "torso"
    root = _urdf_root()
    assert [j.get("type") for j in root.iter("joint")] == ["revolute"] * 21
    assert {link.get("name") for link in root.iter("link")} == HELPERS | set(BODIES)
    for link in root.iter("link"):
        if link.get("name") in HELPERS:  # as they were: 0.05 kg, 0.0002 kg·m², no shape
            assert link.find("inertial/mass").get("value") == "0.05"  # type: ignore[union-attr]
            inertia = link.find("inertial/inertia")
            assert inertia is not None and [inertia.get(k) for k in ("ixx", "iyy", "izz")] == ["0.0002"] * 3
            assert link.find("collision") is None and link.find("visual") is None


def test_every_mjcf_capsule_is_a_urdf_capsule_of_its_radius_and_length() -> None:
    expected: Counter[tuple[str, float, float]] = Counter()
    for geom in ET.parse(MJCF).getroot().iter("geom"):
        radius = float(geom.get("size", "0").split()[0])
        if geom.get("type") == "capsule":  # fromto: the cylindrical part runs from one end to the other
            ends = np.array([float(v) for v in geom.get("fromto", "").split()])
            expected[("capsule", round(radius, 5), round(float(np.linalg.norm(ends[3:] - ends[:3])), 5))] += 1
        elif geom.get("type") == "sphere":
            expected[("sphere", round(radius, 5), 0.0)] += 1
    assert sum(expected.values()) == 19 and expected[("capsule", 0.027, 0.21095)] == 4
    assert _shapes("collision") == expected
    assert _shapes("visual") == expected
    assert not re.search(r"<(cylinder|box|mesh)\b", URDF.read_text(encoding="utf-8"))


def test_on_mujoco_the_shapes_sit_where_the_mjcf_puts_them(mujoco: ModuleType) -> None:
    urdf, mjcf = _urdf_model(mujoco), _mjcf_model(mujoco)
    udata, mdata = mujoco.MjData(urdf), mujoco.MjData(mjcf)
    mujoco.mj_forward(urdf, udata)
    mujoco.mj_forward(mjcf, mdata)
    capsule, sphere = mujoco.mjtGeom.mjGEOM_CAPSULE, mujoco.mjtGeom.mjGEOM_SPHERE
    assert Counter(urdf.geom_type.tolist()) == {int(capsule): 16, int(sphere): 3}  # no cylinder left
    # every shape in the world frame, relative to the torso: (type, size, centre, axis) of each model
    for link, body in BODIES.items():
        ugeoms = np.flatnonzero(urdf.geom_bodyid == _body(mujoco, urdf, link))
        mgeoms = np.flatnonzero(mjcf.geom_bodyid == _body(mujoco, mjcf, body))
        assert len(ugeoms) == len(mgeoms) > 0, link
        for g in mgeoms:
            centre = mdata.geom_xpos[g] - mdata.xpos[_body(mujoco, mjcf, "torso")]
            axis = mdata.geom_xmat[g].reshape(3, 3)[:, 2]
            matches = [u for u in ugeoms if urdf.geom_type[u] == mjcf.geom_type[g]
                       and np.allclose(urdf.geom_size[u][:2], mjcf.geom_size[g][:2], atol=1e-5)
                       and np.allclose(udata.geom_xpos[u] - udata.xpos[_body(mujoco, urdf, "torso")], centre, atol=1e-5)
                       and (mjcf.geom_type[g] == sphere
                            or abs(float(udata.geom_xmat[u].reshape(3, 3)[:, 2] @ axis)) > 1.0 - 1e-9)]
            assert len(matches) == 1, (link, g)


def test_on_mujoco_the_masses_are_the_mjcfs_and_the_torso_inertia_is_exact(mujoco: ModuleType) -> None:
    urdf, mjcf = _urdf_model(mujoco), _mjcf_model(mujoco)
    assert float(urdf.body_mass.sum()) == pytest.approx(TOTAL_MASS, abs=1e-3)
    # the MJCF's own total is the shapes' alone: the URDF adds nine 0.05 kg helper links, the hinge chains
    # MuJoCo composes inside one body
    assert float(mjcf.body_mass.sum()) == pytest.approx(TOTAL_MASS - 0.05 * len(HELPERS), abs=1e-3)
    udata, mdata = mujoco.MjData(urdf), mujoco.MjData(mjcf)
    mujoco.mj_forward(urdf, udata)
    mujoco.mj_forward(mjcf, mdata)
    torso_u, torso_m = udata.xpos[_body(mujoco, urdf, "torso")], mdata.xpos[_body(mujoco, mjcf, "torso")]
    for link, body in BODIES.items():
        u, m = _body(mujoco, urdf, link), _body(mujoco, mjcf, body)
        assert urdf.body_mass[u] == pytest.approx(mjcf.body_mass[m], rel=1e-5), link
        np.testing.assert_allclose(udata.xipos[u] - torso_u, mdata.xipos[m] - torso_m, atol=1e-6, err_msg=link)
        moments = np.sort(urdf.body_inertia[u])
        exact = np.sort(mjcf.body_inertia[m])
        if link == "torso":  # the floating base keeps MuJoCo's tensor, in its principal axes
            np.testing.assert_allclose(moments, exact, rtol=1e-4)
        else:  # the limbs: isotropic at their largest moment (PyBullet at 1/120 s needs it)
            np.testing.assert_allclose(moments, [exact[-1]] * 3, rtol=1e-4, err_msg=link)


def _lying_contacts(mujoco: ModuleType, path: Path, self_collision: bool, drops: int = 8
                    ) -> tuple[float, np.ndarray]:
    """Mean contacts per step over seconds 2-5 after a drop from 1.34 m, passive joints (no torque), on MuJoCo's
    own import of the file with a floor; each drop tilted a little differently. Without self-collision only
    link-floor pairs collide (as the catalog spawns it); with it, every pair of links but parent and child.
    Also the torso heights at 5 s."""
    spec = mujoco.MjSpec.from_file(str(path))
    spec.worldbody.first_body().add_freejoint()
    floor = spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0.0, 0.0, 1.0])
    if not self_collision:  # links collide with the floor's bit only
        for geom in spec.geoms:
            geom.contype, geom.conaffinity = 1, 2
        floor.contype, floor.conaffinity = 2, 1
    spec.option.timestep = DT
    model = spec.compile()
    counts, heights = [], []
    for i in range(drops):
        data = mujoco.MjData(model)
        half = 0.05 * i
        data.qpos[:7] = [0.0, 0.0, 1.34, math.cos(half), math.sin(half) * (i % 2), math.sin(half) * ((i + 1) % 2),
                         0.0]
        for step in range(600):
            mujoco.mj_step(model, data)
            if step >= 240:
                counts.append(data.ncon)
        heights.append(float(data.qpos[2]))
    return float(np.mean(counts)), np.array(heights)


def test_on_mujoco_lying_on_the_floor_it_rests_on_about_one_contact_per_shape_that_touches(mujoco: ModuleType
                                                                                          ) -> None:
    mean, heights = _lying_contacts(mujoco, URDF, self_collision=False)
    # measured 9.1 (the cylinder humanoid: 10.6-10.7): a capsule on the floor touches it at one point, at most two
    assert 5.0 < mean <= 10.0
    assert np.all(heights < 0.4) and np.all(heights > 0.05)


def test_on_mujoco_with_self_collision_capsules_make_fewer_contacts_than_cylinders(mujoco: ModuleType,
                                                                                    tmp_path: Path) -> None:
    # the same file with each capsule as a cylinder as long overall (the catalog's shapes before)
    def as_cylinder(match: re.Match[str]) -> str:
        radius, length = float(match["r"]), float(match["l"])
        return f'<cylinder radius="{match["r"]}" length="{length + 2.0 * radius:.6g}"/>'

    cylinders = tmp_path / "humanoid_cylinders.urdf"
    text, count = re.subn(r'<capsule radius="(?P<r>[\d.]+)" length="(?P<l>[\d.]+)"/>', as_cylinder,
                          URDF.read_text(encoding="utf-8"))
    assert count == 32
    cylinders.write_text(text, encoding="utf-8")
    capsule_mean, capsule_heights = _lying_contacts(mujoco, URDF, self_collision=True)
    cylinder_mean, _ = _lying_contacts(mujoco, cylinders, self_collision=True)
    # measured 12.3 against 18.3: the cylinders' rims touch the floor and the overlapping neighbours (pelvis and
    # thighs, torso and upper arms, which the helper links keep from being parent and child) at several points
    assert capsule_mean <= 14.0
    assert capsule_mean < 0.8 * cylinder_mean
    assert np.all(capsule_heights < 0.4)


def test_on_pybullet_the_collision_shapes_are_the_files_capsules_and_spheres() -> None:
    p = pytest.importorskip("pybullet")
    from simulo.engine.pybullet.engine import PyBulletEngine  # noqa: PLC0415 (the engine's body ids)

    expected: dict[str, list[tuple[int, float, float]]] = {}
    for link in _urdf_root().iter("link"):
        shapes = []
        for element in link.iter("collision"):
            shape = _shape(element)
            kind = p.GEOM_CAPSULE if shape.tag == "capsule" else p.GEOM_SPHERE
            shapes.append((kind, float(shape.get("length", "0")), float(shape.get("radius", "nan"))))
        expected[link.get("name", "")] = sorted(shapes)
    masses = {link.get("name"): float(link.find("inertial/mass").get("value"))  # type: ignore[union-attr]
              for link in _urdf_root().iter("link")}
    engine = PyBulletEngine(num_envs=1, dt=DT)
    try:
        batch = engine.add_articulation(URDF, np.array([[0.0, 0.0, 1.34, 1.0, 0.0, 0.0, 0.0]]), False)
        world, body = batch.handles[0]
        links = [(-1, "torso")] + [(j, world.joints(body)[j].link_name) for j in range(len(world.joints(body)))]
        assert sorted(name for _, name in links) == sorted(expected)
        for index, name in links:
            found = []
            for shape in p.getCollisionShapeData(body, index, physicsClientId=world.cid):
                kind, dims = shape[2], shape[3]
                # a capsule's dimensions are (length, radius); a sphere's (radius, radius)
                found.append((kind, dims[0], dims[1]) if kind == p.GEOM_CAPSULE else (kind, 0.0, dims[0]))
            assert len(found) == len(expected[name]), name
            for got, want in zip(sorted(found), expected[name], strict=True):
                assert got[0] == want[0] and got[1:] == pytest.approx(want[1:], abs=1e-6), name
            assert world.mass(body, index) == pytest.approx(masses[name]), name
        assert sum(kind == p.GEOM_CAPSULE for shapes in expected.values() for kind, _, _ in shapes) == 16
    finally:
        engine.close()


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_tipped_backwards_it_falls_and_comes_to_rest_lying_on_its_back(engine: str) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    # dropped from 1.34 m tipped 0.2 rad backwards (dropped upright, PyBullet sometimes leaves it sitting)
    tilt = -0.2
    scene = simulo.Scene(num_envs=2, env_spacing=4.0)
    scene.add(simulo.Terrain.plane(), at="/World/ground", per_environment=False)
    robot = simulo.Robot(simulo.Asset.from_registry(REF), initial_pose=simulo.Pose.from_xyz_rpy((0.0, 0.0, 1.34),
                                                                                                  (0.0, tilt, 0.0)))
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene, dt=DT, engine=engine) as sim:
        # the base reads back as spawned: the torso's tilted inertial frame does not tilt the pose it reports
        spawned = [1.34, math.cos(tilt / 2.0), 0.0, math.sin(tilt / 2.0), 0.0]
        np.testing.assert_allclose(np.asarray(robot.state.pose)[:, 2:], [spawned] * 2, atol=1e-6)
        assert robot.get_joint_names() == JOINTS
        sim.step(480)  # four seconds, no command: passive joints
        pose = np.asarray(robot.state.pose)
        speed = np.linalg.norm(np.asarray(robot.state.linear_velocity), axis=1)
    # on its back, the torso's 0.07 m capsule on the floor (measured 0.08 m on both engines)
    assert np.all(pose[:, 2] < 0.15) and np.all(pose[:, 2] > 0.05)
    assert np.all(speed < 0.1)  # and at rest
