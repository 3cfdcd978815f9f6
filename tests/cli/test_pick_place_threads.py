"""``simulo pick-place`` runs numpy without OpenBLAS's thread pool, unless the user asked for one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Runs the app as the console script does, then reports the variable and the process's threads on stderr.
PROBE = """import os, sys
from simulo.cli.main import main
status = main(["pick-place"])
print(os.environ.get("OPENBLAS_NUM_THREADS"), len(os.listdir("/proc/self/task")), status, file=sys.stderr)
"""

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")


def _run(extra: dict[str, str]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | extra
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300,
                          check=True)
    return done.stderr.strip().splitlines()[-1].split()


def test_the_app_runs_in_one_thread_without_a_blas_pool() -> None:
    variable, threads, status = _run({})
    assert (variable, threads, status) == ("1", "1", "0")


def test_a_blas_thread_count_the_user_set_is_kept() -> None:
    variable, threads, status = _run({"OPENBLAS_NUM_THREADS": "2"})
    # the main thread and OpenBLAS's second one (OpenBLAS runs no more threads than there are cores)
    assert (variable, threads, status) == ("2", str(min(2, os.cpu_count() or 1)), "0")
