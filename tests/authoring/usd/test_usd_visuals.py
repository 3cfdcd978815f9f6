"""Visual geometry: the prims a renderer draws become URDF visuals with their colours; guides and invisible
colliders are not drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

import numpy as np
from pxr import Gf, Sdf, UsdGeom, UsdShade

import simulo
from simulo.authoring.urdf_xml import parse

from .stages import bind, body, cube, new_stage

RED = (0.75, 0.125, 0.0625)


def _painted(stage: Any, path: str, rgb: tuple[float, float, float]) -> UsdShade.Material:
    material = UsdShade.Material.Define(stage, path)
    shader = UsdShade.Shader.Define(stage, f"{path}/Surface")
    shader.CreateIdAttr("UsdPreviewSurface")
    shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(*rgb))
    material.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
    return material


def _block(folder: Path) -> Path:
    """A fixed block: an invisible collider cube, a guide collider, a red visual box and a blue displayColor
    sphere."""
    path = folder / "block.usda"
    stage = new_stage(path, root="/block")
    body(stage, "/block/body", (0, 0, 0.5), 1.0, (0.01, 0.01, 0.01))
    UsdGeom.Imageable(cube(stage, "/block/body/hidden", (0.4, 0.4, 0.4))).MakeInvisible()
    guide = cube(stage, "/block/body/guide", (0.3, 0.3, 0.3))
    UsdGeom.Imageable(guide).CreatePurposeAttr("guide")
    shown = UsdGeom.Cube.Define(stage, "/block/body/shown")
    shown.CreateSizeAttr(1.0)
    shown.AddScaleOp().Set(Gf.Vec3f(0.4, 0.4, 0.4))
    bind(shown.GetPrim(), _painted(stage, "/block/Looks/red", RED))
    ball = UsdGeom.Sphere.Define(stage, "/block/body/ball")
    ball.CreateRadiusAttr(0.05)
    ball.AddTranslateOp().Set(Gf.Vec3d(0, 0, 0.3))
    ball.CreateDisplayColorAttr([Gf.Vec3f(0.0, 0.0, 1.0)])
    stage.GetRootLayer().Save()
    return path


def test_drawn_prims_become_visuals_with_their_colours(tmp_path: Path) -> None:
    asset = simulo.Asset.from_usd_file(_block(tmp_path))
    root, _ = parse(asset.urdf_text)
    assert root is not None
    (link,) = root.findall("link")
    visuals = link.findall("visual")
    assert len(visuals) == 2  # the hidden and the guide colliders are not drawn
    shapes = [v.find("geometry").children[0] for v in visuals]  # type: ignore[union-attr]
    assert [s.tag for s in shapes] == ["box", "sphere"]
    assert [float(v) for v in shapes[0].attrib["size"].split()] == pytest.approx([0.4, 0.4, 0.4])
    colours = [[float(c) for c in v.find("material").find("color").attrib["rgba"].split()]  # type: ignore[union-attr]
               for v in visuals]
    assert colours[0] == pytest.approx([*RED, 1.0]) and colours[1] == pytest.approx([0.0, 0.0, 1.0, 1.0])
    assert len(link.findall("collision")) == 2  # both colliders still collide


def test_the_red_visual_is_what_pybullet_draws(tmp_path: Path) -> None:
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Robot(simulo.Asset.from_usd_file(_block(tmp_path), fixed_base=True)), at="/World/Block")
    with simulo.Simulation(scene) as sim:
        image = sim.render(width=64, height=64, eye=(1.2, 0.0, 0.6), target=(0.0, 0.0, 0.5)).astype(float)
    centre = image[28:36, 28:36].reshape(-1, 3).mean(axis=0)
    assert centre[0] > 2.0 * centre[1] and centre[0] > 2.0 * centre[2]  # red, lit: the visual, not the palette
    assert np.any(image[..., 2] > image[..., 0] + 60)  # the blue ball shows above it
