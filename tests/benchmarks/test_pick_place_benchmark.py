"""``benchmarks/pick_place.py --quick`` prints both tables (wall times are never asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT.parent / "shared" / "seeds" / "000_e63e4e11bcdcc457.txt"


def test_quick_run_prints_both_parts() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pick_place.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    if SEED.is_file():
        assert re.search(r"^app\s+[\d.]+\s+[\d.]+\s+1\s+[\d.]+\s+[\d.]+$", out, re.M)
        assert re.search(r"^seed\s+[\d.]+\s+[\d.]+\s+1\s+[\d.]+\s+[\d.]+$", out, re.M)
        assert re.search(r"^pair by pair \(median\): wall [\d.]+, cpu [\d.]+; cpu medians [\d.]+$", out, re.M)
        assert re.search(r"^ratio app/seed \(medians\) [\d.]+; goal <= 1\.0: (met|MISSED)$", out, re.M)
        assert "same lines: yes" in out  # the app and the seed's program print the same run
    else:
        assert "skipped: the seed text is not at" in out
    assert re.search(r"^batched\s+[\d.]+\s+4/4\s+\d+$", out, re.M)
    assert re.search(r"^sequential\s+[\d.]+\s+4/4\s+\d+$", out, re.M)
    assert re.search(r"^ratio batched/sequential [\d.]+ \(1 PyBullet world for the batch\)$", out, re.M)


def test_a_baseline_tree_is_timed_in_the_same_rounds() -> None:
    if not SEED.is_file():
        return  # part (a) needs the seed's program
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pick_place.py"), "--quick", "--skip-trials",
                           "--baseline", str(ROOT / "src")], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert re.search(r"^base\s+[\d.]+\s+[\d.]+\s+1\s+[\d.]+\s+[\d.]+$", out, re.M)
    assert re.search(r"^ratio base/seed \(medians\) [\d.]+; goal <= 1\.0: (met|MISSED)$", out, re.M)
    assert re.search(r"^app/base pair by pair \(median\): cpu [\d.]+$", out, re.M)
    assert "same lines: yes" in out and "(b)" not in out
