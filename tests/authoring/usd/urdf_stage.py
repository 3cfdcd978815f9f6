"""A simple URDF (joint and shape origins without rotation, box, cylinder and sphere collisions, axes along +-x, y
or z) written as a UsdPhysics articulation, for comparing the USD importer with the URDF loader."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from pxr import Gf, Sdf, UsdGeom, UsdPhysics

from .stages import body, collider, joint, new_stage

_FLIP = Gf.Quatf(0.0, 0.0, 0.0, 1.0)
"""Half a turn about z: a joint frame whose +x and +y are the link's -x and -y (an axis of -x or -y)."""


def _xyz(element: ET.Element | None) -> tuple[float, float, float]:
    origin = element.find("origin") if element is not None else None
    if origin is None:
        return 0.0, 0.0, 0.0
    assert not any(float(v) for v in origin.attrib.get("rpy", "0 0 0").split()), "rotated origins are not written"
    x, y, z = (float(v) for v in origin.attrib.get("xyz", "0 0 0").split())
    return x, y, z


def _add(a: tuple[float, float, float], b: tuple[float, float, float]) -> tuple[float, float, float]:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def _collisions(stage: Any, path: str, link: ET.Element) -> None:
    for k, collision in enumerate(link.findall("collision")):
        geometry = collision.find("geometry")
        assert geometry is not None
        (shape,) = list(geometry)
        at = Gf.Vec3d(*_xyz(collision))
        if shape.tag == "box":
            made: Any = UsdGeom.Cube.Define(stage, f"{path}/collision_{k}")
            made.CreateSizeAttr(1.0)
            made.AddTranslateOp().Set(at)
            made.AddScaleOp().Set(Gf.Vec3f(*(float(v) for v in shape.attrib["size"].split())))
        elif shape.tag == "cylinder":
            made = UsdGeom.Cylinder.Define(stage, f"{path}/collision_{k}")
            made.CreateRadiusAttr(float(shape.attrib["radius"]))
            made.CreateHeightAttr(float(shape.attrib["length"]))
            made.CreateAxisAttr("Z")
            made.AddTranslateOp().Set(at)
        else:
            assert shape.tag == "sphere", shape.tag
            made = UsdGeom.Sphere.Define(stage, f"{path}/collision_{k}")
            made.CreateRadiusAttr(float(shape.attrib["radius"]))
            made.AddTranslateOp().Set(at)
        collider(made.GetPrim())


def write_stage(urdf: str, path: Path, fixed_base: bool) -> Path:
    """Write the URDF text ``urdf`` as a USD stage at ``path``; masses and centres of mass are written, inertia
    tensors are not (the engine computes them from the collision shapes, as for the catalog's arm)."""
    robot = ET.fromstring(urdf)
    name = robot.attrib["name"]
    stage = new_stage(path, root=f"/{name}")
    joints = robot.findall("joint")
    parent_of = {j.find("child").attrib["link"]: j for j in joints}  # type: ignore[union-attr]
    world: dict[str, tuple[float, float, float]] = {}

    def place(link: str) -> tuple[float, float, float]:
        if link not in world:
            made = parent_of.get(link)
            world[link] = (0.0, 0.0, 0.0) if made is None else _add(
                place(made.find("parent").attrib["link"]), _xyz(made))  # type: ignore[union-attr]
        return world[link]

    for link in robot.findall("link"):
        link_name = link.attrib["name"]
        inertial = link.find("inertial")
        mass = inertial.find("mass") if inertial is not None else None
        assert mass is not None, f"link {link_name} has no mass"
        prim = body(stage, f"/{name}/{link_name}", place(link_name), float(mass.attrib["value"]),
                    com=_xyz(inertial))
        _collisions(stage, str(prim.GetPath()), link)
    if fixed_base:
        root = robot.find("link").attrib["name"]  # type: ignore[union-attr]
        joint(stage, "Fixed", f"/{name}/joints/to_world", None, f"/{name}/{root}")
    for made in joints:
        parent = made.find("parent").attrib["link"]  # type: ignore[union-attr]
        child = made.find("child").attrib["link"]  # type: ignore[union-attr]
        kind = {"revolute": "Revolute", "prismatic": "Prismatic", "fixed": "Fixed"}[made.attrib["type"]]
        axis_text = made.find("axis").attrib["xyz"] if made.find("axis") is not None else "1 0 0"  # type: ignore[union-attr]
        axis = [float(v) for v in axis_text.split()]
        index = max(range(3), key=lambda i: abs(axis[i]))
        flip = axis[index] < 0
        assert index != 2 or not flip, "an axis of -z is not written"
        limit = made.find("limit")
        limits = None
        if limit is not None and kind != "Fixed":
            lower, upper = float(limit.attrib["lower"]), float(limit.attrib["upper"])
            limits = (lower * 57.29577951308232, upper * 57.29577951308232) if kind == "Revolute" else (lower, upper)
        prim = joint(stage, kind, f"/{name}/joints/{made.attrib['name']}", f"/{name}/{parent}", f"/{name}/{child}",
                     pos0=_xyz(made), rot=_FLIP if flip else None, axis="XYZ"[index], limits=limits)
        if limit is not None and kind != "Fixed":
            drive = UsdPhysics.DriveAPI.Apply(prim, "angular" if kind == "Revolute" else "linear")
            drive.CreateMaxForceAttr(float(limit.attrib["effort"]))
            velocity = float(limit.attrib["velocity"]) * (57.29577951308232 if kind == "Revolute" else 1.0)
            prim.CreateAttribute("physxJoint:maxJointVelocity", Sdf.ValueTypeNames.Float).Set(velocity)
    stage.GetRootLayer().Save()
    return path
