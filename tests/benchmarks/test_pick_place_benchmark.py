"""``benchmarks/pick_place.py --quick`` prints both tables (wall times are never asserted)."""

from __future__ import annotations

import importlib.util
import os
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


def test_imports_alone_are_timed_beside_the_runs_and_split_the_gap() -> None:
    if not SEED.is_file():
        return  # part (a) needs the seed's program
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pick_place.py"), "--quick", "--skip-trials",
                           "--imports"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for name in ("app-imports", "seed-imports"):
        assert re.search(rf"^{name}\s+[\d.]+\s+[\d.]+\s+1\s+[\d.]+\s+[\d.]+$", out, re.M)
    split = re.search(r"^app minus seed, pair by pair \(median\): whole run ([+-][\d.]+) ms, imports alone "
                      r"([+-][\d.]+) ms, the rest ([+-][\d.]+) ms$", out, re.M)
    assert split is not None
    whole, alone, rest = (float(v) for v in split.groups())
    assert abs(whole - alone - rest) < 0.15  # the rest is what the imports leave of the whole gap
    assert "same lines: yes" in out


def test_the_module_probe_lists_what_a_program_loaded(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("pick_place_bench", ROOT / "benchmarks" / "pick_place.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    program = tmp_path / "program.py"
    program.write_text("import colorsys\nprint('ran')\n", encoding="utf-8")
    commands = bench.import_commands(tmp_path, program, dict(os.environ))
    listing = (tmp_path / "seed_modules.txt").read_text(encoding="utf-8").split()
    assert "colorsys" in listing and "__main__" in listing and "simulo" not in listing
    assert "simulo.cli.pick_place" in (tmp_path / "app_modules.txt").read_text(encoding="utf-8").split()
    done = subprocess.run([*commands["seed-imports"][:-1], str(tmp_path / "seed_modules.txt")], capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout == ""  # the importer imports, it does not run the program
