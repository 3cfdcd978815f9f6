"""benchmarks/sample_time_to_reward.py: its reading of the trainer's progress lines, and its ``--quick`` run of the
repository's cartpole through ``simulo run``. Wall times are never asserted."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "sample_time_to_reward.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sample_time_to_reward", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_progress_line_gives_iteration_clock_returns_and_rate() -> None:
    line = "PPO:  10%|█    | 63/600 [1:06:16<39:10,  4.38s/it, reward -3383.5 best 271.25 steps/s 2,744 lr 3.0e-04]"
    update = _module().parse(line, 12.5)
    assert (update.wall, update.trainer, update.iteration) == (12.5, 3976.0, 63)
    assert (update.reward, update.best, update.steps_per_s) == (-3383.5, 271.25, 2744.0)


def test_a_bar_before_any_finished_episode_has_no_returns_and_a_bare_bar_is_no_update() -> None:
    module = _module()
    update = module.parse("PPO:   0%|  | 1/200 [00:09<31:03, 9.36s/it, reward - best - steps/s 7,001 lr 1.0e-03]", 1.0)
    assert (update.iteration, update.reward, update.best) == (1, None, None)
    assert module.parse("PPO:   0%|          | 0/600 [00:00<?, ?it/s]", 1.0) is None


@pytest.mark.slow
def test_quick_run_reads_the_last_iteration_and_reports_the_target_not_reached() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--target", "1e9"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^ended: run ended after [\d.]+ s \(exit status 0\); [12] progress updates read$", done.stdout,
                     re.M), done.stdout
    assert re.search(r"^last update\s+[\d.]+\s+\d+\s+2\s+", done.stdout, re.M), done.stdout
    assert "best_reward >= 1e+09: not reached" in done.stdout


def test_cpu_seconds_count_the_process_tree_under_the_launched_command() -> None:
    busy = ("import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time\\n"
            "while time.process_time() < 0.3: pass\\nprint(1, flush=True)\\ntime.sleep(30)'], stdout=sys.stdout)\n"
            "child.wait()\n")
    proc = subprocess.Popen([sys.executable, "-c", busy], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "1"  # the grandchild spent 0.3 s
        assert _module().tree_cpu_seconds(proc.pid) >= 0.29
        assert _module().tree_cpu_seconds(2**22 + 12345) == 0.0  # no such process
    finally:
        proc.kill()
        proc.wait()
