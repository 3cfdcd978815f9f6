"""``simulo pick-place`` run as the process's command freezes the heap before the process ends; nothing else does."""

from __future__ import annotations

import contextlib
import gc
import io
import subprocess
import sys

import pytest

from simulo.cli.main import FROZEN_EXIT, main

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
