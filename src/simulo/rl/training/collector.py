"""Env runners: collect one rollout with a copy of the policy, then feed it to the learner (imports torch and skrl).

The seam between the trainer and whoever steps the environments. A :class:`Collector` takes the current
weights and returns a whole rollout (:class:`RolloutBatch`): ``rollouts`` steps of every environment, with
the actions sampled, their log-probabilities and the values computed next to the environments, as
RLlib's env runners do. The learner (:func:`feed_rollout`) puts the batch into skrl's memory exactly as
skrl's own ``record_transition`` would, and skrl's ``post_interaction`` runs the PPO update.

:class:`InProcessCollector` runs the shards in this process; :mod:`simulo.scale.env_runners` runs them
in Ray actors, which hold a :class:`ShardRunner` each. A backend (``env.backend``) offers collection by
having a ``rollout_collector(package, seed)`` method (:class:`CollectorSource`).

Same seed, same bytes. The batch is cut into rollout shards (``(first, count)`` spans of whole worlds).
Each shard samples from its own generator, seeded from ``(seed, first env of the shard, iteration)``, and
runs the networks on exactly its own rows. So the collected data depends only on the seed and the shard
layout, never on how many processes run the shards (a forward pass over a different number of rows may
round differently, so one per shard is what makes it exact). It differs from the trainer's in-process
rollout, which samples the whole batch from one stream.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

import numpy as np
import torch
from skrl.agents.torch import Agent

from simulo.errors import ShapeError
from simulo.rl.training.agent import ACTION_LIMIT
from simulo.rl.training.inputs import StateSource, as_batch
from simulo.rl.training.policy_copy import PolicyPackage, Weights, policy_package, policy_weights, weights_nbytes
from simulo.rl.training.rollout import RolloutSpan, finished_returns


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
    """

    cpu_s: float
    step_cpu_s: float
    act_cpu_s: float
    wall_s: float

    @staticmethod
    def combine(parts: Sequence[RunnerCost]) -> RunnerCost:
        """Runners working side by side: their CPU seconds summed, the slowest one's wall time."""
        return RunnerCost(sum(p.cpu_s for p in parts), sum(p.step_cpu_s for p in parts),
                          sum(p.act_cpu_s for p in parts), max(p.wall_s for p in parts))


@dataclass(frozen=True)
class IterationCost:
    """What one iteration through a collector cost: the runners' share (parallel) and the learner's (serial).

    Attributes:
        runners: The runners' cost, all of them together (:meth:`RunnerCost.combine`).
        collect_wall_s: The learner's wall seconds from handing out the weights to holding the whole batch
            (the slowest runner plus the transfers and the waiting).
        learner_cpu_s: The learner's CPU seconds outside the collection: taking the weights, filling skrl's
            memory and running PPO's update.
        update_cpu_s: Of which skrl's ``post_interaction`` calls (the last one runs the update: GAE and
            the epochs of mini-batches).
    """

    runners: RunnerCost
    collect_wall_s: float
    learner_cpu_s: float
    update_cpu_s: float

    @property
    def serial_fraction(self) -> float:
        """The learner's share of the iteration's CPU seconds (the part more runners do not shorten)."""
        total = self.learner_cpu_s + self.runners.cpu_s
        return self.learner_cpu_s / total if total > 0 else 0.0

    def speedup_bound(self, workers: int) -> float:
        """Amdahl's bound on the speed-up ``workers`` runners can give over one, from :attr:`serial_fraction`."""
        s = self.serial_fraction
        return 1.0 / (s + (1.0 - s) / workers)


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


class CollectorSource(Protocol):
    """A backend that can run env runners next to its environments."""

    def rollout_collector(self, package: PolicyPackage, seed: int) -> Collector:
        """A collector over the backend's environments acting with ``package``'s models."""
        ...


def open_collector(env: Any, agent: Any, seed: int) -> Collector | None:
    """The collector ``env``'s backend offers (its ``rollout_collector``), or ``None`` for in-process rollouts."""
    backend = getattr(env, "backend", env)
    make = getattr(backend, "rollout_collector", None)
    return None if make is None else make(policy_package(agent), seed)


