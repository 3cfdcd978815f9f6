"""``simulo.evaluate``: run a policy on numbered episodes, judge each with the app's success rule.

::

    @app.job(type="eval")
    def evaluate(policy: simulo.PolicyCheckpoint, episodes: int = 100, num_envs: int = 100,
                 actions: str = "best") -> dict:
        return simulo.evaluate(CartpoleTask(), policy, episodes=episodes, num_envs=num_envs, actions=actions)

    @app.success
    def balanced(task):
        lasted = task.check("lasted to the time limit", task.survived())
        upright = task.check("pole upright", pole_angle(task).abs() < 0.2)
        return lasted & upright

Episode ``k`` always starts from the state ``env.seeded_reset(env_id, k)`` gives, so every evaluation and
every checkpoint meets the same starts. Each environment runs one episode to its end, then takes the
next number. On the step an episode ends (after its last physics step, before its reset), the success
rule is called with the task; the checks it records with ``task.check(label, mask)`` during that call
and the mask it returns are that episode's verdict. An episode whose observations or rewards became
NaN or infinite counts as a failure with a simulation problem.

``actions="best"`` runs the policy's mean (deterministic) action, what you would deploy; ``"sampled"``
draws each action from the policy's distribution, as training does, from the policy's seeded generator.
A second policy (``compare``, the local ``--compare``) runs the same episode numbers and fills the
report's comparison (McNemar's exact test on the episodes whose outcome changed).

The episodes run in :mod:`simulo.rl.evaluation_runner`. The report is the SDK's ``EvaluationReport``
(:mod:`simulo.rl.evaluation_report`); inside ``simulo run`` one row per episode goes to ``episodes.csv`` in the
run folder, in the SDK's columns.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulo.checks import is_int, is_real
from simulo.errors import SimuloValueError
from simulo.interfaces.platform.evaluation import (
    EVALUATION_ACTIONS,
    EVALUATION_REPORT_SCHEMA_VERSION,
    EvaluationCheckpoint,
    EvaluationReport,
    EvaluationTested,
)
from simulo.rl import evaluation_report
from simulo.rl.evaluation_runner import EpisodeRunner, Policy
from simulo.rl.local_env import LocalEnv
from simulo.rl.preview import task_digest
from simulo.rl.recordings.config import RECORDINGS_DIR
from simulo.rl.recordings.episodes import record_failures
from simulo.rl.task import Task

REPORT_SCHEMA_VERSION = EVALUATION_REPORT_SCHEMA_VERSION
ACTIONS: tuple[str, ...] = EVALUATION_ACTIONS
EPISODES_CSV = "episodes.csv"


@dataclass(frozen=True)
class TestedPolicy:
    """A policy with what the report says about it.

    Attributes:
        policy: A :class:`~simulo.rl.training.player.PolicyPlayer`, an object with ``act(obs,
            deterministic)``, or a callable ``obs -> actions``.
        checkpoint: The report's description of it (``reference``, ``policy_id``, ``kind``, ``iteration``,
            ``training_reward``, ``digest_sha256``); ``None`` describes it by its name.
        trained_digest: :func:`~simulo.rl.preview.task_digest` of the task it was trained on, when known.
        trained_task: The class name of that task, when known.
    """

    policy: Any
    checkpoint: EvaluationCheckpoint | None = None
    trained_digest: str | None = None
    trained_task: str | None = None


def evaluate(
    task: Task,
    policy: Any,
    *,
    episodes: int = 100,
    num_envs: int = 100,
    actions: str = "best",
    env_spacing: float = 4.0,
    success: Callable[[Task], Any],
    seed: int = 0,
    device: str = "cpu",
    run_dir: Path | None = None,
    compare: Any = None,
) -> EvaluationReport:
    """Run ``policy`` on episodes ``0 .. episodes-1`` of ``task``, judge each one, and return the report.

    This is the engine of ``simulo.evaluate`` (:mod:`simulo.platform.evaluation`), which resolves
    checkpoint references, the app's ``@app.success`` rule and the run folder before calling it.

    Args:
        task: A fresh task instance (the evaluation builds its own environment around it).
        policy: A :class:`TestedPolicy`, or a bare policy (see :attr:`TestedPolicy.policy`).
        episodes: Number of episodes (>= 1).
        num_envs: Environments run in parallel (at most ``episodes`` are built).
        actions: ``"best"`` (the policy's mean action) or ``"sampled"`` (drawn from its distribution; needs
            a trained policy, not a plain callable).
        env_spacing: Distance between environment origins, m (pass the value training used).
        success: The success rule.
        seed: Seed of the numbered starts (episode ``k`` starts from ``(seed, k)``).
        device: Device of the environment and the policy (``"cuda"`` without CUDA falls back to the CPU).
        run_dir: Folder to write ``episodes.csv`` into, and recordings of up to 10 failed episodes into its
            ``recordings/`` (``episode-<N>.mcap`` and ``.mp4``), or ``None`` for no file.
        compare: A second policy (a :class:`TestedPolicy` or a bare one) run on the same episodes, or ``None``.

    Returns:
        The report, ``simulo.interfaces.platform.evaluation.EvaluationReport``.

    Raises:
        SimuloValueError: A bad argument, or a policy that does not fit the task's observation and action
            sizes.
        TaskError: A rule that fails or returns a malformed mask, bad check names, or a task method that
            fails.
    """
    _check_args(task, episodes, num_envs, actions, env_spacing, seed)
    if not callable(success):
        raise SimuloValueError(f"evaluate(success={success!r}): expected a function taking the task")
    tested_policy = policy if isinstance(policy, TestedPolicy) else TestedPolicy(policy)
    compared = None if compare is None else compare if isinstance(compare, TestedPolicy) else TestedPolicy(compare)
    act = _policy(tested_policy.policy, actions, task)
    act_compared = None if compared is None else _policy(compared.policy, actions, task)
    count = min(num_envs, episodes)
    # the success rule reads the task's state, so the environments run in this process (never sharded
    # over Ray workers by `simulo run --workers`)
    env = LocalEnv(task, num_envs=count, device=device, env_spacing=env_spacing, seed=seed)
    env.check_task_outputs = False  # non-finite outputs are counted as simulation problems below
    try:
        runner = EpisodeRunner(env, task, success)
        records = runner.run(act, episodes)
        if run_dir is not None:
            record_failures(env, act, records, Path(run_dir) / RECORDINGS_DIR)
        compared_records = None if act_compared is None else runner.run(act_compared, episodes)
    finally:
        env.close()
    checkpoint = _describe(tested_policy)
    digest = task_digest(task)
    task_file = _file_name(type(task))
    tested: EvaluationTested = {
        "checkpoint": checkpoint,
        "task": {"name": type(task).__name__, "file": task_file, "digest": digest,
                 "trained_digest": tested_policy.trained_digest,
                 "changed": _changed(tested_policy, type(task).__name__, digest),
                 "end_conditions": runner.end_conditions},
        "first_episode": 0,
        "last_episode": episodes - 1,
        "num_envs": count,
        "actions": "best" if actions == "best" else "sampled",
        "success_function": getattr(success, "__name__", repr(success)),
        "success_file": _file_name(success),
        "checks": list(runner.order),
    }
    block = None
    if compared is not None and compared_records is not None:
        block = evaluation_report.comparison(records, compared_records, runner.order, _describe(compared),
                                             _changed(compared, type(task).__name__, digest))
    if run_dir is not None:
        evaluation_report.write_episodes_csv(Path(run_dir) / EPISODES_CSV, records, runner.order, env.dt, seed,
                                             checkpoint)
    return evaluation_report.build_report(records, runner.order, env.dt, tested, _runtime_version(), block)


def _describe(tested: TestedPolicy) -> EvaluationCheckpoint:
    if tested.checkpoint is not None:
        return tested.checkpoint
    policy = tested.policy
    path = getattr(policy, "path", None)
    name = str(path) if path is not None else getattr(policy, "__name__", type(policy).__name__)
    digest = _file_digest(Path(path)) if path is not None else ""
    return {"reference": name, "policy_id": name, "kind": "latest", "iteration": 0, "training_reward": None,
            "digest_sha256": digest}


def _changed(tested: TestedPolicy, task_name: str, digest: str) -> bool:
    if tested.trained_task is not None and tested.trained_task != task_name:
        return True
    return tested.trained_digest is not None and tested.trained_digest != digest


def _file_digest(path: Path) -> str:
    """``sha256`` hex digest of a file, or ``""`` when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _file_name(obj: Any) -> str:
    try:
        source = inspect.getsourcefile(obj)
    except TypeError:
        source = None
    return Path(source).name if source else "<unknown>"


