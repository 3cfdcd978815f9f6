"""Env runners on Ray: each rollout actor holds a copy of the policy and returns whole rollouts.

The learner (the trainer, in the driver) and its :class:`~simulo.scale.ray_env.RayLearningEnv`'s actors
work as RLlib's env runners do. Per iteration:

1. the learner puts its current weights into Ray's object store once (``ray.put``);
2. every actor loads them (Ray moves one copy per node, however many actors it runs), steps its share
   of the environments for the whole rollout (``rollouts`` steps), sampling actions and computing
   log-probabilities and values itself, and returns the batch;
3. the learner fills skrl's memory with the batches in environment order and runs PPO's update. With the
   data-parallel update (:mod:`simulo.rl.training.sharded_update`) it hands every actor its rows' returns
   and advantages, then per mini-batch sends the weights (pickled once) and gathers the shards' gradients
   over the actors' direct channels, each actor's added up there into nodes of the shards' tree (one sum
   per actor for 1 or 2 actors over 8 shards).

Two Ray calls per actor and iteration, instead of one round trip per step. Each actor's share is a union
of whole rollout shards (:attr:`RayLearningEnv.rollout_layout`), each with its own random stream, so
the batch is the same bytes for any number of actors (:mod:`simulo.rl.training.collector`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

import numpy as np

from simulo.rl.training.collector import (
    IterationCost,
    PolicyPackage,
    RolloutBatch,
    RunnerCost,
    Weights,
    weights_nbytes,
)
from simulo.rl.training.sharded_update import LossSettings, ShardGradient
from simulo.scale.sweep import Shard


class RolloutActors(Protocol):
    """The actors of a sharded environment, as env runners use them (a
    :class:`~simulo.scale.ray_env.RayLearningEnv` is one)."""

    num_envs: int
    """Environments of the whole batch."""
    shards: list[Shard]
    """The environments of each actor, in environment order."""
    rollout_layout: list[Shard]
    """The rollout shards (each with its own random streams), in environment order."""

    def put(self, value: Any) -> Any:
        """Put ``value`` into Ray's object store once, for every actor to read; its reference."""
        ...

    def call_actors(self, name: str, args: list[tuple[Any, ...]], what: str) -> list[Any]:
        """Call Ray method ``name`` on every actor with its own ``args``; the answers in shard order."""
        ...

    def call_channels(self, name: str, args: list[tuple[Any, ...]], what: str) -> list[Any]:
        """Call method ``name`` of every actor with its own ``args`` over the direct channels; the answers in
        shard order."""
        ...


class RayCollector:
    """A :class:`~simulo.rl.training.collector.Collector` over a sharded environment's actors.

    Args:
        env: The sharded environment; its actors become the env runners.
        package: The policy to copy into every actor (sent once).
        seed: The trainer's seed (keys every shard's random streams).

    Raises:
        WorkerError: An actor died.
    """

    def __init__(self, env: RolloutActors, package: PolicyPackage, seed: int) -> None:
        self._env = env
        args = []
        for group in env.shards:
            inside = [s for s in env.rollout_layout if group.first <= s.first < group.stop]
            args.append((package, [(s.first - group.first, s.count) for s in inside], [s.first for s in inside],
                         seed, (inside[0].index, len(env.rollout_layout))))
        env.call_actors("open_runner", args, "copying the policy to the rollout actors")
        self.weights_bytes = 0
        self.batch_bytes = 0
        self.update_bytes = 0
        """Bytes of the last iteration's sharded update: the targets out, the weights once per actor and
        mini-batch, the gradients back: each actor's shards added up into nodes of the shards' tree, one
        per actor when its shards make one node (0 with skrl's update)."""
        self._runner_cost: RunnerCost | None = None
        self._update_cpu = 0.0
        self.last_cost: IterationCost | None = None
        self.in_process = False
        """The runners are Ray actors, never the learner's process."""

    @property
    def bytes_moved(self) -> int:
        """Bytes of the last iteration: the weights once per actor (an upper bound: Ray sends one copy per
        node), the batches back and the sharded update's traffic (:attr:`update_bytes`)."""
        return self.weights_bytes * len(self._env.shards) + self.batch_bytes + self.update_bytes

    @property
    def runner_cost(self) -> RunnerCost | None:
        """The actors' cost in the last :meth:`collect` (their CPU seconds summed, the slowest one's wall time)
        and the gradients computed since."""
        cost = self._runner_cost
        return None if cost is None else dataclasses.replace(cost, update_cpu_s=self._update_cpu)

    def collect(self, weights: Weights, iteration: int, steps: int) -> RolloutBatch:
        """Broadcast ``weights`` (one ``ray.put``) and gather every actor's rollout, in environment order."""
        self._update_cpu, self.update_bytes = 0.0, 0
        ref = self._env.put(weights)
        parts: list[Any] = self._env.call_actors("collect", [(ref, iteration, steps)] * len(self._env.shards),
                                                 f"the rollout of iteration {iteration}")
        batch = RolloutBatch.concat([part for part, _ in parts])
        self._runner_cost = RunnerCost.combine([cost for _, cost in parts])
        self.weights_bytes, self.batch_bytes = weights_nbytes(weights), batch.nbytes
        return batch

    @property
    def shard_sizes(self) -> list[int]:
        """Environments of each rollout shard, in order."""
        return [s.count for s in self._env.rollout_layout]

    def set_targets(self, targets: dict[str, np.ndarray], settings: LossSettings) -> None:
        """Hand every actor its environments' ``values``, ``returns`` and ``advantages`` (one call each)."""
        args = [({k: v[:, g.first:g.stop] for k, v in targets.items()}, settings) for g in self._env.shards]
        self.update_bytes += sum(v.nbytes for v in targets.values())
        self._env.call_channels("set_targets", args, "handing out the update's targets")

    def gradients(self, weights: Weights, start: int, stop: int) -> list[ShardGradient]:
        """The shards' gradients for memory rows ``start .. stop - 1``, in shard order, as nodes of the shards'
        tree (:func:`~simulo.rl.training.sharded_update.tree_reduce`): one request per actor over its direct
        channel (a mini-batch's round trip is too short for a Ray call's overhead)."""
        parts: list[list[ShardGradient]] = self._env.call_channels(
            "gradients", [(weights, start, stop, self._env.num_envs)] * len(self._env.shards),
            f"the gradients of memory rows {start}..{stop - 1}")
        out = [g for part in parts for g in part]
        self._update_cpu += sum(g.cpu_s for g in out)
        self.update_bytes += weights_nbytes(weights) * len(self._env.shards) + \
            sum(g.grad.nbytes for g in out)
        return out
