"""The benchmark scripts run in their tiny ``--quick`` mode and print the tables they promise.

Wall times are never asserted: only the shape of the output, the import-leanness facts and the check that
the contract loop and the raw PyBullet loop simulate the same physics (bit-identical joint positions).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _run(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _load(script: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(script.removesuffix(".py"), BENCH / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _table(out: str, header: str) -> list[list[str]]:
    """Rows (split on whitespace) under the line starting with ``header`` up to the next blank line."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:len(header.split())] == header.split())
    rows = []
    for line in lines[start + 1:]:
        if not line.strip() or not line.split()[0].isdigit():
            break
        rows.append(line.split())
    return rows


def test_import_time_quick_prints_the_cost_and_the_lean_import() -> None:
    out = _run("import_time.py", "--quick")
    assert re.search(r"^command\s+median ms\s+min ms\s+max ms$", out, re.M)
    assert re.search(r"^python -c 'pass'\s+[\d.]+\s+[\d.]+\s+[\d.]+$", out, re.M)
    assert re.search(r"^python -c 'import simulo'\s+[\d.]+\s+[\d.]+\s+[\d.]+$", out, re.M)
    cost = re.search(r"^import simulo costs (-?[\d.]+) ms \(median\) / (-?[\d.]+) ms \(min\) above a bare "
                     r"interpreter; goal <= 30 ms: (met|MISSED)$", out, re.M)
    assert cost is not None, out
    for name in ("pybullet", "numpy", "torch"):
        assert f"{name} in sys.modules after import simulo: no" in out


# -X importtime output as Python writes it to stderr, with a program's own line and a warning mixed in
IMPORTTIME_STDERR = """\
import time: self [us] | cumulative | imported package
import time:       135 |        135 |   _io
import time:        19 |         19 |   marshal
import time:       299 |        727 | _frozen_importlib_external
something the program wrote
import time:        40 |         40 |     _codecs
import time:       511 |        551 |   codecs
import time:      1204 |       1755 | encodings
<string>:1: DeprecationWarning: a warning
import time:        88 |        727 | site
import time:      2500 |      9100 | simulo
"""


def test_parse_importtime_reads_rows_and_skips_the_rest() -> None:
    bench = _load("import_time.py")
    rows = bench.parse_importtime(IMPORTTIME_STDERR)
    assert rows == [(135, 135, "_io"), (19, 19, "marshal"), (299, 727, "_frozen_importlib_external"),
                    (40, 40, "_codecs"), (511, 551, "codecs"), (1204, 1755, "encodings"), (88, 727, "site"),
                    (2500, 9100, "simulo")]
    indented = bench.parse_importtime(IMPORTTIME_STDERR, keep_indent=True)
    # the space after the bar, then the nesting
    assert [name for _, _, name in indented][:5] == ["   _io", "   marshal", " _frozen_importlib_external",
                                                     "     _codecs", "   codecs"]
    assert [row[:2] for row in indented] == [row[:2] for row in rows]
    assert bench.parse_importtime("no import lines here\n") == []


def test_slowest_keeps_the_largest_cumulative_times_in_order() -> None:
    bench = _load("import_time.py")
    rows = bench.parse_importtime(IMPORTTIME_STDERR)
    assert [name for _, _, name in bench.slowest(rows, 4)] == ["simulo", "encodings", "_frozen_importlib_external",
                                                               "site"]  # a tie keeps the order of the run
    assert bench.slowest(rows, 100) == sorted(rows, key=lambda r: -r[1])
    assert bench.slowest(rows, 0) == []


def test_import_time_breakdown_of_a_real_run() -> None:
    # which modules are slowest depends on the machine's load: only the shape of a real run is checked
    bench = _load("import_time.py")
    rows = bench.importtime_breakdown(5)
    assert len(rows) == 5
    cumulative = [cum for _, cum, _ in rows]
    assert cumulative == sorted(cumulative, reverse=True)
    assert all(0 <= self_us <= cum for self_us, cum, _ in rows)
    assert all(name.strip() for _, _, name in rows)
    every = bench._importtime_rows([sys.executable, "-X", "importtime", "-c", bench.IMPORT])
    assert "simulo" in [name.strip() for _, _, name in every]  # a second run: every module, not the slowest


def test_import_time_flagship_counts_the_modules_simulo_pick_place_loads(capsys: Any) -> None:
    _load("import_time.py").flagship(4, runs=1)
    out = capsys.readouterr().out
    counts = re.search(r"simulo pick-place ends with (\d+) modules loaded, (\d+) of them simulo's", out)
    assert counts is not None, out
    assert 0 < int(counts[2]) < int(counts[1])
    assert re.search(r"simulo's by package: simulo\.\w+ \d+ \(\d+\.\d ms\)", out), out
    assert len(re.findall(r"^\s+\d+  \S+$", out, re.M)) == 4
    beyond = re.search(r"not loaded by the seed's program \((\d+) modules\): (\d+) modules", out)
    if beyond is not None:  # the seed text is next to the repository
        assert 0 < int(beyond[2]) < int(counts[1])


