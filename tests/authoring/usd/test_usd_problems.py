"""Every problem of a USD file is reported at once, by the loader and by ``simulo asset check``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

from pxr import Gf, Sdf, UsdGeom, UsdPhysics

import simulo
from simulo.cli.main import main as simulo_main
from simulo.errors import AssetError, UsdError

from .stages import body, cartpole, collider, joint


def _three_problems(stage: Any) -> None:
    joint(stage, "Spherical", "/cartpole/joints/ball", "/cartpole/cart", "/cartpole/extra")
    body(stage, "/cartpole/extra", (0, 0, 2), 1.0, (0.1, 0.1, 0.1))
    ball = UsdGeom.Sphere.Define(stage, "/cartpole/pole/ball")
    ball.AddScaleOp().Set(Gf.Vec3f(1.0, 2.0, 1.0))
    collider(ball.GetPrim())
    UsdPhysics.MassAPI(stage.GetPrimAtPath("/cartpole/cart")).GetMassAttr().Clear()


def test_the_loader_reports_every_problem_at_once(tmp_path: Path) -> None:
    with pytest.raises(UsdError) as caught:
        simulo.Asset.from_usd_file(cartpole(tmp_path, edit=_three_problems))
    error = caught.value
    assert isinstance(error, AssetError) and len(error.problems) == 3
    assert "joint '/cartpole/joints/ball' is a PhysicsSphericalJoint" in error.problems[0]
    assert sorted(p.split(" has ")[0] for p in error.problems[1:]) == ["Sphere collider '/cartpole/pole/ball'",
                                                                      "rigid body '/cartpole/cart'"]
    assert str(error).startswith(f"USD file {str(tmp_path / 'cartpole.usda')!r}: 3 problem(s) in USD:\n  - ")


def test_asset_check_lists_every_problem_of_a_usd_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = cartpole(tmp_path, edit=_three_problems)
    assert simulo_main(["asset", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: USD file ") and "3 problem(s) in USD" in out
    assert out.count("\n  - ") == 3


def test_asset_check_prints_a_good_usd_files_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def edit(stage: Any) -> None:
        hinge = stage.GetPrimAtPath("/cartpole/joints/cart_to_pole")
        hinge.CreateAttribute("physxJoint:armature", Sdf.ValueTypeNames.Float).Set(0.01)

    path = cartpole(tmp_path, edit=edit)
    assert simulo_main(["asset", "check", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{path}: OK (robot cartpole, 3 links, 2 joints, 2 movable)"
    assert lines[1:] == ["  note: PhysX-only settings ignored (no counterpart in PyBullet or MuJoCo): "
                         "physxJoint:armature"]


def test_asset_check_reads_an_organisation_usd_asset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "assets" / "robot" / "cartpole"
    folder.mkdir(parents=True)
    shutil.copy(cartpole(tmp_path), folder / "cartpole.usda")
    monkeypatch.chdir(tmp_path)
    assert simulo_main(["asset", "check", "robot/cartpole:v1"]) == 0
    assert capsys.readouterr().out.startswith("robot/cartpole:v1: OK (robot cartpole, 3 links, 2 joints, 2 movable)\n")
