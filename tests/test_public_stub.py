"""src/simulo/__init__.pyi declares exactly the lazy public names of ``simulo``, from the modules that define them."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import simulo

STUB = Path(simulo.__file__).with_name("__init__.pyi")


def _stub() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"), filename=str(STUB))


def _reexports() -> dict[str, str]:
    """Public name -> module, from the stub's ``from MODULE import NAME as NAME`` lines."""
    names: dict[str, str] = {}
    for node in _stub().body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                assert alias.asname == alias.name, f"{alias.name} must be re-exported as itself (PEP 484 'as' form)"
                assert node.module is not None
                assert alias.name not in names, f"{alias.name} is declared twice"
                names[alias.name] = node.module
    return names


def _declared() -> set[str]:
    """Every top-level name the stub declares (re-exports and annotated variables), without private ones."""
    declared = set(_reexports())
    for node in _stub().body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
    return {name for name in declared if name != "__all__"}


def _stub_all() -> list[str]:
    for node in _stub().body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            value = ast.literal_eval(node.value)
            assert isinstance(value, list)
            return value
    raise AssertionError("the stub has no __all__")


def test_stub_declares_exactly_the_public_names() -> None:
    assert sorted(_declared()) == sorted(simulo.__all__)


def test_stub_all_matches_the_package_all() -> None:
    assert _stub_all() == simulo.__all__


def test_stub_modules_match_the_lazy_table() -> None:
    assert _reexports() == simulo._LAZY


@pytest.mark.parametrize("name", sorted(simulo._LAZY))
def test_each_public_name_resolves_to_the_object_the_stub_names(name: str) -> None:
    module = importlib.import_module(_reexports()[name])
    assert getattr(simulo, name) is getattr(module, name)


def test_version_is_a_string() -> None:
    assert isinstance(simulo.__version__, str)
