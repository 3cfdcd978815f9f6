"""benchmarks/cartpole_floor.py in its ``--quick`` mode: the table it promises, and the raw PyBullet loop simulating
the very physics of the contract (bit-identical joint states). Wall times are never asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "cartpole_floor.py"


def test_cartpole_floor_quick_prints_both_loops_and_matches_the_raw_loop() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    rows = [line.split() for line in out.splitlines() if re.match(r"^(raw|contract)\s+\d", line)]
    assert [r[0] for r in rows] == ["raw", "contract"], out
    assert all(len(r) == 6 and float(r[1]) > 0 and float(r[3]) > 0 for r in rows), out
    assert re.search(r"^contract/raw: [\d.]+ \(spread [\d.]+\); same joint states at the end: yes$", out, re.M), out
    assert re.search(r"^one 300-action episode of all 8 environments needs at least [\d.]+ s of raw PyBullet", out,
                     re.M), out


def test_cartpole_floor_refuses_worlds_wider_than_its_filter_bits() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--envs-per-world", "31"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "--envs-per-world" in done.stderr
