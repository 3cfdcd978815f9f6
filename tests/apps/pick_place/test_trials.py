"""Batched trials: the batched runner, the seeded starts, deterministic trials, and the sharded sweep here."""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable

import numpy as np
import pytest

from simulo.apps.pick_place.cell import PickPlaceCell
from simulo.apps.pick_place.config import CUBE_YAW, GRASP_Z, HOVER_Z, PICK, SETTLE_END, seed_plan
from simulo.apps.pick_place.experiments.trials import run_batch, run_trials, sample_trials, sweep_trials
from simulo.errors import SimuloValueError

SEED_X = 0.25055941223492234  # where the seed program lands the cube (pybullet 3.2.7)


def test_batched_runner_with_one_environment_matches_the_hardware_sequence_bit_for_bit(
        make_cell: Callable[..., PickPlaceCell]) -> None:
    cell = make_cell([PICK[:2]], [CUBE_YAW])
    try:
        grasped = run_batch(cell, [seed_plan()])
        cell.hold(SETTLE_END)
        assert grasped.tolist() == [True]
        assert cell.cube_pose(0)[0, 0] == SEED_X
        assert cell.sim.step_count == 2580
    finally:
        cell.close()


def test_batched_grasp_check_is_per_environment(make_cell: Callable[..., PickPlaceCell]) -> None:
    """Environment 1 plans beside its cube: it fails alone, holds still and opens; environment 0 goes on."""
    cell = make_cell([(0.42, -0.12), (0.40, 0.05)], [0.3, 0.1], home=[(0.42, -0.12), (0.40, 0.11)])
    try:
        plans = [seed_plan((0.42, -0.12, 0.02), yaw=0.3), seed_plan((0.40, 0.11, 0.02), yaw=0.1)]
        grasped = run_batch(cell, plans)
        assert grasped.tolist() == [True, False]
        assert cell.active.tolist() == [True, False]
        assert cell.failures[0] is None and cell.failures[1].startswith("grasp failed")
        tcp = cell.tcp()
        assert tcp[1] == pytest.approx([0.40, 0.11, GRASP_Z], abs=1e-3)  # stayed where it grasped
        assert tcp[0] == pytest.approx([0.25, 0.35, HOVER_Z], abs=1e-3)  # retreated above the place
        assert cell.gripper_open.tolist() == [True, True]
        assert np.linalg.norm(cell.cube_pose(0)[0, :2] - [0.25, 0.35]) < 0.01
    finally:
        cell.close()


def test_sample_trials_are_seeded_reachable_and_noise_leaves_starts_alone() -> None:
    true, est = sample_trials(200, 7)
    again, noisy = sample_trials(200, 7, noise_mm=3, noise_deg=2)
    np.testing.assert_array_equal(true, again)
    np.testing.assert_array_equal(true, est)
    r = np.hypot(true[:, 0], true[:, 1])
    bearing = np.arctan2(true[:, 1], true[:, 0])
    assert r.min() >= 0.30 and r.max() <= 0.50
    assert bearing.min() >= -math.pi / 3 and bearing.max() <= math.pi / 9
    assert np.abs(true[:, 2]).max() <= math.pi / 4
    offsets = (noisy - true)
    assert np.std(offsets[:, :2]) == pytest.approx(0.003, rel=0.15)
    assert np.degrees(np.std(offsets[:, 2])) == pytest.approx(2.0, rel=0.15)
    assert not np.array_equal(sample_trials(5, 8)[0], sample_trials(5, 7)[0])
    np.testing.assert_array_equal(sample_trials(5, 7, 3, 2)[1], noisy[:5])  # trial i does not depend on N
    with pytest.raises(SimuloValueError, match="number of trials must be an integer >= 1, got 0"):
        sample_trials(0, 1)
    with pytest.raises(SimuloValueError, match="seed must be an integer >= 0, got -1"):
        sample_trials(3, -1)
    with pytest.raises(SimuloValueError, match="noise_mm must be a finite number >= 0"):
        sample_trials(3, 1, noise_mm=float("nan"))


def test_trials_are_deterministic_and_judged_on_the_true_cube() -> None:
    phases: list[str] = []
    first = run_trials(3, 5, noise_mm=3, noise_deg=2)
    second = run_trials(3, 5, noise_mm=3, noise_deg=2, on_phase=phases.append)  # progress changes no number
    assert first.to_json() == second.to_json()
    assert phases == ["open", "hover", "approach", "close", "lift", "transfer", "lower", "release", "retreat"]
    assert first.passed == sum(p.passed for p in first.picks) == 3
    for start, pick in zip(first.starts, first.picks):
        assert pick.start_cube[:2] == pytest.approx(start[:2], abs=1e-3)
        assert pick.target == (0.25, 0.35, 0.02)
        assert pick.grasped and pick.failure is None and pick.slipped is False


def test_a_sweep_here_plans_its_shards_and_gives_the_one_simulation_result() -> None:
    """Without Ray (``workers=1``): one shard of whole worlds, the same numbers as :func:`run_trials`.

    Sweeps of several shards, here and on Ray, are checked in ``tests/scale/test_sweep.py``.
    """
    planned: list[tuple[int, int, int]] = []
    swept = sweep_trials(3, 2, workers=1, progress=False,
                         on_plan=lambda shards: planned.extend((s.first, s.count, s.total) for s in shards))
    assert planned == [(0, 3, 3)]
    assert swept.to_json() == run_trials(3, 2).to_json()


def test_trials_without_workers_never_import_ray() -> None:
    script = ("import sys\nfrom simulo.cli.pick_place import main\n"
              "status = main(['--trials', '1', '--json'])\nprint('RESULT', status, 'ray' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "RESULT 0 False"
