"""``simulo.evaluate`` inside an app: resolves what the job hands over, then runs the evaluation.

The evaluation itself (:func:`simulo.rl.evaluation.evaluate`) takes a loaded policy, a success rule
and a folder. This layer supplies them from the running ``simulo run`` job: a ``--policy`` reference or
:class:`~simulo.platform.policies.PolicyCheckpoint` is loaded, the app's one ``@app.success`` rule is
the default rule, and ``episodes.csv`` goes into the run folder. See :mod:`simulo.rl.evaluation` for
the episodes, the judging and the report.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulo.errors import TaskError
from simulo.platform.context import current_app, current_run
from simulo.platform.policies import PolicyCheckpoint
from simulo.platform.runner import runs_root
from simulo.rl import evaluation
from simulo.rl.task import Task


def evaluate(
    task: Task,
    policy: Any,
    episodes: int = 100,
    num_envs: int = 100,
    actions: str = "best",
    env_spacing: float = 4.0,
    *,
    success: Callable[[Task], Any] | None = None,
    seed: int = 0,
    device: str = "cpu",
) -> dict[str, Any]:
    """Run ``policy`` on episodes ``0 .. episodes-1`` of ``task``, judge each one, and return the report.

    Args:
        task: A fresh task instance (the evaluation builds its own environment around it).
        policy: A :class:`~simulo.platform.policies.PolicyCheckpoint` (what ``--policy`` gives an eval
            job), a checkpoint reference (a ``.pt`` path, a run folder, or ``latest`` inside ``simulo run``),
            a :class:`~simulo.rl.training.player.PolicyPlayer`, an object with ``act(obs)`` (such
            as an ``RLTrainer``), or any callable ``obs -> actions``.
        episodes: Number of episodes (>= 1).
        num_envs: Environments run in parallel (at most ``episodes`` are built).
        actions: ``"best"`` (the policy's mean action) or ``"sampled"`` (with training's noise; needs a
            trained policy, not a plain callable).
        env_spacing: Distance between environment origins, m (pass the value training used).
        success: The success rule; by default the one ``@app.success`` function of the running app.
        seed: Seed of the numbered starts (episode ``k`` starts from ``(seed, k)``).
        device: Device of the environment and the policy (``"cuda"`` without CUDA falls back to the CPU).

    Returns:
        The report (see :mod:`simulo.rl.evaluation`).

    Raises:
        SimuloValueError: A bad argument, an unknown policy reference, or a policy that does not fit the
            task's observation and action sizes.
        TaskError: No or several success rules, a rule that fails or returns a malformed mask, bad
            check names, or a task method that fails.
    """
    rule = success if success is not None else _app_success_rule()
    described = None
    if isinstance(policy, (str, os.PathLike)) and not isinstance(policy, PolicyCheckpoint):
        policy = PolicyCheckpoint.resolve(policy, _app_runs_dir())
    if isinstance(policy, PolicyCheckpoint):
        checkpoint = policy
        policy = checkpoint.load(device=device)
        if isinstance(task, Task):
            evaluation.check_policy_fits(f"checkpoint {checkpoint.checkpoint!r}", policy.observation_dim,
                                         policy.action_dim, task)
        described = {"reference": checkpoint.checkpoint, "path": str(checkpoint.path), "kind": checkpoint.kind,
                     "iteration": checkpoint.meta.get("completed_iterations"), "training_reward": checkpoint.reward}
    run = current_run()
    return evaluation.evaluate(task, policy, episodes, num_envs, actions, env_spacing, success=rule, seed=seed,
                               device=device, run_dir=None if run is None else run.run_dir,
                               policy_description=described)


def _app_success_rule() -> Callable[[Task], Any]:
    app = current_app()
    if app is None:
        raise TaskError("evaluate() judges episodes with the app's @app.success rule, but no app job is running; "
                        "run the eval job with simulo run, or pass success=rule")
    rules = app.success_functions
    if len(rules) != 1:
        names = ", ".join(getattr(r, "__name__", repr(r)) for r in rules) or "none"
        raise TaskError(f"evaluate() needs exactly one @app.success rule on app {app.name!r}; found {len(rules)} "
                        f"({names})")
    rule: Callable[[Task], Any] = rules[0]
    return rule


def _app_runs_dir() -> Path | None:
    run = current_run()
    if run is not None:
        return run.run_dir.parent.parent
    app = current_app()
    return None if app is None else runs_root(None) / app.name
