"""The engine differences table (tests/engine_differences.py) holds a listed test to its entry, strictly."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from simulo.errors import MissingDependencyError


def _table() -> Any:
    name = "engine_differences"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


table = _table()
FRICTION = "test_properties_physics.py::test_friction_decides_whether_a_pushed_box_slips[mujoco]"


def test_a_listed_test_is_found_for_its_engines_only() -> None:
    assert table.expected(FRICTION, "mujoco").name == "friction combines by the larger value"
    warp = FRICTION.replace("[mujoco]", "[mujoco_warp]")
    assert table.expected(warp, "mujoco_warp").name == "friction combines by the larger value"  # MuJoCo's rules
    assert table.expected(FRICTION.replace("mujoco", "pybullet"), "pybullet") is None
    assert table.expected("test_properties_physics.py::test_a_sphere_scales_evenly_only[mujoco]", "mujoco") is None


def test_the_named_error_is_accepted_and_anything_else_fails() -> None:
    difference = table.expected(FRICTION, "mujoco")
    assert table.mismatch(difference, "mujoco", AssertionError("\nNot equal to tolerance rtol=0.1")) is None
    assert "(mujoco) expects" in table.mismatch(difference, "mujoco", None)
    assert "but the test passed: remove its entry" in table.mismatch(difference, "mujoco", None)
    assert "got ValueError: boom" in table.mismatch(difference, "mujoco", ValueError("boom"))
    assert "got AssertionError: other" in table.mismatch(difference, "mujoco", AssertionError("other"))


def test_every_entry_names_a_known_engine_an_exception_and_a_reason() -> None:
    names = [d.name for d in table.DIFFERENCES]
    assert len(names) == len(set(names))
    for difference in table.DIFFERENCES:
        assert difference.engines and set(difference.engines) <= {"pybullet", "mujoco", "mujoco_warp"}
        assert difference.reason
        assert issubclass(difference.raises, BaseException)
    assert any(d.raises is MissingDependencyError for d in table.DIFFERENCES)


@pytest.mark.parametrize("engine", table.ENGINES)
def test_the_engines_are_registered(engine: str) -> None:
    from simulo.engine.registry import available_engines

    assert engine in available_engines()
