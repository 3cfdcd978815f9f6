"""benchmarks/build_time.py in its ``--quick`` mode: a row per engine, with a build time, a peak memory and the
goal's verdict. Wall times are never asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mujoco")
pytest.importorskip("torch")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "build_time.py"


def test_build_time_quick_prints_a_row_per_engine() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = re.findall(r"^(mujoco|pybullet)\s+this tree\s+4\s+([\d.]+)\s+(\d+)\s+< (5|20) s: (met|MISSED)$",
                      done.stdout, re.M)
    assert [row[0] for row in rows] == ["mujoco", "pybullet"], done.stdout
    assert all(float(seconds) > 0.0 and int(peak) > 0 for _, seconds, peak, _, _ in rows)
    assert re.search(r"^load average [\d.]+ \(\d+ cores\)$", done.stdout, re.M)