class ShardRunner:
    """Steps a group of consecutive rollout shards with a copy of the policy (in a worker, or in-process).

    Args:
        env: The environments of the group (a ``LocalEnv`` or ``LearningEnv`` over them).
        spans: ``(first, count)`` of each shard, local to ``env`` (consecutive, covering it).
        global_firsts: The global index of each shard's first environment (keys its random stream).
        package: The models to act with.
        seed: The trainer's seed.
    """

    def __init__(self, env: Any, spans: Sequence[tuple[int, int]], global_firsts: Sequence[int],
                 package: PolicyPackage, seed: int) -> None:
        covered = [(first, first + count) for first, count in spans]
        if not covered or covered[0][0] != 0 or covered[-1][1] != env.num_envs or \
                any(a[1] != b[0] for a, b in itertools.pairwise(covered)):
            raise ShapeError(f"rollout shards {list(spans)} do not cover the {env.num_envs} environments in order")
        self.env, self.spans, self.package = env, covered, package
        self._keys = [(seed, int(first)) for first in global_firsts]
        self._source = StateSource(env, torch.device("cpu"))
        self._states: torch.Tensor | None = None
        self._running = torch.zeros(env.num_envs)
        self._clock = {"step": 0.0, "act": 0.0}
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
        wall, cpu = time.perf_counter(), time.process_time()
        self._clock = {"step": 0.0, "act": 0.0}
        self.load(weights)
        outer = torch.get_rng_state()
        try:
            streams = [torch.Generator().manual_seed(_stream_seed(seed, first, iteration)).get_state()
                       for seed, first in self._keys]
            batch = self._run(streams, iteration, steps)
        finally:
            torch.set_rng_state(outer)
        self.last_cost = RunnerCost(time.process_time() - cpu, self._clock["step"], self._clock["act"],
                                    time.perf_counter() - wall)
        return batch

    def _run(self, streams: list[torch.Tensor], iteration: int, steps: int) -> RolloutBatch:
        env, n = self.env, self.env.num_envs
        if self._states is None:
            reset = env.reset()
            self._states = self._source.states(reset[0] if isinstance(reset, tuple) else reset, "reset()")
        out: dict[str, list[Any]] = {k: [] for k in ("states", "actions", "log_prob", "values", "rewards",
                                                       "terminated", "truncated", "episode_returns")}
        states = self._states
        for t in range(steps):
            tick = time.process_time()
            with torch.no_grad():
                actions, log_prob, values = self._act(states, streams)
            tock = time.process_time()
            next_obs, rewards, terminated, truncated, info = env.step(actions.clamp(-ACTION_LIMIT, ACTION_LIMIT))
            self._clock["act"] += tock - tick
            self._clock["step"] += time.process_time() - tock
            step = f"step() at iteration {iteration}, rollout step {t}"
            next_states = self._source.states(next_obs, step)
            rewards = as_batch(rewards, f"{step}: rewards", n, (), torch.float32, self._source.device)
            terminated = as_batch(terminated, f"{step}: terminated", n, (), torch.bool, self._source.device)
            truncated = as_batch(truncated, f"{step}: truncated", n, (), torch.bool, self._source.device)
            returns = finished_returns(rewards, terminated | truncated, info, self._running)
            for key, value in (("states", states), ("actions", actions), ("log_prob", log_prob),
                               ("values", values), ("rewards", rewards), ("terminated", terminated),
                               ("truncated", truncated)):
                out[key].append(value.numpy())
            out["episode_returns"].append(np.asarray(returns, dtype=np.float64))
            states = next_states
        self._states = states
        stacked = {k: np.stack(v) for k, v in out.items() if k != "episode_returns"}
        return RolloutBatch(**stacked, last_states=states.numpy().copy(),
                            episode_returns=tuple(out["episode_returns"]))

    def _act(self, states: torch.Tensor, streams: list[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """Sample each shard's actions from its own stream (skrl's ``act``, on the shard's rows only)."""
        p = self.package
        actions, log_probs, values = [], [], []
        for k, (lo, hi) in enumerate(self.spans):
            x = _apply(p.state_preprocessor, states[lo:hi])
            torch.set_rng_state(streams[k])
            a, log_prob, _ = p.policy.act({"states": x}, role="policy")
            streams[k] = torch.get_rng_state()
            v, _, _ = p.value.act({"states": x}, role="value")
            actions.append(a)
            log_probs.append(log_prob)
            values.append(_apply(p.value_preprocessor, v, inverse=True))
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

    def collect(self, weights: Weights, iteration: int, steps: int) -> RolloutBatch:
        """Run ``steps`` steps of every environment with ``weights``."""
        return self._runner.collect(weights, iteration, steps)

    @property
    def bytes_moved(self) -> int:
        """Nothing crosses a process boundary: 0."""
        return 0

    @property
    def runner_cost(self) -> RunnerCost | None:
        """What the last :meth:`collect` cost (in this process)."""
        return self._runner.last_cost


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
    update = feed_rollout(agent, batch, span)
    runners = collector.runner_cost
    assert runners is not None  # set by the collect just made
    collector.last_cost = IterationCost(runners, wall, cpu + time.process_time() - start, update)
    return collector.last_cost


def feed_rollout(agent: Any, batch: RolloutBatch, span: RolloutSpan) -> float:
    """Record ``batch`` into skrl's PPO as its ``record_transition`` does, calling ``post_interaction`` per step.

    Reward shaping and time-limit bootstrapping are applied here, with the runners' values; the last
    step's ``post_interaction`` runs the update.

    Returns:
        The CPU seconds spent in ``post_interaction`` (the update, mostly).
    """
    device = agent.device

    def tensor(array: np.ndarray) -> torch.Tensor:
        return torch.tensor(array, device=device)  # a copy: arrays from Ray are read-only

    states, actions, log_probs, values = (tensor(a) for a in (batch.states, batch.actions, batch.log_prob,
                                                                batch.values))
    rewards_all = tensor(batch.rewards).unsqueeze(-1)
    terminated_all, truncated_all = tensor(batch.terminated).unsqueeze(-1), tensor(batch.truncated).unsqueeze(-1)
    steps, update = states.shape[0], 0.0
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
        tick = time.process_time()
        agent.post_interaction(timestep=timestep, timesteps=span.timesteps)
        update += time.process_time() - tick
    return update


def _apply(preprocessor: Any, x: torch.Tensor, inverse: bool = False) -> torch.Tensor:
    return x if preprocessor is None else preprocessor(x, inverse=inverse)


def _stream_seed(seed: int, first: int, iteration: int) -> int:
    """A 63-bit seed for the stream of the shard starting at env ``first`` in ``iteration``."""
    return int(np.random.SeedSequence([seed & (2**63 - 1), first, iteration]).generate_state(1, np.uint64)[0] >> 1)


__all__ = ["Collector", "CollectorSource", "InProcessCollector", "IterationCost", "PolicyPackage", "RolloutBatch",
           "RunnerCost", "ShardRunner", "Weights",
           "collect_iteration", "feed_rollout", "open_collector", "policy_package", "policy_weights",
           "weights_nbytes"]
