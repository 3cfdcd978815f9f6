"""Batched trials: ``N`` random cube starts run as ``N`` environments of one simulation, or as shards of it.

:func:`run_trials` draws the starts (:func:`sample_trials`) and runs them as one batch with
:func:`run_batch`, the hardware sequence in every environment at once. The moves are timed by the plans
alone (:func:`move_seconds`), so any shard of whole worlds runs with exactly the numbers it gets in the
whole batch; :func:`sweep_trials` runs the shards here or on Ray workers and joins them.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from simulo.apps.pick_place.cell import PickPlaceCell, start_cell
from simulo.apps.pick_place.config import (
    CUBE_SIZE,
    DEFAULT_OPTIONS,
    GRIP_FORCE,
    HOVER_Z,
    MOVE_QUANTUM,
    OPENING,
    PLACE,
    SETTLE_END,
    AppOptions,
    CubeStart,
    seed_plan,
)
from simulo.apps.pick_place.hardware import PickPlacePlan
from simulo.apps.pick_place.recorder import PickRecorder
from simulo.apps.pick_place.results import TrialsResult
from simulo.checks import check_int, check_real, is_int
from simulo.errors import SimuloValueError

if TYPE_CHECKING:
    from simulo.scale.sweep import Shard


TRIAL_RADIUS = (0.30, 0.50)
"""Range of the cube's horizontal distance from the arm's base axis in random trials, m."""
TRIAL_BEARING = (-math.pi / 3, math.pi / 9)
"""Range of the cube's bearing from the arm's x axis in random trials, rad (away from the place target)."""


def sample_trials(num: int, seed: int, noise_mm: float = 0.0, noise_deg: float = 0.0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Cube starts and the planner's estimates of them for ``num`` trials.

    Starts are uniform by area over the annular sector :data:`TRIAL_RADIUS` x :data:`TRIAL_BEARING` (all
    reachable from above), with a uniform yaw in [-45, 45) degrees (a cube looks the same every 90). The
    estimate adds Gaussian noise of standard deviation ``noise_mm`` to x and y and ``noise_deg`` to the yaw.
    Everything comes from ``numpy.random.default_rng(seed)``, trial by trial (three uniforms, then three
    normals, drawn whatever the noise level): trial ``i`` is the same whatever ``num`` and the noise are.

    Args:
        num: Number of trials, >= 1.
        seed: Generator seed.
        noise_mm: Position noise, mm (>= 0).
        noise_deg: Yaw noise, degrees (>= 0).

    Returns:
        ``(true, estimate)``, each (num, 3) rows of ``[x, y, yaw]``.

    Raises:
        SimuloValueError: A bad count, seed or noise level.
    """
    check_int(num, "number of trials", 1)
    check_int(seed, "seed", 0)
    for name, value in (("noise_mm", noise_mm), ("noise_deg", noise_deg)):
        check_real(value, name, 0)
    rng = np.random.default_rng(seed)
    uniform = np.empty((num, 3))
    normal = np.empty((num, 3))
    for i in range(num):
        uniform[i] = rng.random(3)
        normal[i] = rng.standard_normal(3)
    (r0, r1), (b0, b1) = TRIAL_RADIUS, TRIAL_BEARING
    r = np.sqrt(r0**2 + uniform[:, 0] * (r1**2 - r0**2))
    bearing = b0 + uniform[:, 1] * (b1 - b0)
    yaw = (uniform[:, 2] - 0.5) * (math.pi / 2)
    true = np.stack([r * np.cos(bearing), r * np.sin(bearing), yaw], axis=1)
    noise = normal * np.array([noise_mm / 1000, noise_mm / 1000, math.radians(noise_deg)])
    return true, true + noise


def move_seconds(plans: Sequence[PickPlacePlan], start: np.ndarray, speed: float = 1.0) -> list[float]:
    """Duration of each move of the plans' common sequence, s: the longest over the plans (0 where none moves).

    It depends on the plans and the start tcp positions ``start`` (N, 3) only, never on how the environments
    fare (a failed environment's planned move still counts), so every shard of a batch split over processes
    runs the same timeline as the whole batch.

    Args:
        plans: One plan per environment, all with the same steps.
        start: Tcp positions (N, 3) before the first move, m.
        speed: Speed factor of the cell (moves are rounded up to :data:`.config.MOVE_QUANTUM` over it).

    Returns:
        One duration per move step of the plans, in order.
    """
    quantum = MOVE_QUANTUM / speed
    at = np.asarray(start, dtype=np.float64)
    out = []
    for steps in zip(*(plan.steps() for plan in plans)):
        if steps[0].kind != "move":
            continue
        goals = np.array([s.target for s in steps], dtype=np.float64)
        distance = np.linalg.norm(goals - at, axis=1)
        out.append(max((math.ceil(d / s.speed / quantum - 1e-9) * quantum
                        for d, s in zip(distance, steps) if d > 1e-9), default=0.0))
        at = goals
    return out


