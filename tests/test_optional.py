"""simulo._optional: one way to report a missing optional dependency (MissingDependencyError)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

import simulo
from simulo._optional import EXTRAS, missing_dependency, require
from simulo.errors import MissingDependencyError, SimuloError


def test_require_returns_the_module() -> None:
    assert require("json", "the test") is importlib.import_module("json")


def test_require_missing_module_names_feature_package_and_install_command() -> None:
    with pytest.raises(MissingDependencyError) as info:
        require("simulo_no_such_module_xyz", "the frobnicator", "Frob", "pip install frob")
    assert str(info.value) == "the frobnicator needs Frob, which is not installed: pip install frob"
    assert isinstance(info.value, ImportError) and isinstance(info.value, SimuloError)
    assert isinstance(info.value.__cause__, ImportError)


def test_known_extras_supply_the_name_and_install_command() -> None:
    error = missing_dependency("torch", "simulo.RLTrainer")
    assert str(error) == f"simulo.RLTrainer needs PyTorch, which is not installed: {EXTRAS['torch'][1]}"
    error = missing_dependency("imageio.v2", "recording video")
    assert str(error) == "recording video needs imageio, which is not installed: pip install 'simulo-local[video]'"


def test_unknown_module_falls_back_to_pip_install_of_its_top_level_name() -> None:
    assert str(missing_dependency("frob.sub", "x")) == "x needs frob, which is not installed: pip install frob"


def test_missing_dependency_error_is_public() -> None:
    assert simulo.MissingDependencyError is MissingDependencyError


def test_video_writer_without_imageio_raises_missing_dependency(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from simulo.rl.recording import VideoWriter

    monkeypatch.setitem(sys.modules, "imageio", None)  # `import imageio` now fails as if it were not installed
    monkeypatch.setitem(sys.modules, "imageio.v2", None)
    with pytest.raises(MissingDependencyError, match=r"needs imageio, which is not installed: .*simulo-local\[video\]"):
        VideoWriter(tmp_path / "out.gif")
