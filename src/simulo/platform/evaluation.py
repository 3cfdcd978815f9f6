"""``simulo.evaluate`` inside an app: resolves what the job hands over, then runs the evaluation.

The evaluation itself (:func:`simulo.rl.evaluation.evaluate`) takes a loaded policy, a success rule
and a folder. This layer supplies them from the running ``simulo run`` job: a ``--policy`` reference or
:class:`~simulo.platform.policies.PolicyCheckpoint` is loaded, the app's one ``@app.success`` rule is
the default rule, ``--compare`` is the default second policy, and ``episodes.csv`` goes into the run
folder. See :mod:`simulo.rl.evaluation` for the episodes, the judging and the report.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulo.errors import TaskError
from simulo.interfaces.platform.evaluation import EvaluationCheckpoint, EvaluationReport
from simulo.platform.context import current_app, current_run
from simulo.platform.policies import UNKNOWN, PolicyCheckpoint
from simulo.platform.runner import runs_root
from simulo.rl import evaluation
from simulo.rl.task import Task


def evaluate(
    task: Task,
    policy: Any,
    *,
    episodes: int = 100,
    num_envs: int = 100,
    actions: str = "best",
    env_spacing: float = 4.0,
    success: Callable[[Task], Any] | None = None,
    seed: int = 0,
    device: str = "cpu",
    compare: Any = None,
) -> EvaluationReport:
    """Run ``policy`` on episodes ``0 .. episodes-1`` of ``task``, judge each one, and return the report.

    Args:
        task: A fresh task instance (the evaluation builds its own environment around it).
        policy: A :class:`~simulo.platform.policies.PolicyCheckpoint` (what ``--policy`` gives an eval
            job), a checkpoint reference (``policy_x:best``, a ``.pt`` path, a run folder, or ``latest``
            inside ``simulo run``), a :class:`~simulo.rl.training.player.PolicyPlayer`, an object with
            ``act(obs, deterministic)`` (such as an ``RLTrainer``), or any callable ``obs -> actions``.
        episodes: Number of episodes (>= 1).
        num_envs: Environments run in parallel (at most ``episodes`` are built).
        actions: ``"best"`` (the policy's mean action) or ``"sampled"`` (drawn from its distribution with a
            seeded generator; needs a trained policy, not a plain callable).
        env_spacing: Distance between environment origins, m (pass the value training used).
        success: The success rule; by default the one ``@app.success`` function of the running app.
        seed: Seed of the numbered starts (episode ``k`` starts from ``(seed, k)``) and of sampled actions.
        device: Device of the environment and the policy (``"cuda"`` without CUDA falls back to the CPU).
        compare: A second policy, as ``policy``, run on the same episodes; the report's ``comparison`` says
            which did better. By default the ``--compare`` of the running ``simulo run``, if any.

    Returns:
        The report, ``simulo.interfaces.platform.evaluation.EvaluationReport``.

    Raises:
        SimuloValueError: A bad argument, an unknown policy reference, or a policy that does not fit the
            task's observation and action sizes.
        TaskError: No or several success rules, a rule that fails or returns a malformed mask, bad
            check names, or a task method that fails.
    """
    rule = success if success is not None else _app_success_rule()
    run = current_run()
    if compare is None and run is not None:
        compare = run.flags.compare
    tested = _tested(policy, task, device, seed)
    compared = None if compare is None else _tested(compare, task, device, seed)
    return evaluation.evaluate(task, tested, episodes=episodes, num_envs=num_envs, actions=actions,
                               env_spacing=env_spacing, success=rule, seed=seed, device=device,
                               run_dir=None if run is None else run.run_dir, compare=compared)


def _tested(policy: Any, task: Task, device: str, seed: int) -> evaluation.TestedPolicy:
    """The policy loaded, with the report's description when it is a checkpoint."""
    if isinstance(policy, (str, os.PathLike)) and not isinstance(policy, PolicyCheckpoint):
        policy = PolicyCheckpoint.resolve(policy, _app_runs_dir())
    if not isinstance(policy, PolicyCheckpoint):
        return evaluation.TestedPolicy(policy)
    checkpoint = policy
    player = checkpoint.load(device=device, seed=seed)
    if isinstance(task, Task):
        evaluation.check_policy_fits(f"checkpoint {checkpoint.checkpoint!r}", player.observation_dim,
                                     player.action_dim, task)
    try:
        digest = hashlib.sha256(Path(checkpoint.path).read_bytes()).hexdigest()
    except OSError:
        digest = ""
    described: EvaluationCheckpoint = {
        "reference": checkpoint.checkpoint, "policy_id": checkpoint.policy_id,
        "kind": "best" if checkpoint.kind == "best" else "latest", "iteration": checkpoint.iteration,
        "training_reward": checkpoint.reward, "digest_sha256": digest,
    }
    trained = [None if value == UNKNOWN else value for value in (checkpoint.task_digest, checkpoint.task_name)]
    return evaluation.TestedPolicy(player, described, *trained)


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
