"""What the USD importer refuses: each refusal names the prim and what is expected."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

from pxr import Gf, Sdf, UsdGeom, UsdPhysics

import simulo
from simulo.errors import AssetError, MissingDependencyError

from .stages import body, cartpole, collider, joint


def _spherical(stage: Any) -> None:
    joint(stage, "Spherical", "/cartpole/joints/ball", "/cartpole/cart", "/cartpole/extra")
    body(stage, "/cartpole/extra", (0, 0, 2), 1.0, (0.1, 0.1, 0.1))


def _d6(stage: Any) -> None:
    body(stage, "/cartpole/extra", (0, 0, 2), 1.0, (0.1, 0.1, 0.1))
    made = UsdPhysics.Joint.Define(stage, "/cartpole/joints/d6")
    made.CreateBody0Rel().SetTargets([Sdf.Path("/cartpole/cart")])
    made.CreateBody1Rel().SetTargets([Sdf.Path("/cartpole/extra")])


def _not_a_body(stage: Any) -> None:
    UsdGeom.Xform.Define(stage, "/cartpole/ghost")
    joint(stage, "Fixed", "/cartpole/joints/to_ghost", "/cartpole/pole", "/cartpole/ghost")


def _cycle(stage: Any) -> None:
    joint(stage, "Fixed", "/cartpole/joints/loop", "/cartpole/slider", "/cartpole/pole")


def _second_root(stage: Any) -> None:
    UsdPhysics.ArticulationRootAPI.Apply(stage.GetPrimAtPath("/cartpole/pole"))


def _tendon(stage: Any) -> None:
    stage.GetPrimAtPath("/cartpole/pole").AddAppliedSchema("PhysxTendonAxisRootAPI:t0")


def _deformable(stage: Any) -> None:
    stage.GetPrimAtPath("/cartpole/cart").AddAppliedSchema("PhysxDeformableBodyAPI")


def _oval_ball(stage: Any) -> None:
    ball = UsdGeom.Sphere.Define(stage, "/cartpole/cart/ball")
    ball.AddScaleOp().Set(Gf.Vec3f(1.0, 2.0, 1.0))
    collider(ball.GetPrim())


def _elliptic_cylinder(stage: Any) -> None:
    UsdGeom.Cylinder(stage.GetPrimAtPath("/cartpole/pole/collision")).AddScaleOp().Set(Gf.Vec3f(1.0, 2.0, 1.0))


def _massless(stage: Any) -> None:
    UsdPhysics.MassAPI(stage.GetPrimAtPath("/cartpole/cart")).GetMassAttr().Clear()


def _unlimited_prismatic(stage: Any) -> None:
    prismatic = UsdPhysics.PrismaticJoint(stage.GetPrimAtPath("/cartpole/joints/slider_to_cart"))
    prismatic.GetUpperLimitAttr().Set(float("inf"))


def _reversed(stage: Any) -> None:
    body(stage, "/cartpole/extra", (0, 0, 2), 1.0, (0.1, 0.1, 0.1))
    joint(stage, "Fixed", "/cartpole/joints/backwards", "/cartpole/extra", "/cartpole/pole")


def _hinged_to_world(stage: Any) -> None:
    stage.RemovePrim("/cartpole/joints/rail_to_world")
    joint(stage, "Revolute", "/cartpole/joints/rail_to_world", None, "/cartpole/slider", pos0=(0, 0, 2))


def _plane(stage: Any) -> None:
    plane = UsdGeom.Plane.Define(stage, "/cartpole/cart/plane")
    collider(plane.GetPrim())


def _point_instancer(stage: Any) -> None:
    UsdGeom.PointInstancer.Define(stage, "/cartpole/cart/bolts")


def _no_root(stage: Any) -> None:
    stage.GetPrimAtPath("/cartpole").RemoveAPI(UsdPhysics.ArticulationRootAPI)


REFUSALS: list[tuple[str, Callable[[Any], None], str]] = [
    ("spherical_joint", _spherical, r"joint '/cartpole/joints/ball' is a PhysicsSphericalJoint; the USD importer "
     r"reads PhysicsRevoluteJoint, PhysicsPrismaticJoint and PhysicsFixedJoint only"),
    ("d6_joint", _d6, r"joint '/cartpole/joints/d6' is a PhysicsJoint; .*\(spherical, distance and D6 joints are "
     r"not supported\)"),
    ("body_not_rigid", _not_a_body, r"joint '/cartpole/joints/to_ghost': body1 '/cartpole/ghost' is not a rigid "
     r"body; expected a prim with PhysicsRigidBodyAPI"),
    ("cycle", _cycle, r"joint '/cartpole/joints/loop' closes a cycle: '/cartpole/pole' is already connected to the "
     r"root '/cartpole/slider'"),
    ("two_roots", _second_root, r"the stage has 2 articulation roots: '/cartpole', '/cartpole/pole'; expected "
     r"exactly one"),
    ("tendon", _tendon, r"prim '/cartpole/pole' is a tendon or deformable \(PhysxTendonAxisRootAPI:t0\)"),
    ("deformable", _deformable, r"prim '/cartpole/cart' is a tendon or deformable \(PhysxDeformableBodyAPI\)"),
    ("sphere_non_uniform_scale", _oval_ball, r"Sphere collider '/cartpole/cart/ball' has the non-uniform scale "
     r"\(1, 2, 1\); a sphere can only be scaled evenly"),
    ("cylinder_non_uniform_scale", _elliptic_cylinder, r"Cylinder collider '/cartpole/pole/collision' \(axis Z\) "
     r"has the scale \(1, 2, 1\), whose two radial components differ"),
    ("no_mass", _massless, r"rigid body '/cartpole/cart' has no physics:mass \(PhysicsMassAPI\); expected a mass > 0"),
    ("prismatic_without_limits", _unlimited_prismatic, r"prismatic joint '/cartpole/joints/slider_to_cart' has no "
     r"finite physics:lowerLimit and physics:upperLimit"),
    ("body0_is_the_child", _reversed, r"joint '/cartpole/joints/backwards': its body0 '/cartpole/extra' is the "
     r"child side"),
    ("revolute_to_world", _hinged_to_world, r"joint '/cartpole/joints/rail_to_world' is a revolute joint to the "
     r"world; only a PhysicsFixedJoint may attach the root body to the world"),
    ("plane_collider", _plane, r"collider '/cartpole/cart/plane' is a Plane; the USD importer reads Cube, Sphere, "
     r"Cylinder, Capsule and Mesh colliders"),
    ("point_instancer", _point_instancer, r"prim '/cartpole/cart/bolts' is a PointInstancer; the USD importer reads "
     r"explicit prims"),
    ("no_articulation_root", _no_root, r"the stage has no prim with PhysicsArticulationRootAPI"),
]


@pytest.mark.parametrize(("edit", "message"), [(e, m) for _, e, m in REFUSALS], ids=[n for n, _, _ in REFUSALS])
def test_refused_with_a_message_naming_the_prim(tmp_path: Path, edit: Callable[[Any], None], message: str) -> None:
    path = cartpole(tmp_path, edit=edit)
    with pytest.raises(AssetError, match=message):
        simulo.Asset.from_usd_file(path)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AssetError, match=r"USD file '.*robot\.usd' not found; expected a path to a \.usd"):
        simulo.Asset.usd(tmp_path / "robot.usd")


def test_a_file_usd_cannot_open_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.usda"
    bad.write_text("#usda 1.0\n( this is not usda\n")
    with pytest.raises(AssetError, match=r"USD file '.*bad\.usda' cannot be opened"):
        simulo.Asset.from_usd(bad)


def test_a_usd_file_through_from_urdf_file_points_to_from_usd_file(tmp_path: Path) -> None:
    with pytest.raises(AssetError, match=r"is a USD file, not a URDF file; load it with Asset\.from_usd_file"):
        simulo.Asset.from_urdf_file(cartpole(tmp_path))


def test_missing_usd_core_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = cartpole(tmp_path)
    for name in ("pxr", "pxr.Usd", "pxr.UsdGeom", "pxr.UsdPhysics", "pxr.Gf"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingDependencyError, match=r"loading a USD asset needs usd-core, which is not installed: "
                                                     r"pip install 'simulo-local\[usd\]'"):
        simulo.Asset.from_usd_file(path)