def _runtime_version() -> str:
    try:
        return f"simulo-local {importlib.metadata.version('simulo-local')}"
    except importlib.metadata.PackageNotFoundError:
        return "simulo-local (not installed)"


# -- arguments ------------------------------------------------------------------------------------------
def _check_args(task: Any, episodes: Any, num_envs: Any, actions: Any, env_spacing: Any, seed: Any) -> None:
    if not isinstance(task, Task):
        raise SimuloValueError(f"evaluate() needs a simulo.Task instance, got {task!r}")
    for name, value, low in (("episodes", episodes, 1), ("num_envs", num_envs, 1), ("seed", seed, 0)):
        if not is_int(value, low):
            raise SimuloValueError(f"evaluate({name}={value!r}): expected an integer >= {low}")
    if actions not in ACTIONS:
        hint = " (did you mean 'sampled'?)" if actions == "sample" else ""
        raise SimuloValueError(f"evaluate(actions={actions!r}): expected one of {', '.join(map(repr, ACTIONS))}"
                               f"{hint}")
    if not is_real(env_spacing, 0):
        raise SimuloValueError(f"evaluate(env_spacing={env_spacing!r}): expected a finite distance >= 0 in metres")


def _policy(policy: Any, actions: str, task: Task) -> Policy:
    """A callable ``obs -> actions`` running ``policy`` with the mean (``best``) or sampled actions."""
    deterministic = actions == "best"
    player_class = _player_class()
    if player_class is not None and isinstance(policy, player_class):
        player: Any = policy
        check_policy_fits(f"policy {player.path!r}", player.observation_dim, player.action_dim, task)
        return lambda obs: player(player.inputs_from(task, obs), deterministic=deterministic)
    act = getattr(policy, "act", None)
    if callable(act) and "deterministic" in _parameters(act):
        return lambda obs: act(obs, deterministic=deterministic)
    if callable(policy):
        if not deterministic:
            raise SimuloValueError("evaluate(actions='sampled') needs a trained policy (a checkpoint); "
                                   f"the callable {policy!r} has no sampled actions")
        return policy
    raise SimuloValueError(f"evaluate(policy={policy!r}): expected a PolicyCheckpoint, a checkpoint path, a "
                           "PolicyPlayer, or a callable obs -> actions")


def _player_class() -> type | None:
    module = sys.modules.get("simulo.rl.training.player")
    return None if module is None else module.PolicyPlayer


def _parameters(fn: Callable[..., Any]) -> Mapping[str, Any]:
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def check_policy_fits(what: str, obs_dim: int, action_dim: int, task: Task) -> None:
    """Refuse a policy whose observation and action sizes are not the task's (the message names ``what``)."""
    if (obs_dim, action_dim) != (task.observation_dim, task.action_dim):
        raise SimuloValueError(
            f"{what} maps {obs_dim} observations to {action_dim} actions; {type(task).__name__} has "
            f"observation_dim={task.observation_dim} and action_dim={task.action_dim}"
        )
