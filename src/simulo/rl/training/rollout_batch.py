"""What env runners send back: a rollout's batch (:class:`RolloutBatch`) and what collecting it cost.

:class:`RunnerCost` is one runner's CPU and wall seconds; :class:`IterationCost` adds the learner's share of
an iteration and gives its serial fraction. :mod:`simulo.rl.training.collector` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True)
class RolloutBatch:
    """One rollout of a group of environments, as numpy arrays (steps first, then environments).

    Attributes:
        states: ``(T, n, state_dim)`` float32, the states each action was taken in.
        actions: ``(T, n, action_dim)`` float32, as sampled (the environments got them clipped to ±1).
        log_prob: ``(T, n, 1)`` float32.
        values: ``(T, n, 1)`` float32, the value model's estimate of ``states`` (preprocessor undone).
        rewards: ``(T, n)`` float32.
        terminated: ``(T, n)`` bool.
        truncated: ``(T, n)`` bool.
        last_states: ``(n, state_dim)`` float32, the states after the last step.
        episode_returns: One float64 array per step: the returns of the episodes that ended at that step,
            in environment order.
    """

    states: np.ndarray
    actions: np.ndarray
    log_prob: np.ndarray
    values: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    last_states: np.ndarray
    episode_returns: tuple[np.ndarray, ...]

    @property
    def nbytes(self) -> int:
        """Bytes of array data in the batch."""
        arrays = [getattr(self, f.name) for f in fields(self) if f.name != "episode_returns"]
        return sum(a.nbytes for a in arrays) + sum(r.nbytes for r in self.episode_returns)

    @staticmethod
    def concat(parts: Sequence[RolloutBatch]) -> RolloutBatch:
        """The batches of consecutive environment groups as one batch (environment order kept)."""
        if len(parts) == 1:
            return parts[0]
        joined = {f.name: np.concatenate([getattr(p, f.name) for p in parts], axis=1)
                  for f in fields(RolloutBatch) if f.name not in ("last_states", "episode_returns")}
        steps = len(parts[0].episode_returns)
        returns = tuple(np.concatenate([p.episode_returns[t] for p in parts]) for t in range(steps))
        return RolloutBatch(**joined, last_states=np.concatenate([p.last_states for p in parts]),
                            episode_returns=returns)


@dataclass(frozen=True)
class RunnerCost:
    """What one runner's :meth:`ShardRunner.collect` cost, in its own process.

    Attributes:
        cpu_s: CPU seconds of the whole call (loading the weights, stepping, acting, packing the batch).
        step_cpu_s: Of which the environments' ``step``.
        act_cpu_s: Of which the policy and value networks (sampling the actions).
        wall_s: Wall seconds of the call.
        update_cpu_s: CPU seconds spent after the collection computing the shards' gradients for a sharded
            update (:mod:`simulo.rl.training.sharded_update`); not part of ``cpu_s``.
        env_wall_s: Wall seconds of the call in the environments' ``reset`` and ``step`` (and reading the task's
            policy inputs when it declares them).
        physics_s: Of which wall seconds in the simulation's physics steps
            (:attr:`~simulo.rl.local_env.LocalEnv.physics_time_s`).
    """

    cpu_s: float
    step_cpu_s: float
    act_cpu_s: float
    wall_s: float
    update_cpu_s: float = 0.0
    env_wall_s: float = 0.0
    physics_s: float = 0.0

    @staticmethod
    def combine(parts: Sequence[RunnerCost]) -> RunnerCost:
        """Runners working side by side: their CPU seconds and their environments' wall seconds summed, the
        slowest one's wall time."""
        return RunnerCost(sum(p.cpu_s for p in parts), sum(p.step_cpu_s for p in parts),
                          sum(p.act_cpu_s for p in parts), max(p.wall_s for p in parts),
                          sum(p.update_cpu_s for p in parts), sum(p.env_wall_s for p in parts),
                          sum(p.physics_s for p in parts))


@dataclass(frozen=True)
class IterationCost:
    """What one iteration through a collector cost: the runners' share (parallel) and the learner's (serial).

    Attributes:
        runners: The runners' cost, all of them together (:meth:`RunnerCost.combine`).
        collect_wall_s: The learner's wall seconds from handing out the weights to holding the whole batch
            (the slowest runner plus the transfers and the waiting).
        learner_cpu_s: The learner's CPU seconds outside the collection: taking the weights, filling skrl's
            memory and running PPO's update (the runners' share of a sharded update left out).
        update_cpu_s: Of which skrl's ``post_interaction`` calls (the last one runs the update: GAE and
            the epochs of mini-batches).
        update_wall_s: The learner's wall seconds in those calls (with a sharded update, the runners' work
            and the round trips included).
    """

    runners: RunnerCost
    collect_wall_s: float
    learner_cpu_s: float
    update_cpu_s: float
    update_wall_s: float = 0.0

    @property
    def serial_fraction(self) -> float:
        """The learner's share of the iteration's CPU seconds (the part more runners do not shorten)."""
        total = self.learner_cpu_s + self.runners.cpu_s + self.runners.update_cpu_s
        return self.learner_cpu_s / total if total > 0 else 0.0

    def speedup_bound(self, workers: int) -> float:
        """Amdahl's bound on the speed-up ``workers`` runners can give over one, from :attr:`serial_fraction`."""
        s = self.serial_fraction
        return 1.0 / (s + (1.0 - s) / workers)


__all__ = ["IterationCost", "RolloutBatch", "RunnerCost"]
