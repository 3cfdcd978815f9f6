"""The app, its CLI and its sample stay on the public contract: no engine, no simulation internals."""

from __future__ import annotations

import ast
from pathlib import Path

import simulo.apps.pick_place as package

PACKAGE = Path(package.__file__).resolve().parent
ROOT = PACKAGE.parents[3]
ALLOWED = ("simulo", "simulo.errors", "simulo.math", "simulo.apps.pick_place", "simulo.scale.sweep")
"""What the app may import from simulo (and their submodules); ``simulo.scale.sweep`` only for a sweep."""


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return imported | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


def test_app_modules_use_the_contract_only() -> None:
    """No engine import in the app, its CLI or its sample (the CLI names engines through the registry only, for
    ``--engine``); the catalog arm and name lookups are used."""
    modules = sorted(PACKAGE.rglob("*.py"))
    assert PACKAGE / "cell.py" in modules and PACKAGE / "experiments" / "trials.py" in modules
    for path in (*modules, ROOT / "samples/pick_place.py"):
        assert not any(name.startswith(("pybullet", "simulo.engine")) for name in _imports(path)), path
    cli = _imports(ROOT / "src/simulo/cli/pick_place.py")
    assert not any(name.startswith(("pybullet", "mujoco")) for name in cli)
    assert {name for name in cli if name.startswith("simulo.engine")} <= {"simulo.engine.registry"}
    assert "simulo/robot/pick_arm:v1" in (PACKAGE / "config.py").read_text()
    assert "find_joints" in (PACKAGE / "cell.py").read_text()


def test_app_modules_import_only_the_public_namespace_and_their_own() -> None:
    for path in PACKAGE.rglob("*.py"):
        for name in _imports(path):
            if name == "simulo" or name.startswith("simulo."):
                assert any(name == ok or name.startswith(ok + ".") for ok in ALLOWED), (path, name)
