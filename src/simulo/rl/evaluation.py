"""``simulo.evaluate``: run a policy on numbered episodes, judge each with the app's success rule.

::

    @app.job(type="eval")
    def evaluate(policy: simulo.PolicyCheckpoint, episodes: int = 100, num_envs: int = 100) -> dict:
        return simulo.evaluate(CartpoleTask(), policy, episodes=episodes, num_envs=num_envs)

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

The report is a JSON-ready ``dict`` (schema :data:`REPORT_SCHEMA_VERSION`, modelled on the SDK's
evaluation report but flat): ``summary``, ``episodes``, ``succeeded``, ``failed``,
``success_rate_percent``, ``likely_range`` (95% Wilson interval, whole percents), ``checks`` (passes per
check, in rule order), ``failure_groups`` (failures by the set of checks they missed),
``endings`` (episodes per way of ending: a named termination of ``get_dones()``, ``"time limit"``,
``"cut short by the task"`` or ``"terminated"`` for an unnamed termination), ``mean_return``,
``mean_length`` (steps), ``mean_length_s``, ``simulation_problem_episodes``, ``listed_episodes`` (the
worst failures), ``tested`` (task, policy, episodes, rule) and ``episodes_csv``. Inside ``simulo run``,
one row per episode is written to ``episodes.csv`` in the run folder.
"""

from __future__ import annotations

import csv
import inspect
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simulo._checks import is_int, is_real
from simulo.errors import SimuloValueError, TaskError
from simulo.rl.local_env import LocalEnv
from simulo.rl.task import Task, recording_checks
from simulo.sim.tensors import is_torch, to_numpy

REPORT_SCHEMA_VERSION = "simulo-local.evaluation_report.v1"
ENDED_BY_TIME_LIMIT = "time limit"
ENDED_BY_TASK_TRUNCATION = "cut short by the task"
ENDED_BY_TERMINATION = "terminated"
ACTIONS = ("best", "sampled")
MAX_CHECKS = 16
MAX_CHECK_NAME_CHARS = 64
MAX_FAILURE_GROUPS = 3
MAX_LISTED_EPISODES = 10
EPISODES_CSV = "episodes.csv"
_Z95 = 1.959963984540054

Policy = Callable[[Any], Any]


@dataclass
class _Episode:
    """What one numbered episode did."""

    number: int
    first_observation: list[float]
    success: bool = False
    ended_by: str = ""
    length: int = 0
    total_reward: float = 0.0
    checks: dict[str, bool] = field(default_factory=dict)
    sim_problem: str | None = None


