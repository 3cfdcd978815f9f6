"""The cyclic garbage collector around ``simulo pick-place``: paused for a single run, and the heap frozen before
the process ends when it runs as the process's command (nothing else does either)."""

from __future__ import annotations

import contextlib
import gc
import io
import subprocess
import sys

import pytest

from simulo.apps.pick_place.experiments import single, trials
from simulo.cli import pick_place
from simulo.cli.main import FROZEN_EXIT, main
from simulo.errors import CollisionError, SimuloError

PROBE = ("import contextlib, gc, io, sys\n"
         "sys.argv = ['simulo', *ARGV]\n"
         "from simulo.cli.main import main\n"
         "with contextlib.redirect_stdout(io.StringIO()):\n"
         "    status = main()\n"
         "print(status, gc.get_freeze_count() > 0)\n")


@pytest.mark.parametrize(("argv", "frozen"), [(["pick-place", "--help"], True), (["check-urdf", "--help"], False),
                                              (["--version"], False), (["pick-place", "--speed", "0"], True)])
def test_only_a_frozen_exit_command_run_as_the_process_freezes(argv: list[str], frozen: bool) -> None:
    done = subprocess.run([sys.executable, "-c", f"ARGV = {argv!r}\n" + PROBE], capture_output=True, text=True,
                          check=True, timeout=120)
    status = 0 if "--speed" not in argv else 2
    assert done.stdout.split() == [str(status), str(frozen)]


def test_a_call_with_arguments_leaves_the_heap_alone() -> None:
    before = gc.get_freeze_count()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["pick-place", "--help"]) == 0
    assert gc.get_freeze_count() == before
    assert "pick-place" in FROZEN_EXIT


def test_a_single_run_pauses_the_collector_and_resumes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def run(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        raise CollisionError("stop here")

    monkeypatch.setattr(single, "run_pick_place", run)
    assert gc.isenabled()
    assert pick_place.main(["--stack"]) == 1  # the CollisionError is reported as a FAIL
    assert seen == [False] and gc.isenabled()


def test_trials_keep_the_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def run(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        raise SimuloError("stop here")

    monkeypatch.setattr(trials, "run_trials", run)
    assert pick_place.main(["--trials", "2"]) == 1
    assert seen == [True] and gc.isenabled()
