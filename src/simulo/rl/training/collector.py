"""Env runners: collect one rollout with a copy of the policy, then feed it to the learner (imports torch and skrl).

The seam between the trainer and whoever steps the environments. A :class:`Collector` takes the current
weights and returns a whole rollout (:class:`RolloutBatch`): ``rollouts`` steps of every environment, with
the actions sampled, their log-probabilities and the values computed next to the environments, as
RLlib's env runners do. The learner (:func:`feed_rollout`) puts the batch into skrl's memory exactly as
skrl's own ``record_transition`` would, and skrl's ``post_interaction`` runs the PPO update: skrl's own, or,
when the shard layout makes it pay, the data-parallel one (:mod:`simulo.rl.training.sharded_update`), for
which the runners compute each shard's gradients.

:class:`InProcessCollector` runs the shards in this process; :mod:`simulo.scale.env_runners` runs them
in Ray actors, which hold a :class:`ShardRunner` each (:mod:`simulo.rl.training.shard_runner`). A backend
(``env.backend``) offers collection by having a ``rollout_collector(package, seed)`` method
(:class:`CollectorSource`).

Same seed, same bytes. The batch is cut into rollout shards (``(first, count)`` spans of whole worlds).
Each shard samples from its own generator, seeded from ``(seed, first env of the shard, iteration)``, and
runs the networks on exactly its own rows. So the collected data depends only on the seed and the shard
layout, never on how many processes run the shards (a forward pass over a different number of rows may
round differently, so one per shard is what makes it exact). It differs from the trainer's in-process
rollout, which samples the whole batch from one stream.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import torch
from skrl.agents.torch import Agent

from simulo.rl.training.policy_copy import PolicyPackage, Weights, policy_package, policy_weights, weights_nbytes
from simulo.rl.training.rollout import RolloutSpan
from simulo.rl.training.rollout_batch import IterationCost, RolloutBatch, RunnerCost
from simulo.rl.training.shard_runner import InProcessCollector, ShardRunner
from simulo.rl.training.sharded_update import LossSettings, ShardGradient, sharded_update, use_sharded_update


class Collector(Protocol):
    """A thing that collects one rollout of every environment given the current weights."""

    def collect(self, weights: Weights, iteration: int, steps: int) -> RolloutBatch:
        """Run ``steps`` steps of every environment with ``weights``; ``iteration`` keys the random streams."""
        ...

    @property
    def bytes_moved(self) -> int:
        """Bytes sent between processes by the last :meth:`collect` (weights out, batches back)."""
        ...

    @property
    def runner_cost(self) -> RunnerCost | None:
        """What the runners' part of the last :meth:`collect` cost (``None`` before the first)."""
        ...

    last_cost: IterationCost | None
    """The whole last iteration's cost, set by :func:`collect_iteration` (``None`` before the first)."""

    in_process: bool
    """Whether the runners run in the learner's process."""

    @property
    def shard_sizes(self) -> list[int]:
        """Environments of each rollout shard, in order."""
        ...

    def set_targets(self, targets: dict[str, np.ndarray], settings: LossSettings) -> None:
        """Hand the iteration's ``values``, ``returns`` and ``advantages`` to the runners (sharded update)."""
        ...

    def gradients(self, weights: Weights, start: int, stop: int) -> list[ShardGradient]:
        """Every shard's gradient for memory rows ``start .. stop - 1``, in shard order (sharded update)."""
        ...


class CollectorSource(Protocol):
    """A backend that can run env runners next to its environments."""

    def rollout_collector(self, package: PolicyPackage, seed: int) -> Collector:
        """A collector over the backend's environments acting with ``package``'s models."""
        ...


def open_collector(env: Any, agent: Any, seed: int) -> Collector | None:
    """The collector ``env``'s backend offers (its ``rollout_collector``), or ``None`` for in-process rollouts.

    When :func:`~simulo.rl.training.sharded_update.use_sharded_update` says so for the collector's shard
    layout, ``agent``'s update becomes the data-parallel one over the collector's runners.
    """
    backend = getattr(env, "backend", env)
    make = getattr(backend, "rollout_collector", None)
    if make is None:
        return None
    collector: Collector = make(policy_package(agent), seed)
    if use_sharded_update(agent, collector.shard_sizes):
        agent._update = lambda timestep, timesteps: sharded_update(agent, collector)
    return collector


