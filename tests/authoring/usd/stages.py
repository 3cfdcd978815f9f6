"""Small USD stages written with usd-core for the USD importer's tests (the caller has skipped without pxr)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade


def body(stage: Any, path: str, at: tuple[float, float, float], mass: float | None,
         inertia: tuple[float, float, float] | None = None, com: tuple[float, float, float] | None = None) -> Any:
    """A rigid body Xform at ``at`` with a MassAPI (when ``mass`` is given)."""
    xform = UsdGeom.Xform.Define(stage, path)
    xform.AddTranslateOp().Set(Gf.Vec3d(*at))
    prim = xform.GetPrim()
    UsdPhysics.RigidBodyAPI.Apply(prim)
    if mass is not None:
        api = UsdPhysics.MassAPI.Apply(prim)
        api.CreateMassAttr(mass)
        if inertia is not None:
            api.CreateDiagonalInertiaAttr(Gf.Vec3f(*inertia))
        if com is not None:
            api.CreateCenterOfMassAttr(Gf.Vec3f(*com))
    return prim


def collider(prim: Any) -> Any:
    """``prim`` with a CollisionAPI."""
    UsdPhysics.CollisionAPI.Apply(prim)
    return prim


def cube(stage: Any, path: str, scale: tuple[float, float, float], at: tuple[float, float, float] = (0, 0, 0)) -> Any:
    """A unit Cube collider scaled to ``scale`` (its edge lengths)."""
    shape = UsdGeom.Cube.Define(stage, path)
    shape.CreateSizeAttr(1.0)
    if any(at):
        shape.AddTranslateOp().Set(Gf.Vec3d(*at))
    shape.AddScaleOp().Set(Gf.Vec3f(*scale))
    return collider(shape.GetPrim())


def joint(stage: Any, kind: str, path: str, body0: str | None, body1: str,
          pos0: tuple[float, float, float] = (0, 0, 0), pos1: tuple[float, float, float] = (0, 0, 0),
          rot: Gf.Quatf | None = None, axis: str = "X", limits: tuple[float, float] | None = None) -> Any:
    """A joint of ``kind`` ("Revolute", "Prismatic", "Fixed", "Spherical", ...) between two bodies."""
    schema = getattr(UsdPhysics, f"{kind}Joint")
    made = schema.Define(stage, path)
    if body0 is not None:
        made.CreateBody0Rel().SetTargets([Sdf.Path(body0)])
    made.CreateBody1Rel().SetTargets([Sdf.Path(body1)])
    made.CreateLocalPos0Attr(Gf.Vec3f(*pos0))
    made.CreateLocalPos1Attr(Gf.Vec3f(*pos1))
    made.CreateLocalRot0Attr(rot or Gf.Quatf(1.0))
    made.CreateLocalRot1Attr(rot or Gf.Quatf(1.0))
    if hasattr(made, "CreateAxisAttr"):
        made.CreateAxisAttr(axis)
    if limits is not None:
        made.CreateLowerLimitAttr(limits[0])
        made.CreateUpperLimitAttr(limits[1])
    return made.GetPrim()


def new_stage(path: Path, root: str = "/cartpole", up: str = "Z", meters_per_unit: float = 1.0) -> Any:
    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, up)
    UsdGeom.SetStageMetersPerUnit(stage, meters_per_unit)
    robot = UsdGeom.Xform.Define(stage, root).GetPrim()
    stage.SetDefaultPrim(robot)
    UsdPhysics.ArticulationRootAPI.Apply(robot)
    return stage


def cartpole(folder: Path, name: str = "cartpole.usda",
             edit: Callable[[Any], None] | None = None, pole_rot: Gf.Quatf | None = None, pole_axis: str = "Y") -> Path:
    """The catalog cartpole (simulo/robot/cartpole:v1) as a UsdPhysics articulation: its rail bolted to the world
    2 m up, the cart on a prismatic joint along x (+-4 m, 400 N, 100 m/s), the pole free about y."""
    path = folder / name
    stage = new_stage(path)
    body(stage, "/cartpole/slider", (0, 0, 2), 5.0, (0.001333, 29.4, 29.4))
    cube(stage, "/cartpole/slider/collision", (8.4, 0.04, 0.04))
    body(stage, "/cartpole/cart", (0, 0, 2), 1.0, (0.005208, 0.009375, 0.010833))
    cube(stage, "/cartpole/cart/collision", (0.3, 0.2, 0.15))
    body(stage, "/cartpole/pole", (0, 0.125, 2), 0.25, (0.020858, 0.020858, 0.00005), com=(0, 0, 0.5))
    cylinder = UsdGeom.Cylinder.Define(stage, "/cartpole/pole/collision")
    cylinder.CreateRadiusAttr(0.02)
    cylinder.CreateHeightAttr(1.0)
    cylinder.CreateAxisAttr("Z")
    cylinder.AddTranslateOp().Set(Gf.Vec3d(0, 0, 0.5))
    collider(cylinder.GetPrim())
    UsdGeom.Scope.Define(stage, "/cartpole/joints")
    joint(stage, "Fixed", "/cartpole/joints/rail_to_world", None, "/cartpole/slider", pos0=(0, 0, 2))
    slider = joint(stage, "Prismatic", "/cartpole/joints/slider_to_cart", "/cartpole/slider", "/cartpole/cart",
                   axis="X", limits=(-4.0, 4.0))
    UsdPhysics.DriveAPI.Apply(slider, "linear").CreateMaxForceAttr(400.0)
    slider.CreateAttribute("physxJoint:maxJointVelocity", Sdf.ValueTypeNames.Float).Set(100.0)
    joint(stage, "Revolute", "/cartpole/joints/cart_to_pole", "/cartpole/cart", "/cartpole/pole",
          pos0=(0, 0.125, 0), rot=pole_rot, axis=pole_axis)
    if edit is not None:
        edit(stage)
    stage.GetRootLayer().Save()
    return path


def physics_material(stage: Any, path: str, friction: float, restitution: float = 0.0,
                     combine: str | None = None) -> UsdShade.Material:
    """A Material with PhysicsMaterialAPI (``dynamicFriction``, ``restitution``) and, when given, PhysX's
    ``frictionCombineMode``."""
    material = UsdShade.Material.Define(stage, path)
    api = UsdPhysics.MaterialAPI.Apply(material.GetPrim())
    api.CreateDynamicFrictionAttr(friction)
    api.CreateRestitutionAttr(restitution)
    if combine is not None:
        material.GetPrim().CreateAttribute("physxMaterial:frictionCombineMode", Sdf.ValueTypeNames.Token).Set(combine)
    return material


def bind(prim: Any, material: UsdShade.Material, purpose: str | None = None) -> None:
    """Bind ``material`` to ``prim`` (for all purposes, or for ``purpose`` such as ``"physics"``)."""
    api = UsdShade.MaterialBindingAPI.Apply(prim)
    if purpose is None:
        api.Bind(material)
    else:
        api.Bind(material, UsdShade.Tokens.weakerThanDescendants, purpose)


def sliding_box(folder: Path, material: tuple[float, str] | None, name: str = "box.usda") -> Path:
    """A free 0.2 m cube of 1 kg resting on the ground (its centre 0.1 m up), an articulation of one body, its
    collider bound to a physics material of ``(dynamic friction, combine mode)`` when given."""
    path = folder / name
    stage = new_stage(path, root="/box")
    body(stage, "/box/body", (0, 0, 0.1), 1.0, (0.00667, 0.00667, 0.00667))
    shape = cube(stage, "/box/body/collision", (0.2, 0.2, 0.2))
    if material is not None:
        bind(shape, physics_material(stage, "/box/Looks/surface", material[0], combine=material[1]), "physics")
    stage.GetRootLayer().Save()
    return path
