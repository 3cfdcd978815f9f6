"""``simulo pick-place --engine mujoco``: the coupled grasp passes and uncoupled fingers fail, as on PyBullet.

The numbers are MuJoCo's own (see docs/engines.md); the outcome is the engine-independent behaviour: a gear keeps
the cube centred, while two force-limited fingers are a neutral grasp in which the cube slides to one finger's
stop during the transfer and is placed off target.
"""

from __future__ import annotations

import pytest

from simulo.cli.pick_place import main
from simulo.engine.registry import ENGINE_VARIABLE

pytest.importorskip("mujoco")


def _run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, list[str]]:
    monkeypatch.setenv(ENGINE_VARIABLE, "")  # --engine sets it for the process: restored after the test
    status = main(["--engine", "mujoco", *argv])
    return status, capsys.readouterr().out.splitlines()


def test_the_coupled_grasp_places_the_cube_within_tolerance(capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    status, lines = _run(capsys, monkeypatch)
    assert status == 0
    assert "xy error 1.0 mm, tolerance 10 mm: PASS" in lines


def test_uncoupled_fingers_let_the_cube_drift_and_fail(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    status, lines = _run(capsys, monkeypatch, "--uncoupled")
    assert status == 1
    assert "xy error 14.6 mm, tolerance 10 mm: FAIL" in lines  # PyBullet: 15.1 mm
