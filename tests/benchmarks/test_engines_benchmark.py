"""benchmarks/engines.py in its ``--quick`` mode: the table it promises, and the floor (MuJoCo's own batched
stepping) simulating the very physics of the contract's batched step (bit-identical joint positions). Wall times
are never asserted."""

from __future__ import annotations

import os
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
    # columns: robot N pybullet mujoco floor loop ratio vs-pb same same-as-loop. With two environments the
    # contract steps by the batched path: bit for bit the floor's; one is stepped per environment, which where no
    # constraint acts (the cartpole) is the floor's too
    assert all(r[-2] == "yes" for r in rows if r[1] == "2" or r[0] == "cartpole"), done.stdout
    assert all(r[-1] == "yes" for r in rows if r[0] == "cartpole"), done.stdout
    assert re.search(r"^MuJoCo contract/floor: no row with N >= 64$", done.stdout, re.M)
    assert re.search(r"^humanoid MuJoCo/PyBullet through the contract, worst N: [\d.]+x; goal >= 15x: (met|MISSED)$",
                     done.stdout, re.M)


def test_engines_breakdown_splits_a_step_into_parts_that_add_up() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--breakdown", "--quick"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    header = lines[1].split()
    assert header == ["robot", "contract", "apply", "engine", "physics", "reads", "rest", "raw", "raw", "physics",
                      "raw", "rest"]
    rows = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in lines[2:5]}
    assert sorted(rows) == ["cartpole", "humanoid", "pick_arm"]
    for contract, apply, engine, physics, reads, rest, raw, raw_physics, raw_rest in rows.values():
        assert contract == pytest.approx(apply + engine + physics + reads + rest, abs=0.3)
        assert raw == pytest.approx(raw_physics + raw_rest, abs=0.2)
        # the physics was timed: an untimed part is exactly 0. Its sign is not asserted for every robot: each part
        # is less its timers' cost, estimated apart, and load during that estimate can tip a µs part below 0
        assert physics != 0.0 and raw_physics != 0.0
    assert rows["humanoid"][3] > 0.0 and rows["humanoid"][8] > 0.0  # tens of µs: far above the timers' cost


def test_engines_warp_columns_put_the_warp_contract_beside_its_floor() -> None:
    pytest.importorskip("mujoco_warp")
    done = subprocess.run([sys.executable, str(SCRIPT), "--robots", "cartpole", "--envs", "2", "--repeats", "2",
                           "--warmup", "4", "--steps", "4", "--no-pybullet", "--warp"], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "SIMULO_WARP_DEVICE": "cpu"})
    assert done.returncode == 0, done.stdout + done.stderr
    header = next(line.split() for line in done.stdout.splitlines() if line.startswith("robot"))
    assert header[6:10] == ["warp/s", "wfloor/s", "w-ratio", "w-diff"]
    row = next(line.split() for line in done.stdout.splitlines() if line.startswith("cartpole"))
    warp, floor, ratio, diff = float(row[6]), float(row[7]), float(row[8]), float(row[9])
    assert warp > 0.0 and floor > 0.0 and ratio > 0.0
    # the Warp contract and the floor send the same efforts to float32's last bit: their joints part at that level
    assert diff < 1e-5
