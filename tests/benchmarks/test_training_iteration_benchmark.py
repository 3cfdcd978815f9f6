"""benchmarks/training_iteration.py: its ``--quick`` run prints both trainers' split and finds them the same."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "training_iteration.py"


@pytest.mark.slow
def test_quick_run_prints_both_updates_and_the_same_bytes() -> None:
    pytest.importorskip("skrl")
    pytest.importorskip("mujoco")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for label in ("skrl", "lean"):
        assert re.search(rf"^{label}(\s+[\d.]+){{7}}\s+[\d,]+$", done.stdout, re.M), done.stdout
    assert re.search(r"^skrl/lean update: median [\d.]+ \(range [\d.]+-[\d.]+, 1 pairs\)$", done.stdout, re.M)
    assert "same: yes (reward history and network bytes)" in done.stdout