def test_robot_throughput_quick_prints_both_tables_with_identical_physics() -> None:
    out = _run("robot_throughput.py", "--quick")
    rows = _table(out, "N steps contract/s raw/s ratio fast spread vs N=16 raw vs 16 same")
    assert [r[0] for r in rows] == ["1", "16"]
    for row in rows:
        assert len(row) == 10
        assert float(row[2]) > 0 and float(row[3]) > 0 and float(row[4]) > 0 and float(row[5]) > 0
        assert row[9] == "yes"  # the contract and the raw loop end in bit-identical joint positions
    assert rows[0][7:9] == ["-", "-"] and rows[1][7:9] == ["1.00", "1.00"]  # throughput relative to N = 16
    assert re.search(r"^goal contract/raw >= 0\.9: (met|MISSED) \(lowest [\d.]+, at N=(1|16)\)$", out, re.M)
    floor = re.search(r"^floor at N=1: floor/raw ([\d.]+) \(.*; contract/raw ([\d.]+)\)$", out, re.M)
    assert floor is not None and float(floor[1]) > 0 and floor[2] == rows[0][4]  # timed only at N = 1
    assert "floor at N=16" not in out
    bounds = _table(out, "bound worlds contract/s raw/s ratio fast spread same")
    assert [(r[0], r[1]) for r in bounds] == [("4", "4"), ("16", "1")]  # 16 environments
    assert all(r[7] == "yes" for r in bounds)


def test_raw_scaling_quick_prints_each_n_against_the_first() -> None:
    out = _run("raw_scaling.py", "--quick")
    rows = _table(out, "N worlds raw/s vs N=2")
    assert [(r[0], r[1]) for r in rows] == [("2", "1"), ("4", "1")]
    assert all(float(r[2]) > 0 for r in rows)
    assert rows[0][3] == "1.000"  # the reference against itself
    assert 0 < float(rows[1][3])


def test_robot_throughput_helpers() -> None:
    bench = _load("robot_throughput.py")
    targets = bench.arm_targets(50, 3)
    assert targets.shape == (50, 3, 5)
    assert np.abs(targets).max() <= 1.0
    assert not np.array_equal(targets[:, 0], targets[:, 1])  # phase-shifted per environment
    assert np.abs(np.diff(targets, axis=0)).max() < 0.025  # smooth: at most 1.0 * 2 pi * 0.9 Hz / 240 per step
    assert bench.steps_for(1, 100, 3000) == 3000
    assert bench.steps_for(256, 100, 3000) == 100
    assert bench.steps_for(7, 10, 100) == 15


def test_memory_quick_prints_the_resident_memory_per_environment_of_both_sides() -> None:
    out = _run("memory.py", "--quick")
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["cartpole"], ["pick_arm"])]
    assert [r[0] for r in rows] == ["cartpole", "pick_arm"]
    for row in rows:
        assert len(row) == 4
        assert float(row[1]) > 0 and float(row[2]) > 0  # each side's bodies take memory
        assert abs(float(row[3]) - float(row[1]) / float(row[2])) < 0.01
    assert re.search(r"^goal contract/raw <= 1\.2: (met|MISSED) \(highest [\d.]+\)$", out, re.M)


def test_memory_reads_the_resident_set_of_its_own_process() -> None:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import numpy as np; from memory import rss_kib; "
            "before = rss_kib(); block = np.ones(64 * 1024 * 1024 // 8); print(rss_kib() - before)")
    done = subprocess.run([sys.executable, "-c", code, str(BENCH)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 60 * 1024  # a fresh process: the 64 MiB it touches become resident


def test_motor_law_quick_prints_each_loops_rate_and_the_ratios_between_them() -> None:
    pytest.importorskip("mujoco")
    out = _run("motor_law.py", "--quick")
    rows = [line.split() for line in out.splitlines() if line.split()[:1] == ["2"]]
    assert len(rows) == 1 and len(rows[0]) == 6
    motors, torques, pybullet = (float(v.replace(",", "")) for v in rows[0][1:4])
    assert min(motors, torques, pybullet) > 0
    assert abs(float(rows[0][4]) - motors / torques) < 0.01 and abs(float(rows[0][5]) - motors / pybullet) < 0.01
    assert re.search(r"^load average [\d.]+ \(\d+ cores\)$", out, re.M)
