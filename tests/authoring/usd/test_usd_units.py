"""A Y-up stage in centimetres loads at the right size and orientation (metres, Z up)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

import numpy as np
from pxr import Gf, UsdGeom, UsdPhysics

import simulo
from simulo.authoring.urdf_xml import parse

from .stages import body, collider, cube, joint, new_stage

HALF = math.sqrt(0.5)


def _arm_in_centimetres_y_up(folder: Path) -> Path:
    """A base 1 m (100 cm) up, Y up, bolted to the world; a tip 50 cm above it on a hinge about the stage's Z."""
    path = folder / "arm_cm.usda"
    stage = new_stage(path, root="/arm", up="Y", meters_per_unit=0.01)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    body(stage, "/arm/base", (0, 100, 0), 2.0, (100.0, 200.0, 300.0))  # kg·cm²
    cube(stage, "/arm/base/collision", (10, 20, 30))
    body(stage, "/arm/tip", (0, 150, 0), 0.5, (10.0, 10.0, 10.0), com=(0, 5, 0))
    sphere = UsdGeom.Sphere.Define(stage, "/arm/tip/ball")
    sphere.CreateRadiusAttr(2.0)
    sphere.AddScaleOp().Set(Gf.Vec3f(2.5, 2.5, 2.5))  # a 5 cm ball
    collider(sphere.GetPrim())
    mesh = UsdGeom.Mesh.Define(stage, "/arm/tip/hull")
    mesh.CreatePointsAttr([(0, 0, 0), (4, 0, 0), (0, 4, 0), (0, 0, 4)])
    mesh.CreateFaceVertexCountsAttr([3, 3, 3, 3])
    mesh.CreateFaceVertexIndicesAttr([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3])
    mesh.AddScaleOp().Set(Gf.Vec3f(2, 2, 2))  # 8 cm edges
    collider(mesh.GetPrim())
    joint(stage, "Fixed", "/arm/bolt", None, "/arm/base")
    joint(stage, "Revolute", "/arm/hinge", "/arm/base", "/arm/tip", pos0=(0, 50, 0), axis="Z", limits=(-90, 90))
    stage.GetRootLayer().Save()
    return path


def test_y_up_centimetre_stage_is_read_in_metres_z_up(tmp_path: Path) -> None:
    asset = simulo.Asset.from_usd_file(_arm_in_centimetres_y_up(tmp_path))
    assert asset.fixed_base is True
    assert asset.spawn_pose is not None
    assert asset.spawn_pose.xyz == pytest.approx((0.0, 0.0, 1.0), abs=1e-12)
    assert asset.spawn_pose.quat_wxyz == pytest.approx((HALF, HALF, 0.0, 0.0))  # +90° about x: the stage's Y is up
    (hinge,) = asset.model.joints
    assert hinge.type == "revolute" and hinge.axis == (0.0, 0.0, 1.0)
    assert hinge.origin_xyz == pytest.approx((0.0, 0.5, 0.0))
    assert hinge.limits is not None and (hinge.limits.lower, hinge.limits.upper) == pytest.approx((-math.pi / 2,
                                                                                                  math.pi / 2))
    root, _ = parse(asset.urdf_text)
    assert root is not None
    links = {link.attrib["name"]: link for link in root.findall("link")}
    box = links["base"].findall("collision")[0].find("geometry").children[0]  # type: ignore[union-attr]
    size = box.attrib["size"]
    assert [float(v) for v in size.split()] == pytest.approx([0.1, 0.2, 0.3])
    inertia = links["base"].find("inertial").find("inertia").attrib  # type: ignore[union-attr]
    assert [float(inertia[k]) for k in ("ixx", "iyy", "izz")] == pytest.approx([0.01, 0.02, 0.03])  # kg·m²
    com = links["tip"].find("inertial").find("origin").attrib["xyz"]  # type: ignore[union-attr]
    assert [float(v) for v in com.split()] == pytest.approx([0.0, 0.05, 0.0])
    ball = links["tip"].findall("collision")[0].find("geometry").children[0]  # type: ignore[union-attr]
    assert ball.tag == "sphere" and float(ball.attrib["radius"]) == pytest.approx(0.05)
    (obj,) = {m.path for m in asset.model.meshes}  # the visible collider mesh is drawn from the same file
    assert obj is not None and asset.base_dir is not None and obj.is_relative_to(asset.base_dir.resolve())
    vertices = [[float(v) for v in line.split()[1:]] for line in obj.read_text().splitlines() if line.startswith("v ")]
    assert np.asarray(vertices) == pytest.approx(np.array([[0, 0, 0], [0.08, 0, 0], [0, 0.08, 0], [0, 0, 0.08]]))


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_y_up_centimetre_stage_stands_up_in_the_simulation(tmp_path: Path, engine: str) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(simulo.Asset.from_usd_file(_arm_in_centimetres_y_up(tmp_path)))
    scene.add(robot, at="/World/Arm")
    with simulo.Simulation(scene, engine=engine) as sim:
        sim.step()
        tip = np.asarray(robot.get_body_pose("tip"))[0]
    assert tip[:3] == pytest.approx([0.0, 0.0, 1.5], abs=1e-3)  # 150 cm up the stage's Y axis: 1.5 m up z


def test_principal_axes_turn_the_diagonal_inertia_into_the_link_frame(tmp_path: Path) -> None:
    path = tmp_path / "turned.usda"
    stage = new_stage(path, root="/box")
    base = body(stage, "/box/base", (0, 0, 0), 1.0, (1.0, 2.0, 3.0))
    cube(stage, "/box/base/collision", (0.1, 0.1, 0.1))
    # principal axes turned 90° about z: the first principal axis is the link's y, the second its -x
    UsdPhysics.MassAPI(base).CreatePrincipalAxesAttr(Gf.Quatf(HALF, 0.0, 0.0, HALF))
    stage.GetRootLayer().Save()
    root, _ = parse(simulo.Asset.from_usd_file(path).urdf_text)
    assert root is not None
    inertia = root.findall("link")[0].find("inertial").find("inertia").attrib  # type: ignore[union-attr]
    values = [float(inertia[k]) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")]
    assert values == pytest.approx([2.0, 0.0, 0.0, 1.0, 0.0, 3.0], abs=1e-6)
