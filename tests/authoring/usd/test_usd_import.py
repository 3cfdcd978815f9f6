"""``import simulo`` does not import usd-core; a USD organisation asset is found and loaded as a URDF one is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def test_import_simulo_does_not_import_pxr() -> None:
    code = "import sys, json, simulo\nprint(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'pxr')))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_organisation_reference_finds_a_usd_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")
    import simulo
    from simulo.authoring.catalog.organisation import ASSET_PATH_ENV

    from .stages import cartpole

    folder = tmp_path / "assets" / "robot" / "cartpole"
    folder.mkdir(parents=True)
    cartpole(folder)
    monkeypatch.setenv(ASSET_PATH_ENV, str(tmp_path / "assets"))
    asset = simulo.Asset.from_registry("robot/cartpole:v1").resolve()
    assert asset.model.joint_names == ("slider_to_cart", "cart_to_pole")
    assert asset.fixed_base is True  # no simulo.asset.json: the stage's fixed joint to the world says so
    (folder / "simulo.asset.json").write_text('{"base": "floating"}')
    assert simulo.Asset.from_registry("robot/cartpole:v1").fixed_base is False
