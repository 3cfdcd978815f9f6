"""Physics materials: a collider's bound ``PhysicsMaterialAPI`` becomes its body's contact surface, and a file's
friction combine mode is honoured as nearly as each engine's own rule allows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

import numpy as np
from pxr import Sdf, UsdShade

import simulo
from simulo.authoring.model_physics import BodySurface, engine_friction
from simulo.errors import UsdError

from .stages import bind, cartpole, physics_material, sliding_box

GRAVITY = 9.81


def _cart_material(friction: float, restitution: float, combine: str | None,
                   purpose: str | None = "physics") -> Any:
    """A stage edit binding a physics material to the cart's collider (values exact in float32)."""
    def edit(stage: Any) -> None:
        material = physics_material(stage, "/cartpole/Looks/rubber", friction, restitution, combine)
        bind(stage.GetPrimAtPath("/cartpole/cart/collision"), material, purpose)
    return edit


def test_a_bound_physics_material_is_its_bodys_surface(tmp_path: Path) -> None:
    asset = simulo.Asset.from_usd_file(cartpole(tmp_path, edit=_cart_material(0.25, 0.5, "max")))
    assert asset.physics.surfaces == (BodySurface("cart", 0.25, 0.5, "max"),)
    assert any("combines friction by 'max'" in note for note in asset.physics.notes)


def test_a_material_bound_to_the_body_reaches_its_colliders_and_combines_by_average_by_default(
        tmp_path: Path) -> None:
    def edit(stage: Any) -> None:
        bind(stage.GetPrimAtPath("/cartpole/pole"), physics_material(stage, "/cartpole/Looks/steel", 0.625, 0.125))

    asset = simulo.Asset.from_usd_file(cartpole(tmp_path, edit=edit))
    assert asset.physics.surfaces == (BodySurface("pole", 0.625, 0.125, "average"),)


def test_a_look_without_physics_material_api_gives_no_surface(tmp_path: Path) -> None:
    def edit(stage: Any) -> None:
        bind(stage.GetPrimAtPath("/cartpole/cart"), UsdShade.Material.Define(stage, "/cartpole/Looks/paint"))

    assert simulo.Asset.from_usd_file(cartpole(tmp_path, edit=edit)).physics.surfaces == ()


def test_bad_material_values_are_all_reported_naming_the_material(tmp_path: Path) -> None:
    def edit(stage: Any) -> None:
        _cart_material(-0.5, 1.5, None)(stage)
        material = stage.GetPrimAtPath("/cartpole/Looks/rubber")
        material.CreateAttribute("physxMaterial:frictionCombineMode", Sdf.ValueTypeNames.Token).Set("loudest")

    with pytest.raises(UsdError) as caught:
        simulo.Asset.from_usd_file(cartpole(tmp_path, edit=edit))
    problems = caught.value.problems
    assert len(problems) == 3 and all("material '/cartpole/Looks/rubber'" in p for p in problems)
    assert "dynamicFriction is -0.5; expected a finite number >= 0" in problems[0]
    assert "restitution is 1.5; expected a number in 0..1" in problems[1]
    assert "frictionCombineMode is 'loudest'; expected one of average, min, multiply, max" in problems[2]


@pytest.mark.parametrize(("friction", "combine", "rule", "expected"), [
    (0.2, "max", "multiply", 1.0), (1.5, "max", "multiply", 1.5), (0.2, "max", "max", 0.2),
    (0.2, "multiply", "multiply", 0.2), (0.2, "average", "max", 0.2), (0.2, "min", "multiply", 0.2)])
def test_engine_friction_follows_the_engines_rule(friction: float, combine: str, rule: str, expected: float) -> None:
    assert engine_friction(BodySurface("b", friction, 0.0, combine), rule) == expected


def _slide(path: Path, engine: str, ground_friction: float, speed: float = 1.5) -> float:
    """How far the box slides from ``speed`` (m/s) along x on a ground of ``ground_friction``."""
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Terrain.plane(friction=ground_friction), at="/World/Ground", per_environment=False)
    box = simulo.Robot(simulo.Asset.from_usd_file(path))
    scene.add(box, at="/World/Box")
    sim = simulo.Simulation(scene, dt=1.0 / 240.0, engine=engine)
    with sim:
        sim.step(48)  # settle on the ground
        start = float(np.asarray(box.state.pose)[0, 0])
        box.set_root_velocity(np.array([[speed, 0.0, 0.0, 0.0, 0.0, 0.0]]))
        sim.step(480)
        return float(np.asarray(box.state.pose)[0, 0]) - start


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_a_max_combined_material_slides_as_the_file_says_on_both_engines(tmp_path: Path, engine: str) -> None:
    # max(0.2, 0.3) = 0.3 on both engines: MuJoCo by its own rule, PyBullet by the body's friction of 1 x 0.3
    distance = _slide(sliding_box(tmp_path, (0.2, "max")), engine, ground_friction=0.3)
    assert distance == pytest.approx(1.5 ** 2 / (2 * 0.3 * GRAVITY), rel=0.15)


@pytest.mark.parametrize(("engine", "contact"), [("pybullet", 0.2 * 0.5), ("mujoco", 0.5)])
def test_a_multiply_combined_material_follows_each_engines_rule(tmp_path: Path, engine: str, contact: float) -> None:
    # PyBullet multiplies (0.2 x 0.5, the file's answer); MuJoCo takes the larger (0.5): the note says so
    distance = _slide(sliding_box(tmp_path, (0.2, "multiply")), engine, ground_friction=0.5)
    assert distance == pytest.approx(min(1.5 ** 2 / (2 * contact * GRAVITY), 10.0), rel=0.15)