def run_batch(cell: PickPlaceCell, plans: Sequence[PickPlacePlan], on_phase: Callable[[str], None] | None = None,
              timeline: Sequence[float] | None = None) -> np.ndarray:
    """Run :func:`~simulo.apps.pick_place.hardware.run_pick_and_place`'s sequence in every environment at once.

    ``plans[i]`` is environment ``i``'s plan; every plan has the same steps, so every environment runs the
    same phase timeline. After ``close`` each environment is checked on its own: one that fails the grasp
    check stops (its tcp holds still, its gripper opens) and is marked failed; the others go on. A move
    the collision check refuses fails that environment the same way.

    Args:
        cell: The cell (``len(plans)`` environments).
        plans: One plan per environment.
        on_phase: Called with each phase name once every environment has done it.
        timeline: The moves' durations from :func:`move_seconds` of the whole batch, or None to time each
            move by the environments still running. With a timeline the grippers also open after every
            close whether or not an environment is still running, so the step count is fixed by the plans.

    Returns:
        Which environments passed the grasp check, (N,) bool.

    Raises:
        SimuloValueError: Not one plan per environment.
    """
    if len(plans) != cell.num_envs:
        raise SimuloValueError(f"run_batch needs one plan per environment ({cell.num_envs}), got {len(plans)}")
    grasped = np.zeros(cell.num_envs, dtype=bool)
    durations = None if timeline is None else iter(timeline)
    closed = False
    for steps in zip(*(plan.steps() for plan in plans)):
        first = steps[0]
        if first.kind == "open":
            if closed if durations is not None else not cell.gripper_open[cell.active].all():
                cell.grip(OPENING, GRIP_FORCE)
            closed = False
        elif first.kind == "close":
            cell.grip(0.0, first.force)
            closed = True
        else:
            cell.move(first.phase, np.array([s.target for s in steps]), np.array([p.yaw for p in plans]),
                      np.array([s.speed for s in steps]), on_collision="fail",
                      seconds=None if durations is None else next(durations))
        if on_phase is not None:
            on_phase(first.phase)
        if first.kind == "close":
            grasped = cell.active & cell.holding()
            for i in np.nonzero(cell.active & ~grasped)[0]:
                cell.fail(int(i), cell.grasp_failure(int(i)))
    return grasped


def run_trials(num: int, seed: int, noise_mm: float = 0.0, noise_deg: float = 0.0,
               options: AppOptions = DEFAULT_OPTIONS, first_env: int = 0, count: int | None = None,
               on_phase: Callable[[str], None] | None = None) -> TrialsResult:
    """``num`` pick-and-place trials from random cube starts, batched as environments of one simulation.

    Each trial plans from its (possibly noisy) estimate of the cube pose: the arm starts above the
    estimate and the grasp, yaw and place are planned from it; the result is judged on the true cube.

    Args:
        num: Number of trials (environments).
        seed: Generator seed (see :func:`sample_trials`).
        noise_mm: Position noise of the estimate, mm.
        noise_deg: Yaw noise of the estimate, degrees.
        options: Cell options.
        first_env: With ``count``: run only trials ``first_env .. first_env + count - 1`` of the batch (a shard;
            ``first_env`` a multiple of the world size), with exactly the numbers they get in the whole batch.
        count: Trials of the shard; None for all from ``first_env`` on.
        on_phase: Called with each phase's name once every trial has done it (progress).

    Returns:
        Per-trial results and the pass count (of the shard's trials). The same arguments give the same numbers.
    """
    true, est = sample_trials(num, seed, noise_mm, noise_deg)
    return run_trial_set(true, est, options, seed=seed, noise_mm=noise_mm, noise_deg=noise_deg, first_env=first_env,
                         count=count, on_phase=on_phase)


