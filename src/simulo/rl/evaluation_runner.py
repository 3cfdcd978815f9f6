"""The episode runner of :func:`simulo.rl.evaluation.evaluate`: numbered episodes on one environment, each judged
by the success rule on the step it ends.

Episode ``k`` starts from ``env.seeded_reset(env_id, k)``; each environment runs one episode to its end, then
takes the next number. The rule runs in the environment's pre-reset hook (after the last physics step, before the
reset); the checks it records with ``task.check`` and the mask it returns are the episode's verdict. NaN or
infinite observations or rewards make the episode a failure with a simulation problem.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from simulo.errors import TaskError
from simulo.interfaces.platform.evaluation import (
    ENDED_BY_TASK_TRUNCATION,
    ENDED_BY_TIME_LIMIT,
    success_checks_problem,
)
from simulo.rl.evaluation_report import Episode
from simulo.rl.local_env import LocalEnv
from simulo.rl.task import Task, recording_checks
from simulo.sim.tensors import is_torch, to_numpy

ENDED_BY_TERMINATION = "terminated"

Policy = Callable[[Any], Any]


def _mask(value: Any, num_envs: int, what: str) -> np.ndarray:
    arr = to_numpy(value, what)
    if arr.shape == ():
        arr = np.full(num_envs, bool(arr))
    if arr.shape != (num_envs,):
        raise TaskError(f"{what} must be a mask with one entry per environment, shape ({num_envs},); "
                        f"got shape {tuple(arr.shape)}")
    return arr.astype(bool)


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


class EpisodeRunner:
    """Runs numbered episodes on one environment and judges each one with the rule as it ends.

    The pre-reset hook is installed once, so the same environment can run a second policy (``compare``).
    The check order and the end conditions accumulate over the runs.
    """

    def __init__(self, env: LocalEnv, task: Task, rule: Callable[[Task], Any]) -> None:
        self.env, self.task, self.rule = env, task, rule
        self.rule_name = getattr(rule, "__name__", repr(rule))
        self.order: list[str] = []
        self.end_conditions: list[str] = []
        self.live: list[bool] = [False] * env.num_envs
        self.verdicts: dict[int, tuple[bool, dict[str, bool]]] = {}
        env.add_pre_reset_hook(self._judge)

    def _judge(self, ids: Any) -> None:
        live = [int(i) for i in ids if self.live[int(i)]]
        if not live:
            return
        n = self.env.num_envs
        with recording_checks(self.task) as checks:
            try:
                verdict = self.rule(self.task)
            except (TaskError, NotImplementedError):
                raise
            except Exception as exc:
                raise TaskError(f"success rule {self.rule_name}() failed at env step {self.env.step_count}: "
                                f"{type(exc).__name__}: {exc}") from exc
        passed = _mask(verdict, n, f"the value {self.rule_name}() returned")
        masks = {name: _mask(m, n, f"task.check({name!r}, mask)") for name, m in checks.items()}
        self.order.extend(name for name in masks if name not in self.order)
        problem = success_checks_problem(self.rule_name, self.order)
        if problem is not None:
            raise TaskError(problem)
        for i in live:
            self.verdicts[i] = (bool(passed[i]), {name: bool(m[i]) for name, m in masks.items()})

    def run(self, act: Policy, episodes: int) -> list[Episode]:
        """Run every numbered episode to its end with ``act``; the records in episode order."""
        env = self.env
        n = env.num_envs
        slots: list[Episode | None] = [None] * n
        records: list[Episode] = []

        def start(env_id: int, number: int, obs_row: Any) -> None:
            slots[env_id] = Episode(number, [float(v) for v in to_numpy(obs_row, "observation").reshape(-1)])
            self.live[env_id] = True

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
                    slot.sim_problem, slot.sim_problem_step = "observation_not_finite", slot.length
            obs, rewards, terminated, truncated, info = env.step(act(obs if finite.all() else
                                                                     _zero_rows(obs, ~finite)))
            rewards = to_numpy(rewards, "rewards").astype(float)
            named = {k: to_numpy(v, k).astype(bool) for k, v in info.get("terminations", {}).items()}
            self.end_conditions.extend(k for k in named if k not in self.end_conditions)
            term, trunc = to_numpy(terminated, "terminated"), to_numpy(truncated, "truncated")
            restarted = []
            for i, slot in enumerate(slots):
                if slot is None:
                    continue
                slot.length += 1
                if math.isfinite(rewards[i]):
                    slot.total_reward += float(rewards[i])
                elif slot.sim_problem is None:
                    slot.sim_problem, slot.sim_problem_step = "reward_not_finite", slot.length
                if not (term[i] or trunc[i]):
                    continue
                slot.ended_by = _ended_by(bool(term[i]), named, i, slot.length, env.max_episode_length)
                slot.success, slot.checks = self.verdicts.pop(i)
                slot.success = slot.success and slot.sim_problem is None
                records.append(slot)
                slots[i] = None
                self.live[i] = False
                if next_number < episodes:
                    env.seeded_reset(i, next_number)
                    restarted.append((i, next_number))
                    next_number += 1
            if restarted:
                obs = env.observations()
                for i, number in restarted:
                    start(i, number, obs[i])
        records.sort(key=lambda r: r.number)
        return records


def _ended_by(terminated: bool, named: Mapping[str, np.ndarray], i: int, length: int, max_length: int) -> str:
    if terminated:
        for name, mask in named.items():
            if mask[i]:
                return name
        return ENDED_BY_TERMINATION
    return ENDED_BY_TIME_LIMIT if length >= max_length - 1 else ENDED_BY_TASK_TRUNCATION