def evaluate(
    task: Task,
    policy: Any,
    episodes: int = 100,
    num_envs: int = 100,
    actions: str = "best",
    env_spacing: float = 4.0,
    *,
    success: Callable[[Task], Any],
    seed: int = 0,
    device: str = "cpu",
    run_dir: Path | None = None,
    policy_description: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run ``policy`` on episodes ``0 .. episodes-1`` of ``task``, judge each one, and return the report.

    This is the engine of ``simulo.evaluate`` (:mod:`simulo.platform.evaluation`), which resolves
    checkpoint references, the app's ``@app.success`` rule and the run folder before calling it.

    Args:
        task: A fresh task instance (the evaluation builds its own environment around it).
        policy: A :class:`~simulo.rl.training.player.PolicyPlayer`, an object with ``act(obs,
            deterministic)`` (such as an ``RLTrainer``), or any callable ``obs -> actions``.
        episodes: Number of episodes (>= 1).
        num_envs: Environments run in parallel (at most ``episodes`` are built).
        actions: ``"best"`` (the policy's mean action) or ``"sampled"`` (with training's noise; needs a
            trained policy, not a plain callable).
        env_spacing: Distance between environment origins, m (pass the value training used).
        success: The success rule.
        seed: Seed of the numbered starts (episode ``k`` starts from ``(seed, k)``).
        device: Device of the environment and the policy (``"cuda"`` without CUDA falls back to the CPU).
        run_dir: Folder to write ``episodes.csv`` into, or ``None`` for no file.
        policy_description: What the report says was tested, in place of the description of ``policy``.

    Returns:
        The report (see the module docstring).

    Raises:
        SimuloValueError: A bad argument, or a policy that does not fit the task's observation and action
            sizes.
        TaskError: A rule that fails or returns a malformed mask, bad check names, or a task method that
            fails.
    """
    _check_args(task, episodes, num_envs, actions, env_spacing, seed)
    if not callable(success):
        raise SimuloValueError(f"evaluate(success={success!r}): expected a function taking the task")
    act, tested_policy = _policy(policy, actions, task)
    if policy_description is not None:
        tested_policy = dict(policy_description)
    count = min(num_envs, episodes)
    # the success rule reads the task's state, so the environments run in this process (never sharded
    # over Ray workers by `simulo run --workers`)
    env = LocalEnv(task, num_envs=count, device=device, env_spacing=env_spacing, seed=seed)
    try:
        records, order, end_conditions = _run(env, task, act, success, episodes)
    finally:
        env.close()
    csv_path = None if run_dir is None else _write_csv(run_dir / EPISODES_CSV, records, order, env.dt, seed,
                                                        tested_policy)
    tested = {
        "task": type(task).__name__,
        "end_conditions": end_conditions,
        "policy": tested_policy,
        "first_episode": 0,
        "last_episode": episodes - 1,
        "num_envs": count,
        "actions": actions,
        "seed": seed,
        "success_function": getattr(success, "__name__", repr(success)),
        "checks": order,
    }
    return _report(records, order, env.dt, tested, csv_path)


# -- arguments ------------------------------------------------------------------------------------------
def _check_args(task: Any, episodes: Any, num_envs: Any, actions: Any, env_spacing: Any, seed: Any) -> None:
    if not isinstance(task, Task):
        raise SimuloValueError(f"evaluate() needs a simulo.Task instance, got {task!r}")
    for name, value, low in (("episodes", episodes, 1), ("num_envs", num_envs, 1), ("seed", seed, 0)):
        if not is_int(value, low):
            raise SimuloValueError(f"evaluate({name}={value!r}): expected an integer >= {low}")
    if actions not in ACTIONS:
        raise SimuloValueError(f"evaluate(actions={actions!r}): expected one of {', '.join(map(repr, ACTIONS))}")
    if not is_real(env_spacing, 0):
        raise SimuloValueError(f"evaluate(env_spacing={env_spacing!r}): expected a finite distance >= 0 in metres")


def _policy(policy: Any, actions: str, task: Task) -> tuple[Policy, dict[str, Any]]:
    """A callable ``obs -> actions`` for ``policy`` and the report's description of it."""
    deterministic = actions == "best"
    player_class = _player_class()
    if player_class is not None and isinstance(policy, player_class):
        player: Any = policy
        check_policy_fits(f"policy {player.path!r}", player.observation_dim, player.action_dim, task)
        return lambda obs: player(obs, deterministic=deterministic), {"reference": str(player.path), "kind": "player"}
    act = getattr(policy, "act", None)
    if callable(act) and "deterministic" in _parameters(act):
        return lambda obs: act(obs, deterministic=deterministic), {"reference": type(policy).__name__, "kind": "act"}
    if callable(policy):
        if not deterministic:
            raise SimuloValueError("evaluate(actions='sampled') needs a trained policy (a checkpoint); "
                                   f"the callable {policy!r} has no sampled actions")
        name = getattr(policy, "__name__", type(policy).__name__)
        return policy, {"reference": name, "kind": "callable"}
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


# -- running ----------------------------------------------------------------------------------------------
def _mask(value: Any, num_envs: int, what: str) -> np.ndarray:
    arr = to_numpy(value, what)
    if arr.shape == ():
        arr = np.full(num_envs, bool(arr))
    if arr.shape != (num_envs,):
        raise TaskError(f"{what} must be a mask with one entry per environment, shape ({num_envs},); "
                        f"got shape {tuple(arr.shape)}")
    return arr.astype(bool)


def _check_names(rule_name: str, names: list[str]) -> None:
    if len(names) > MAX_CHECKS:
        raise TaskError(f"{rule_name}() named {len(names)} checks with task.check(); a success rule can name at "
                        f"most {MAX_CHECKS}")
    for name in names:
        if name != name.strip() or len(name) > MAX_CHECK_NAME_CHARS:
            raise TaskError(f"{rule_name}() named a check {name!r}; check names have no leading or trailing "
                            f"spaces and at most {MAX_CHECK_NAME_CHARS} characters")


def _finite_rows(value: Any) -> np.ndarray:
    arr = to_numpy(value, "values").astype(float)
    return np.isfinite(arr.reshape(arr.shape[0], -1)).all(axis=1)


def _zero_rows(obs: Any, bad: np.ndarray) -> Any:
    """A copy of ``obs`` with the rows ``bad`` set to 0, so the policy can run on the other rows."""
    if is_torch(obs):
        torch = sys.modules["torch"]
        clean = obs.clone()
        clean[torch.as_tensor(bad)] = 0.0
        return clean
    return np.where(bad[:, None], 0.0, obs)


def _run(env: LocalEnv, task: Task, act: Policy, rule: Callable[[Task], Any], episodes: int
         ) -> tuple[list[_Episode], list[str], list[str]]:
    """Run every numbered episode to its end; returns the records, the check order and the end conditions."""
    n = env.num_envs
    rule_name = getattr(rule, "__name__", repr(rule))
    slots: list[_Episode | None] = [None] * n
    records: list[_Episode] = []
    order: list[str] = []
    end_conditions: list[str] = []
    verdicts: dict[int, tuple[bool, dict[str, bool]]] = {}

    def judge(ids: Any) -> None:
        live = [int(i) for i in ids if slots[int(i)] is not None]
        if not live:
            return
        with recording_checks(task) as checks:
            try:
                verdict = rule(task)
            except (TaskError, NotImplementedError):
                raise
            except Exception as exc:
                raise TaskError(f"success rule {rule_name}() failed at env step {env.step_count}: "
                                f"{type(exc).__name__}: {exc}") from exc
        passed = _mask(verdict, n, f"the value {rule_name}() returned")
        masks = {name: _mask(m, n, f"task.check({name!r}, mask)") for name, m in checks.items()}
        order.extend(name for name in masks if name not in order)
        _check_names(rule_name, order)
        for i in live:
            verdicts[i] = (bool(passed[i]), {name: bool(m[i]) for name, m in masks.items()})

    def start(env_id: int, number: int, obs_row: Any) -> None:
        slots[env_id] = _Episode(number, [float(v) for v in to_numpy(obs_row, "observation").reshape(-1)])

    env.add_pre_reset_hook(judge)
    env.reset()
    for i in range(n):
        env.seeded_reset(i, i)
    obs = env.observations()
    for i in range(n):
        start(i, i, obs[i])
    next_number = n
    while any(slot is not None for slot in slots):
        finite = _finite_rows(obs)
        for bad in np.nonzero(~finite)[0].tolist():
            slot = slots[bad]
            if slot is not None and slot.sim_problem is None:
                slot.sim_problem = "observation_not_finite"
        obs, rewards, terminated, truncated, info = env.step(act(obs if finite.all() else _zero_rows(obs, ~finite)))
        rewards = to_numpy(rewards, "rewards").astype(float)
        named = {k: to_numpy(v, k).astype(bool) for k, v in info.get("terminations", {}).items()}
        if named and not end_conditions:
            end_conditions.extend(named)
        term, trunc = to_numpy(terminated, "terminated"), to_numpy(truncated, "truncated")
        restarted = []
        for i, slot in enumerate(slots):
            if slot is None:
                continue
            if math.isfinite(rewards[i]):
                slot.total_reward += float(rewards[i])
            elif slot.sim_problem is None:
                slot.sim_problem = "reward_not_finite"
            slot.length += 1
            if not (term[i] or trunc[i]):
                continue
            slot.ended_by = _ended_by(bool(term[i]), named, i, slot.length, env.max_episode_length)
            slot.success, slot.checks = verdicts.pop(i)
            slot.success = slot.success and slot.sim_problem is None
            records.append(slot)
            slots[i] = None
            if next_number < episodes:
                env.seeded_reset(i, next_number)
                restarted.append((i, next_number))
                next_number += 1
        if restarted:
            obs = env.observations()
            for i, number in restarted:
                start(i, number, obs[i])
    records.sort(key=lambda r: r.number)
    return records, order, end_conditions


def _ended_by(terminated: bool, named: Mapping[str, np.ndarray], i: int, length: int, max_length: int) -> str:
    if terminated:
        for name, mask in named.items():
            if mask[i]:
                return name
        return ENDED_BY_TERMINATION
    return ENDED_BY_TIME_LIMIT if length >= max_length - 1 else ENDED_BY_TASK_TRUNCATION


# -- report ---------------------------------------------------------------------------------------------
def _wilson(successes: int, n: int) -> dict[str, int]:
    share = successes / n
    denom = 1.0 + _Z95 ** 2 / n
    centre = (share + _Z95 ** 2 / (2 * n)) / denom
    half = _Z95 * math.sqrt(share * (1 - share) / n + _Z95 ** 2 / (4 * n * n)) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return {"low_percent": math.floor(round(low * 100, 9)), "high_percent": math.ceil(round(high * 100, 9))}


def _report(records: list[_Episode], order: list[str], dt: float, tested: dict[str, Any], csv_path: Path | None
            ) -> dict[str, Any]:
    n = len(records)
    succeeded = sum(r.success for r in records)
    failures = [r for r in records if not r.success]
    groups = Counter(tuple(name for name in order if not r.checks.get(name, False)) for r in failures)
    ranked_groups = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
    endings = Counter(r.ended_by for r in records)
    percent = 100.0 * succeeded / n
    likely = _wilson(succeeded, n)
    worst = sorted(failures, key=lambda r: (r.total_reward, r.number))[:MAX_LISTED_EPISODES]
    return {
        "report_schema_version": REPORT_SCHEMA_VERSION,
        "summary": (f"{succeeded} of {n} episodes succeeded ({percent:.1f}%). "
                    f"Likely range: {likely['low_percent']}% to {likely['high_percent']}%."),
        "episodes": n,
        "succeeded": succeeded,
        "failed": n - succeeded,
        "success_rate_percent": round(percent, 2),
        "likely_range": likely,
        "checks": [{"name": name, "passed": sum(r.checks.get(name, False) for r in records)} for name in order],
        "failure_groups": [{"missed": list(missed), "episodes": count}
                           for missed, count in ranked_groups[:MAX_FAILURE_GROUPS]],
        "other_failure_combinations": max(0, len(ranked_groups) - MAX_FAILURE_GROUPS),
        "endings": [{"ended_by": name, "episodes": count}
                    for name, count in sorted(endings.items(), key=lambda kv: (-kv[1], kv[0]))],
        "mean_return": sum(r.total_reward for r in records) / n,
        "mean_length": sum(r.length for r in records) / n,
        "mean_length_s": sum(r.length for r in records) * dt / n,
        "simulation_problem_episodes": sum(r.sim_problem is not None for r in records),
        "listed_episodes": [
            {"episode": r.number, "success": r.success, "ended_by": r.ended_by, "ended_at_s": r.length * dt,
             "total_reward": r.total_reward, "checks": {name: r.checks.get(name) for name in order},
             "simulation_problem": r.sim_problem}
            for r in worst
        ],
        "tested": tested,
        "episodes_csv": None if csv_path is None else str(csv_path),
    }


def _csv_bool(value: bool | None) -> str:
    return "" if value is None else ("true" if value else "false")


def _write_csv(path: Path, records: list[_Episode], order: list[str], dt: float, seed: int,
               policy: Mapping[str, Any]) -> Path:
    """One row per episode; booleans are ``true``/``false``; a check the rule did not record is empty."""
    columns = ["episode", "seed", "checkpoint", "success", "ended_by", "ended_at_s", "length", "total_reward",
               "sim_problem", *(f"check:{name}" for name in order), "first_observation"]
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for r in records:
            writer.writerow([r.number, seed, policy.get("reference", ""), _csv_bool(r.success), r.ended_by,
                             f"{r.length * dt:.6g}", r.length, f"{r.total_reward:.9g}",
                             r.sim_problem or "", *(_csv_bool(r.checks.get(name)) for name in order),
                             json.dumps(r.first_observation)])
    tmp.replace(path)
    return path