def run_trial_set(true: np.ndarray, estimate: np.ndarray, options: AppOptions = DEFAULT_OPTIONS, seed: int = -1,
                  noise_mm: float = 0.0, noise_deg: float = 0.0, first_env: int = 0, count: int | None = None,
                  on_phase: Callable[[str], None] | None = None) -> TrialsResult:
    """Run given trials (rows ``[x, y, yaw]`` of true cube starts and of their estimates) as one batch.

    :func:`run_trials` draws the rows; a benchmark passes one row at a time to time sequential runs.
    ``seed`` and the noise levels are only recorded in the result. The moves are timed by every row's plan
    (:func:`move_seconds`), so ``first_env``/``count`` can run one shard of the rows with the same numbers.

    Args:
        true: True cube starts, (N, 3) rows ``[x, y, yaw]``.
        estimate: The planner's estimates of them, (N, 3).
        options: Cell options.
        seed: Recorded in the result (-1: the rows were not drawn from a seed).
        noise_mm: Recorded in the result, mm.
        noise_deg: Recorded in the result, degrees.
        first_env: First row of the shard to run (a multiple of the world size).
        count: Rows of the shard; None for all from ``first_env`` on.
        on_phase: Called with each phase's name once every row has done it (progress).

    Returns:
        Per-trial results and the pass count of the shard's rows.

    Raises:
        SimuloValueError: ``true`` and ``estimate`` are not the same (N, 3) shape, or the shard is not inside.
        SceneError: ``first_env`` is not a multiple of the world size.
    """
    true = np.asarray(true, dtype=np.float64)
    est = np.asarray(estimate, dtype=np.float64)
    if true.ndim != 2 or true.shape[1] != 3 or est.shape != true.shape:
        raise SimuloValueError(f"trials need true and estimated rows [x, y, yaw] of the same shape (N, 3), got "
                               f"{true.shape} and {est.shape}")
    total = true.shape[0]
    stop = total if count is None else first_env + count
    if not is_int(first_env) or not 0 <= first_env < stop <= total:
        raise SimuloValueError(f"first_env={first_env!r}, count={count!r}: expected a shard inside the {total} trials")
    home = np.stack([est[:, 0], est[:, 1], np.full(total, HOVER_Z)], axis=1)
    plans = [seed_plan((est[i, 0], est[i, 1], CUBE_SIZE / 2), PLACE, float(est[i, 2]), options.speed)
             for i in range(total)]
    timeline = move_seconds(plans, home, options.speed)
    spawn = (float(true[0, 0]), float(true[0, 1]), float(true[0, 2]))
    true, est, home, plans = true[first_env:stop], est[first_env:stop], home[first_env:stop], plans[first_env:stop]
    num = stop - first_env
    cell = start_cell([CubeStart(true[:, :2].copy(), true[:, 2].copy(), spawn=spawn)], home, est[:, 2].copy(),
                      options, shard=(first_env, total))
    try:
        recorder = PickRecorder(cell, 0, np.array([plan.place for plan in plans]))
        phases = recorder if on_phase is None else _both(recorder, on_phase)
        grasped = run_batch(cell, plans, on_phase=phases, timeline=timeline)
        recorder.snapshot_tracking()
        cell.hold(cell.settle_steps(SETTLE_END))
        picks = tuple(recorder.result(i, bool(grasped[i]), cell.failures[i]) for i in range(num))
        return TrialsResult(seed=seed, noise_mm=float(noise_mm), noise_deg=float(noise_deg),
                            starts=tuple(tuple(r) for r in true.tolist()),
                            estimates=tuple(tuple(r) for r in est.tolist()),
                            picks=picks, passed=sum(p.passed for p in picks), steps=cell.sim.step_count,
                            sim_time=cell.sim.time, worlds=cell.sim.worlds, options=options)
    finally:
        cell.close()


def _both(first: Callable[[str], None], then: Callable[[str], None]) -> Callable[[str], None]:
    def both(phase: str) -> None:
        first(phase)
        then(phase)

    return both


def _trial_shard(num: int, seed: int, noise_mm: float, noise_deg: float, options: AppOptions,
                 shard: Shard) -> TrialsResult:
    """One shard of a trial sweep (runs on a Ray worker): trials ``shard.first ..`` of ``num``."""
    return run_trials(num, seed, noise_mm, noise_deg, options, first_env=shard.first, count=shard.count)


def sweep_trials(num: int, seed: int, noise_mm: float = 0.0, noise_deg: float = 0.0,
                 options: AppOptions = DEFAULT_OPTIONS, workers: int = 1, address: str | None = None,
                 progress: bool = True, on_plan: Callable[[Sequence[Shard]], None] | None = None) -> TrialsResult:
    """:func:`run_trials` as a sharded sweep: the same per-trial numbers as one simulation, for any ``workers``.

    The trials are cut into shards of whole PyBullet worlds; each shard is ``run_trials(..., first_env,
    count)``, run here (``workers=1``, no address) or as Ray tasks, with one progress bar on stderr and
    reruns of shards whose worker died. The parts are joined in trial order. Ray is imported only when
    the shards run on it.

    Args:
        num: Number of trials.
        seed: Generator seed (see :func:`sample_trials`).
        noise_mm: Position noise of the estimate, mm.
        noise_deg: Yaw noise of the estimate, degrees.
        options: Cell options.
        workers: Ray workers; 1 without an address runs the shards in this process.
        address: The Ray cluster to use, or None for a local one.
        progress: Show a progress bar on stderr.
        on_plan: Called with the shards before any runs.

    Returns:
        The result of all ``num`` trials (equal to ``run_trials(num, seed, ...)``).
    """
    from simulo.scale.sweep import plan_shards, run_sweep  # noqa: PLC0415 (Ray loads only for a sweep)

    shards = plan_shards(num)  # whole worlds of the engine's default size, as the cell's simulation uses
    if on_plan is not None:
        on_plan(shards)
    parts = run_sweep(functools.partial(_trial_shard, num, seed, noise_mm, noise_deg, options), shards,
                      workers=workers, address=address, progress=progress, desc="trials", unit="trial")
    return dataclasses.replace(parts[0], starts=tuple(r for part in parts for r in part.starts),
                               estimates=tuple(r for part in parts for r in part.estimates),
                               picks=tuple(p for part in parts for p in part.picks),
                               passed=sum(part.passed for part in parts), worlds=sum(part.worlds for part in parts))
