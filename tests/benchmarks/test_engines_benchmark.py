"""benchmarks/engines.py in its ``--quick`` mode: the table it promises, and the raw MuJoCo loop simulating the
very physics of the contract (bit-identical joint positions). Wall times are never asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mujoco")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "engines.py"


def test_engines_quick_prints_every_robot_and_matches_the_raw_loop() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if re.match(r"^(pick_arm|cartpole|humanoid)\s+\d", line)]
    assert [(r[0], r[1]) for r in rows] == [(name, n) for name in ("pick_arm", "cartpole", "humanoid")
                                            for n in ("1", "2")]
    assert all(r[-1] == "yes" for r in rows), done.stdout
    assert re.search(r"^MuJoCo contract/raw, worst N: [\d.]+; goal >= 0\.8: (met|MISSED)$", done.stdout, re.M)
    assert re.search(r"^humanoid MuJoCo/PyBullet through the contract, worst N: [\d.]+x; goal >= 15x: (met|MISSED)$",
                     done.stdout, re.M)
