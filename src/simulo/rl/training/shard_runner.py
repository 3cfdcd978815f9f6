"""Env runners' side: step rollout shards with a copy of the policy, and compute their update's gradients.

A :class:`ShardRunner` holds a group of consecutive rollout shards (in a Ray actor, or in-process behind
an :class:`InProcessCollector`). :meth:`ShardRunner.collect` runs a whole rollout, sampling each shard's
actions from its own stream; with a sharded update (:mod:`simulo.rl.training.sharded_update`) it keeps
the rollout's rows and :meth:`ShardRunner.gradients` computes each shard's share of every mini-batch's
gradient. :mod:`simulo.rl.training.collector` re-exports these names.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from simulo.errors import ShapeError, SimuloError
from simulo.rl.training.agent import ACTION_LIMIT
from simulo.rl.training.inputs import StateSource, as_batch
from simulo.rl.training.policy_copy import PolicyPackage, Weights, apply_preprocessor
from simulo.rl.training.rollout import finished_returns
from simulo.rl.training.rollout_batch import IterationCost, RolloutBatch, RunnerCost
from simulo.rl.training.sharded_update import (
    LossSettings,
    ShardGradient,
    load_update_weights,
    shard_gradient,
    shard_rows,
    tree_reduce,
)


class ShardRunner:
    """Steps a group of consecutive rollout shards with a copy of the policy (in a worker, or in-process).

    Args:
        env: The environments of the group (a ``LocalEnv``, or a ``LearningEnv`` over one).
        spans: ``(first, count)`` of each shard, local to ``env`` (consecutive, covering it).
        global_firsts: The global index of each shard's first environment (keys its random stream).
        package: The models to act with.
        seed: The trainer's seed.
        layout: ``(index, total)``: the index of the group's first shard in the batch's rollout layout and the
            layout's number of shards (they place the group in the tree its gradients are added up in);
            ``None``: the group is the whole layout.

    Raises:
        ShapeError: The spans do not cover ``env`` in order, or do not fit in ``layout``.
    """

    def __init__(self, env: Any, spans: Sequence[tuple[int, int]], global_firsts: Sequence[int],
                 package: PolicyPackage, seed: int, layout: tuple[int, int] | None = None) -> None:
        covered = [(first, first + count) for first, count in spans]
        if not covered or covered[0][0] != 0 or covered[-1][1] != env.num_envs or \
                any(a[1] != b[0] for a, b in itertools.pairwise(covered)):
            raise ShapeError(f"rollout shards {list(spans)} do not cover the {env.num_envs} environments in order")
        index, total = (0, len(covered)) if layout is None else layout
        if index < 0 or index + len(covered) > total:
            raise ShapeError(f"rollout shards {index}..{index + len(covered) - 1} do not fit in a layout of "
                             f"{total} shards")
        self.env, self.spans, self.package = env, covered, package
        self._layout = (index, total)
        self._keys = [(seed, int(first)) for first in global_firsts]
        self._rows: dict[str, torch.Tensor] = {}  # the last rollout's states, actions, log_prob; then targets
        self._settings: LossSettings | None = None
        self._batches: dict[tuple[int, int, int], list[dict[str, torch.Tensor]]] = {}  # mini-batch -> shards' rows
        self._source = StateSource(env, torch.device("cpu"))
        self._states: torch.Tensor | None = None
        self._running = torch.zeros(env.num_envs)
        self._clock = {"step": 0.0, "act": 0.0, "env_wall": 0.0}
        self.last_cost: RunnerCost | None = None
        """What the last :meth:`collect` cost in this process."""
        for module in (package.policy, package.value):
            module.set_mode("eval")

    def load(self, weights: Weights) -> None:
        """Load the learner's current weights."""
        p = self.package
        for module, name in ((p.policy, "policy"), (p.value, "value"), (p.state_preprocessor, "state_preprocessor"),
                             (p.value_preprocessor, "value_preprocessor")):
            if module is not None:
                module.load_state_dict(weights[name])

    def collect(self, weights: Weights, iteration: int, steps: int) -> RolloutBatch:
        """Load ``weights`` and run ``steps`` steps of every environment; returns the batch (its cost:
        :attr:`last_cost`)."""
        wall, cpu, physics = time.perf_counter(), time.process_time(), self.env.physics_time_s
        self._clock = {"step": 0.0, "act": 0.0, "env_wall": 0.0}
        self.load(weights)
        outer = torch.get_rng_state()
        try:
            streams = [torch.Generator().manual_seed(_stream_seed(seed, first, iteration)).get_state()
                       for seed, first in self._keys]
            batch = self._run(streams, iteration, steps)
        finally:
            torch.set_rng_state(outer)
        self.last_cost = RunnerCost(time.process_time() - cpu, self._clock["step"], self._clock["act"],
                                    time.perf_counter() - wall, env_wall_s=self._clock["env_wall"],
                                    physics_s=self.env.physics_time_s - physics)
        return batch

    def _run(self, streams: list[torch.Tensor], iteration: int, steps: int) -> RolloutBatch:
        env, n = self.env, self.env.num_envs
        if self._states is None:
            tick = time.perf_counter()
            reset = env.reset()
            self._states = self._source.states(reset[0] if isinstance(reset, tuple) else reset, "reset()")
            self._clock["env_wall"] += time.perf_counter() - tick
        out: dict[str, list[Any]] = {k: [] for k in ("states", "actions", "log_prob", "values", "rewards",
                                                       "terminated", "truncated", "episode_returns")}
        states = self._states
        for t in range(steps):
            tick = time.process_time()
            with torch.no_grad():
                actions, log_prob, values = self._act(states, streams)
            tock, wall = time.process_time(), time.perf_counter()
            next_obs, rewards, terminated, truncated, info = env.step(actions.clamp(-ACTION_LIMIT, ACTION_LIMIT))
            self._clock["act"] += tock - tick
            self._clock["step"] += time.process_time() - tock
            step = f"step() at iteration {iteration}, rollout step {t}"
            next_states = self._source.states(next_obs, step)
            self._clock["env_wall"] += time.perf_counter() - wall
            rewards = as_batch(rewards, f"{step}: rewards", n, (), torch.float32, self._source.device)
            terminated = as_batch(terminated, f"{step}: terminated", n, (), torch.bool, self._source.device)
            truncated = as_batch(truncated, f"{step}: truncated", n, (), torch.bool, self._source.device)
            returns = finished_returns(rewards, terminated | truncated, info, self._running)
            for key, value in (("states", states), ("actions", actions), ("log_prob", log_prob),
                               ("values", values), ("rewards", rewards), ("terminated", terminated),
                               ("truncated", truncated)):
                out[key].append(value)
            out["episode_returns"].append(np.asarray(returns, dtype=np.float64))
            states = next_states
        self._states = states
        stacked = {k: torch.stack(v) for k, v in out.items() if k != "episode_returns"}
        self._rows = {k: stacked[k] for k in ("states", "actions", "log_prob")}  # kept for sharded updates
        self._batches = {}
        return RolloutBatch(**{k: v.numpy() for k, v in stacked.items()}, last_states=states.numpy().copy(),
                            episode_returns=tuple(out["episode_returns"]))

    def set_targets(self, targets: dict[str, np.ndarray], settings: LossSettings) -> None:
        """Keep the iteration's ``values``, ``returns`` and ``advantages`` of this group's environments
        (``(T, num_envs, 1)`` each, as the learner computed them) for :meth:`gradients`."""
        for name in ("values", "returns", "advantages"):
            self._rows[name] = torch.from_numpy(np.array(targets[name], dtype=np.float32))
        self._settings = settings
        self._batches = {}

    def gradients(self, weights: Weights, start: int, stop: int, num_envs: int) -> list[ShardGradient]:
        """Each shard's gradient for memory rows ``start .. stop - 1`` of a batch of ``num_envs``
        environments, with ``weights`` (:func:`~simulo.rl.training.sharded_update.update_weights`; the
        gradients: :func:`~simulo.rl.training.sharded_update.shard_gradient`).

        The group's shards come added up into the largest nodes of the layout's tree that lie inside the
        group (:func:`~simulo.rl.training.sharded_update.tree_reduce`: the learner's own additions, the same
        bytes; one gradient to send when the group is a node, as for 1 or 2 groups of 8 shards). Each
        mini-batch's rows are cut once per iteration and kept for the later epochs.
        """
        if self._settings is None or "advantages" not in self._rows:
            raise SimuloError("ShardRunner.gradients before set_targets: collect a rollout and hand out its "
                              "targets first")
        load_update_weights(self.package, weights)
        key = (start, stop, num_envs)
        if key not in self._batches:
            self._batches[key] = [shard_rows({name: tensor[:, lo:hi] for name, tensor in self._rows.items()},
                                             first, num_envs, start, stop)
                                  for (lo, hi), (_, first) in zip(self.spans, self._keys, strict=True)]
        outer = torch.get_rng_state()  # skrl's act draws a sample it does not need here
        try:
            out = [shard_gradient(self.package, self._settings, rows, stop - start) for rows in self._batches[key]]
        finally:
            torch.set_rng_state(outer)
        return tree_reduce(out, *self._layout)

    def _act(self, states: torch.Tensor, streams: list[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """Sample each shard's actions from its own stream (skrl's ``act``, on the shard's rows only)."""
        p = self.package
        actions, log_probs, values = [], [], []
        for k, (lo, hi) in enumerate(self.spans):
            x = apply_preprocessor(p.state_preprocessor, states[lo:hi])
            torch.set_rng_state(streams[k])
            a, log_prob, _ = p.policy.act({"states": x}, role="policy")
            streams[k] = torch.get_rng_state()
            v, _, _ = p.value.act({"states": x}, role="value")
            actions.append(a)
            log_probs.append(log_prob)
            values.append(apply_preprocessor(p.value_preprocessor, v, inverse=True))
        return torch.cat(actions), torch.cat(log_probs), torch.cat(values)


class InProcessCollector:
    """A :class:`Collector` that runs every rollout shard in this process, one after another.

    Args:
        env: The whole batch of environments.
        spans: ``(first, count)`` of each rollout shard (consecutive, covering the batch).
        package: The models to act with (:func:`policy_package`).
        seed: The trainer's seed.
    """

    def __init__(self, env: Any, spans: Sequence[tuple[int, int]], package: PolicyPackage, seed: int) -> None:
        self._runner = ShardRunner(env, spans, [first for first, _ in spans], package, seed)
        self.last_cost: IterationCost | None = None
        self._update_cpu = 0.0
        self.in_process = True
        """The runners share the learner's process (their CPU seconds are the learner's too)."""

    def collect(self, weights: Weights, iteration: int, steps: int) -> RolloutBatch:
        """Run ``steps`` steps of every environment with ``weights``."""
        self._update_cpu = 0.0
        return self._runner.collect(weights, iteration, steps)

    @property
    def bytes_moved(self) -> int:
        """Nothing crosses a process boundary: 0."""
        return 0

    @property
    def runner_cost(self) -> RunnerCost | None:
        """What the last :meth:`collect` cost (in this process), and the gradients computed since."""
        cost = self._runner.last_cost
        return None if cost is None else dataclasses.replace(cost, update_cpu_s=self._update_cpu)

    @property
    def shard_sizes(self) -> list[int]:
        """Environments of each rollout shard."""
        return [hi - lo for lo, hi in self._runner.spans]

    def set_targets(self, targets: dict[str, np.ndarray], settings: LossSettings) -> None:
        """Hand the iteration's targets to the runner (:meth:`ShardRunner.set_targets`)."""
        self._runner.set_targets(targets, settings)

    def gradients(self, weights: Weights, start: int, stop: int) -> list[ShardGradient]:
        """Every shard's gradient for memory rows ``start .. stop - 1`` (:meth:`ShardRunner.gradients`)."""
        parts = self._runner.gradients(weights, start, stop, self._runner.env.num_envs)
        self._update_cpu += sum(p.cpu_s for p in parts)
        return parts


def _stream_seed(seed: int, first: int, iteration: int) -> int:
    """A 63-bit seed for the stream of the shard starting at env ``first`` in ``iteration``."""
    return int(np.random.SeedSequence([seed & (2**63 - 1), first, iteration]).generate_state(1, np.uint64)[0] >> 1)


__all__ = ["InProcessCollector", "ShardRunner"]