def collect_iteration(agent: Any, collector: Collector, span: RolloutSpan,
                      record_returns: Callable[[list[float]], None]) -> IterationCost:
    """One iteration through a collector: weights out, a rollout back, skrl's memory filled, PPO's update run.

    Args:
        agent: skrl's PPO agent (the learner).
        collector: Who steps the environments.
        span: The iteration and its timesteps.
        record_returns: Called with the returns of the episodes that ended, step by step.

    Returns:
        What the iteration cost (also kept as ``collector.last_cost``).
    """
    cpu = time.process_time()
    weights = policy_weights(agent)
    cpu = time.process_time() - cpu
    wall = time.perf_counter()
    batch = collector.collect(weights, span.iteration, span.rollouts)
    wall = time.perf_counter() - wall
    start = time.process_time()
    for returns in batch.episode_returns:
        record_returns([float(r) for r in returns])
    update_cpu, update_wall = feed_rollout(agent, batch, span)
    runners = collector.runner_cost
    assert runners is not None  # set by the collect just made
    here = runners.update_cpu_s if collector.in_process else 0.0  # the runners' share, when it ran here
    collector.last_cost = IterationCost(runners, wall, cpu + time.process_time() - start - here, update_cpu - here,
                                        update_wall)
    return collector.last_cost


def feed_rollout(agent: Any, batch: RolloutBatch, span: RolloutSpan) -> tuple[float, float]:
    """Record ``batch`` into skrl's PPO as its ``record_transition`` does, calling ``post_interaction`` per step.

    Reward shaping and time-limit bootstrapping are applied here, with the runners' values; the last
    step's ``post_interaction`` runs the update.

    Returns:
        The CPU and the wall seconds spent in ``post_interaction`` (the update, mostly).
    """
    device = agent.device

    def tensor(array: np.ndarray) -> torch.Tensor:
        return torch.tensor(array, device=device)  # a copy: arrays from Ray are read-only

    states, actions, log_probs, values = (tensor(a) for a in (batch.states, batch.actions, batch.log_prob,
                                                                batch.values))
    rewards_all = tensor(batch.rewards).unsqueeze(-1)
    terminated_all, truncated_all = tensor(batch.terminated).unsqueeze(-1), tensor(batch.truncated).unsqueeze(-1)
    steps, update, update_wall = states.shape[0], 0.0, 0.0
    for t in range(steps):
        timestep = span.first_timestep + t
        agent.pre_interaction(timestep=timestep, timesteps=span.timesteps)
        next_states = states[t + 1] if t + 1 < steps else tensor(batch.last_states)
        rewards = rewards_all[t].clone()  # shaped and bootstrapped in place below
        terminated, truncated = terminated_all[t], truncated_all[t]
        with torch.no_grad():
            Agent.record_transition(agent, states[t], actions[t], rewards, next_states, terminated, truncated, None,
                                    timestep, span.timesteps)
            if agent._rewards_shaper is not None:
                rewards = agent._rewards_shaper(rewards, timestep, span.timesteps)
            if agent._time_limit_bootstrap:
                rewards += agent._discount_factor * values[t] * truncated
            sample = {"states": states[t], "actions": actions[t], "rewards": rewards, "next_states": next_states,
                      "terminated": terminated, "truncated": truncated, "log_prob": log_probs[t],
                      "values": values[t]}
            for memory in (agent.memory, *agent.secondary_memories):
                memory.add_samples(**sample)
        agent._current_next_states = next_states
        tick, wall = time.process_time(), time.perf_counter()
        agent.post_interaction(timestep=timestep, timesteps=span.timesteps)
        update += time.process_time() - tick
        update_wall += time.perf_counter() - wall
    return update, update_wall


__all__ = ["Collector", "CollectorSource", "InProcessCollector", "IterationCost", "PolicyPackage", "RolloutBatch",
           "RunnerCost", "ShardRunner", "Weights", "collect_iteration", "feed_rollout", "open_collector",
           "policy_package", "policy_weights", "weights_nbytes"]
