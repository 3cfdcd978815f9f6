"""The engine's link and joint order: the checked model's for a file this process checked, else the file's own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.authoring.catalog import lookup
from simulo.engine.pybullet import engine, urdf_file
from simulo.engine.pybullet.engine import PyBulletEngine

ARM_TEXT = lookup("simulo/robot/pick_arm:v1").file.read_text(encoding="utf-8")
POSE = np.array([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]])


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record every file the engine parses for its order (and still parse it)."""
    calls: list[Path] = []
    parse = urdf_file.document_order

    def recorded(path: Path) -> tuple[list[str], list[str]] | None:
        calls.append(path)
        return parse(path)

    monkeypatch.setattr(urdf_file, "document_order", recorded)
    return calls


def test_a_checked_file_loads_in_its_models_order_without_a_parse(tmp_path: Path, parses: list[Path]) -> None:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_TEXT, encoding="utf-8")
    model = simulo.Asset.from_urdf_file(path).model
    eng = PyBulletEngine(1, 1 / 240)
    try:
        batch = eng.add_articulation(path.resolve(), POSE, True)
        assert parses == []
        assert engine._document_order(path.resolve()) == urdf_file.document_order(path) \
            == (list(model.links), list(model.joint_names))
        assert [j.name for j in batch.joints] == [j.name for j in model.movable_joints]
        assert batch.body_names == list(model.links)
    finally:
        eng.close()


def test_a_file_changed_since_its_check_is_parsed_again(tmp_path: Path, parses: list[Path]) -> None:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_TEXT, encoding="utf-8")
    simulo.Asset.from_urdf_file(path).model
    path.write_text(ARM_TEXT.replace('name="tcp_joint"', 'name="tool_joint"'), encoding="utf-8")
    eng = PyBulletEngine(1, 1 / 240)
    try:
        eng.add_articulation(path.resolve(), POSE, True)
        assert parses == [path.resolve()]
        assert "tool_joint" in engine._document_order(path.resolve())[1]  # type: ignore[index]
    finally:
        eng.close()
