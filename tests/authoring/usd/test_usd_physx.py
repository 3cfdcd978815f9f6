"""PhysX-only settings: the articulation's solver iterations and self-collision setting are read; the rest is
noted as ignored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

from pxr import Sdf

import simulo
from simulo.errors import UsdError
from simulo.sim.model_physics import solver_iterations

from .stages import cartpole


def _physx(iterations: Any, self_collisions: bool | None = None) -> Any:
    def edit(stage: Any) -> None:
        root = stage.GetPrimAtPath("/cartpole")
        root.CreateAttribute("physxArticulation:solverPositionIterationCount", Sdf.ValueTypeNames.Int).Set(iterations)
        root.CreateAttribute("physxArticulation:solverVelocityIterationCount", Sdf.ValueTypeNames.Int).Set(4)
        if self_collisions is not None:
            root.CreateAttribute("physxArticulation:enabledSelfCollisions", Sdf.ValueTypeNames.Bool).Set(
                self_collisions)
    return edit


def test_solver_iterations_and_self_collisions_are_read(tmp_path: Path) -> None:
    physics = simulo.Asset.from_usd_file(cartpole(tmp_path, edit=_physx(200, True))).physics
    assert physics.solver_iterations == 200 and physics.self_collision is True
    assert physics.notes == ("PhysX-only settings ignored (no counterpart in PyBullet or MuJoCo): "
                             "physxArticulation:solverVelocityIterationCount",)


def test_a_file_without_them_leaves_the_engines_defaults(tmp_path: Path) -> None:
    physics = simulo.Asset.from_usd_file(cartpole(tmp_path)).physics
    assert physics.solver_iterations is None and physics.self_collision is None and physics.notes == ()


def test_a_solver_iteration_count_below_one_is_a_problem(tmp_path: Path) -> None:
    with pytest.raises(UsdError, match=r"articulation root '/cartpole': physxArticulation:"
                                       r"solverPositionIterationCount is 0; expected an integer >= 1"):
        simulo.Asset.from_usd_file(cartpole(tmp_path, edit=_physx(0)))


def test_a_request_is_a_floor_on_the_scenes_solver_iterations(tmp_path: Path) -> None:
    asked = simulo.Robot(simulo.Asset.from_usd_file(cartpole(tmp_path, edit=_physx(200))))
    assert solver_iterations([asked], None, engine_default=50) == 200
    assert solver_iterations([asked], None, engine_default=300) is None  # the engine already does more
    assert solver_iterations([asked], 20, engine_default=50) == 20  # Simulation(solver_iterations=...) decides
    own = simulo.Robot(simulo.Asset.from_usd_file(cartpole(tmp_path, name="b.usda", edit=_physx(200))),
                       articulation=simulo.ArticulationConfig(solver_position_iterations=400))
    assert solver_iterations([asked, own], None, engine_default=50) == 400  # the robot's config, then the file's
