"""Choosing the MuJoCo engine: by name, by ``SIMULO_ENGINE``, on the command line; a clear error without it."""

from __future__ import annotations

import sys

import pytest

import simulo
from simulo.cli import run as run_cli
from simulo.cli.pick_place import main as pick_place
from simulo.engine.registry import (
    ENGINE_VARIABLE,
    UnknownEngineError,
    available_engines,
    default_engine,
    engine_factory,
    register_engine,
    unregister_engine,
)
from simulo.errors import JobError, MissingDependencyError

pytest.importorskip("mujoco")


def _cartpole_scene() -> simulo.Scene:
    scene = simulo.Scene(num_envs=2)
    scene.add(simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1")), at="/World/Cartpole")
    return scene


def test_mujoco_is_registered_and_simulo_engine_sets_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert {"pybullet", "mujoco"} <= set(available_engines())
    monkeypatch.setenv(ENGINE_VARIABLE, "")  # unset (empty), restored after the test
    assert default_engine() == "pybullet"
    monkeypatch.setenv(ENGINE_VARIABLE, "mujoco")
    assert default_engine() == "mujoco"
    with simulo.Simulation(_cartpole_scene()) as sim:
        assert sim.engine_name == "mujoco"
    with simulo.Simulation(_cartpole_scene(), engine="pybullet") as sim:  # a name given wins
        assert sim.engine_name == "pybullet"
    monkeypatch.setenv(ENGINE_VARIABLE, "mujoko")
    with pytest.raises(UnknownEngineError, match=r"SIMULO_ENGINE='mujoko' names no registered engine"):
        simulo.Simulation(_cartpole_scene())


def test_a_missing_mujoco_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mujoco", None)  # import mujoco now fails
    for module in [m for m in sys.modules if m.startswith("simulo.engine.mujoco")]:
        monkeypatch.delitem(sys.modules, module)
    register_engine("mujoco-again", "simulo.engine.mujoco.engine:MuJoCoEngine")
    try:
        with pytest.raises(MissingDependencyError, match=r"the 'mujoco-again' engine needs mujoco, which is not "
                                                         r"installed: pip install 'simulo-local\[mujoco\]'"):
            engine_factory("mujoco-again")
    finally:
        unregister_engine("mujoco-again")


def test_pick_place_takes_an_engine_and_passes_on_mujoco(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(ENGINE_VARIABLE, "")  # unset (empty), restored after the test
    assert pick_place(["--engine", "mujoco"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].startswith("xy error") and lines[-2].endswith("PASS")
    assert lines[-1] == "simulated 10.8 s in 2580 steps"
    assert not any("slipped" in line for line in lines)  # the grasp holds: the cube hangs as planned
    try:  # a usage error: exit status 2, whether argparse exits or main returns it
        status: object = pick_place(["--engine", "mujoko"])
    except SystemExit as stop:
        status = stop.code
    assert status == 2
    assert "mujoko" in capsys.readouterr().err


def test_simulo_run_engine_reaches_the_job_through_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENGINE_VARIABLE, "")  # unset (empty), restored after the test
    with pytest.raises(JobError, match=r"--engine 'bullet' is not an engine; available: .*mujoco.*pybullet"):
        run_cli._split(["app.py", "--engine", "bullet"])
    _, rest = run_cli._split(["app.py", "--engine", "mujoco", "--steps", "3"])
    assert rest == ["app.py", "--steps", "3"]
    assert default_engine() == "mujoco"
