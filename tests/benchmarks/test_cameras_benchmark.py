"""benchmarks/cameras.py runs in its ``--quick`` mode: both loops draw the same pictures in per-environment worlds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "cameras.py"


def test_the_camera_benchmark_prints_its_table_and_both_loops_agree() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split() for line in done.stdout.splitlines() if line.strip()]
    assert lines[0] == ["N", "size", "per_world", "contract/s", "raw/s", "ratio", "spread", "ms/step", "same"]
    rows = lines[1:]
    assert [(r[0], r[1], r[2]) for r in rows] == [("1", "16", "1"), ("2", "16", "1"), ("2", "16", "2")]
    assert [r[-1] for r in rows] == ["True", "True", "-"]
