"""``simulo.preview``: check a task's robot the way training will run it, without training.

::

    @app.job(type="preview")
    def preview(num_envs: int = 16, checks: str = "all") -> dict:
        return simulo.preview(CartpoleTask(), num_envs=num_envs, checks=checks)

The preview builds a :class:`~simulo.rl.local_env.LocalEnv` around the task, resets it and runs the
SDK's four checks, each one stage of the report (:data:`CHECKS`, in this order):

* ``settle``: the scene builds (``build`` and ``on_start``) and holds together at rest
  (:mod:`simulo.rl.preview.physics`).
* ``joint-sweep``: every robot joint is driven toward both ends of its range.
* ``random-moves``: random actions run through the task's action hooks and the physics stays sound
  (:mod:`simulo.rl.preview.loop`).
* ``training-loop``: the reset, observations, rewards, end conditions, episode restarts and repeatable
  starts are what training needs; its ``action-map`` part moves each action dimension alone and names the
  joints it moves.

``checks="all"`` runs them all; a comma-separated list of :data:`SELECTABLE_CHECKS` runs those
(``"action-map"`` alone runs only that part of Training loop). A stage that was not selected, or could
not run because an earlier step failed, is ``skipped`` with the reason. Each stage holds rows: ``pass``,
``warn`` (reported, never failing: a joint that stalls short of its target) or ``fail``, each naming the
problem, the fix and whose it is. The report is the SDK's ``PreviewReport``
(:data:`REPORT_SCHEMA_VERSION`); ``verdict`` is ``"failed"`` when a stage failed, and ``simulo run``
then exits 1. ``measurements`` holds the facts of the run (steps, endings, observation range, ...).

In a job the preview records its checks (:mod:`simulo.rl.preview.film`): an MCAP in the run folder's
``recordings/``, with an MP4 beside it when ``video`` is true; a row that warns or fails then says when
(``at_s``) its problem shows in the recording, and ``measurements["recording"]`` lists the files.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulo.checks import is_int
from simulo.errors import MissingDependencyError, SimuloValueError
from simulo.interfaces.platform.preview import (
    PREVIEW_CHECKS,
    PREVIEW_REPORT_SCHEMA_VERSION,
    PREVIEW_SELECTABLE_CHECKS,
    PreviewReport,
)
from simulo.rl.preview.film import NOT_IN_A_RUN, PreviewFilm, film_folder
from simulo.rl.preview.loop import action_map, check_reset, loop_rows, random_moves, repeatable_starts
from simulo.rl.preview.physics import joint_sweep, settle
from simulo.rl.preview.probe import Probe, ProbedEnv
from simulo.rl.preview.report import Findings, build_report, task_digest
from simulo.rl.task import Task

__all__ = ["CHECKS", "REPORT_SCHEMA_VERSION", "SELECTABLE_CHECKS", "preview", "selected_checks", "task_digest"]

REPORT_SCHEMA_VERSION = PREVIEW_REPORT_SCHEMA_VERSION
CHECKS: tuple[str, ...] = PREVIEW_CHECKS
SELECTABLE_CHECKS: tuple[str, ...] = PREVIEW_SELECTABLE_CHECKS


def selected_checks(checks: Any) -> tuple[str, ...]:
    """The checks ``checks`` selects, in :data:`SELECTABLE_CHECKS` order (``training-loop`` brings ``action-map``).

    Raises:
        SimuloValueError: ``checks`` is not ``"all"`` or a comma-separated list of known names.
    """
    expected = f"expected 'all' or a comma-separated list of {', '.join(SELECTABLE_CHECKS)}"
    if not isinstance(checks, str) or not checks.strip():
        raise SimuloValueError(f"preview(checks={checks!r}): {expected}")
    if checks.strip() == "all":
        return SELECTABLE_CHECKS
    names = [c.strip() for c in checks.split(",") if c.strip()]
    unknown = [c for c in names if c not in SELECTABLE_CHECKS]
    if unknown or not names:
        raise SimuloValueError(f"preview(checks={checks!r}): unknown check(s) {', '.join(map(repr, unknown))}; "
                               f"{expected}")
    if "training-loop" in names:
        names.append("action-map")
    return tuple(c for c in SELECTABLE_CHECKS if c in names)


def preview(
    task: Task,
    *,
    num_envs: int = 16,
    checks: str = "all",
    video: bool = True,
    seed: int = 0,
    steps: int | None = None,
    env_spacing: float | None = None,
    device: str = "cpu",
) -> PreviewReport:
    """Run the task's preview checks without training and return the report (see the module docstring).

    Args:
        task: A fresh task instance.
        num_envs: Environments to build (>= 1; the action map needs 2).
        checks: ``"all"`` or a comma-separated list of :data:`SELECTABLE_CHECKS`.
        video: Also film the checks as an MP4 (in a job; the MCAP is recorded either way).
        seed: Seed of the resets and of the random actions.
        steps: Random-action steps; default one more than the task's episode length (>= 1).
        env_spacing: Distance between environment origins, m; defaults to the task's.
        device: Device of the environment (``"cuda"`` without CUDA falls back to the CPU).

    Returns:
        The report. Failing checks do not raise: ``report["verdict"]`` is ``"failed"``.

    Raises:
        SimuloValueError: A bad argument (unknown check name, non-positive sizes, not a task).
    """
    selected = selected_checks(checks)
    for name, value, low in (("num_envs", num_envs, 1), ("seed", seed, 0)):
        if not is_int(value, low=low):
            raise SimuloValueError(f"preview({name}={value!r}): expected an integer >= {low}")
    if steps is not None and not is_int(steps, low=1):
        raise SimuloValueError(f"preview(steps={steps!r}): expected an integer >= 1 or None")
    if not isinstance(video, bool):
        raise SimuloValueError(f"preview(video={video!r}): expected True or False")
    if not isinstance(task, Task):
        raise SimuloValueError(f"preview() needs a simulo.Task instance, got {task!r}")
    findings = Findings()
    action_stage = "random-moves" if "random-moves" in selected else "training-loop"
    probe = Probe(task, num_envs, findings, action_stage)
    facts: dict[str, Any] = {"num_envs": num_envs, "seed": seed, "checks": list(selected), "steps": 0,
                             "max_episode_length": None, "episodes_ended": 0, "endings": {}}
    facts["video"] = "not requested" if not video else NOT_IN_A_RUN if film_folder() is None else "not recorded"
    _run(task, selected, findings, probe, facts, seed, steps, env_spacing, device, video)
    for stage in CHECKS:
        if stage not in selected and not (stage == "training-loop" and "action-map" in selected):
            findings.skipped.setdefault(stage, f"not selected (checks={checks!r})")
    facts["observation_range"] = None if probe.obs_min is None or probe.obs_max is None else {
        "min": [float(v) for v in probe.obs_min], "max": [float(v) for v in probe.obs_max]}
    return build_report(task, findings, facts, selected)


def _run(task: Task, selected: tuple[str, ...], findings: Findings, probe: Probe, facts: dict[str, Any], seed: int,
         steps: int | None, env_spacing: float | None, device: str, video: bool) -> None:
    try:
        # the probes watch the hook calls, so the environments run in this process (never sharded over Ray
        # workers by `simulo run --workers`)
        env = ProbedEnv(probe, task, num_envs=facts["num_envs"], device=device, env_spacing=env_spacing, seed=seed)
    except Exception as exc:  # noqa: BLE001 - any failure to build is the finding
        findings.row("settle.build", "settle", "The task builds", "fix the error in the task's build or on_start",
                     "task").problem(f"{type(exc).__name__}: {exc}")
        findings.skip(CHECKS, "not run: the task did not build (see Settle)")
        return
    facts["max_episode_length"] = env.max_episode_length
    findings.row("settle.build", "settle", "The task builds", "", "task")
    try:
        if not check_reset(env, probe, findings):
            findings.skip(CHECKS, "not run: env.reset() failed (see Training loop)")
            return
        _start_film(env, findings, facts, video)
        if "settle" in selected:
            _guarded(findings, "settle", settle, env, findings)
        if "joint-sweep" in selected:
            _guarded(findings, "joint-sweep", joint_sweep, env, findings)
        if {"random-moves", "training-loop"} & set(selected):
            if not check_reset(env, probe, findings) or not random_moves(env, probe, findings, seed, steps, facts):
                findings.skip(("random-moves", "training-loop"), "not completed: the task failed at step "
                              f"{facts['steps'] + 1} (see the failed row)")
                return
            if "training-loop" in selected:
                loop_rows(env, probe, findings, facts)
                _guarded(findings, "training-loop", repeatable_starts, env, probe, findings)
        if "action-map" in selected:
            _guarded(findings, "training-loop", action_map, env, probe, findings)
    finally:
        try:
            if env.film is not None:
                facts["recording"] = env.film.close([r.entry() | {"stage": r.stage} for r in findings.rows.values()
                                                     if r.status != "pass" and r.at_s is not None])
                videos = [f for f in facts["recording"]["files"] if f.endswith(".mp4")]
                facts["video"] = videos[0] if videos else facts["video"]
        finally:
            env.close()


def _start_film(env: ProbedEnv, findings: Findings, facts: dict[str, Any], video: bool) -> None:
    """Film the checks from here on, in a job (see :mod:`simulo.rl.preview.film`)."""
    folder = film_folder()
    if folder is None:
        return
    try:
        env.film = PreviewFilm(env, folder, video)
    except MissingDependencyError as exc:
        facts["video"] = f"not recorded: {exc}"
        return
    env.film.begin()
    findings.clock = lambda: env.film.finding_time_s


def _guarded(findings: Findings, stage: Any, check: Callable[..., None], *args: Any) -> None:
    """Run one check; an error no row has recorded yet becomes a failed row of ``stage``."""
    found = findings.failures()
    try:
        check(*args)
    except Exception as exc:  # noqa: BLE001 - a check that cannot finish is a finding, not a crash
        if findings.failures() == found:
            findings.row(f"{stage}.error", stage, f"The {stage} check runs",
                         "report this with the task file: the preview could not finish the check",
                         "simulo").problem(f"{type(exc).__name__}: {exc}")
