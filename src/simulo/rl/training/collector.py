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

import copy
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

import numpy as np
import torch
from skrl.agents.torch import Agent

from simulo.errors import ShapeError
from simulo.rl.training.agent import ACTION_LIMIT
from simulo.rl.training.inputs import StateSource, as_batch
from simulo.rl.training.rollout import RolloutSpan, finished_returns

Weights = dict[str, Any]
"""The state dicts of the policy, the value model and the preprocessors (``None`` where there is none)."""


@dataclass(frozen=True)
class PolicyPackage:
    """What a runner needs to act like the learner's agent: copies of its models and preprocessors.

    Sent once; afterwards each iteration sends only :func:`policy_weights`.

    Attributes:
        policy: A copy of skrl's Gaussian policy model.
        value: A copy of skrl's value model.
        state_preprocessor: A copy of the state preprocessor module, or ``None`` (identity).
        value_preprocessor: A copy of the value preprocessor module, or ``None`` (identity).
    """

    policy: Any
    value: Any
    state_preprocessor: Any
    value_preprocessor: Any


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


class Collector(Protocol):
    """A thing that collects one rollout of every environment given the current weights."""

    def collect(self, weights: Weights, iteration: int, steps: int) -> RolloutBatch:
        """Run ``steps`` steps of every environment with ``weights``; ``iteration`` keys the random streams."""
        ...

    @property
    def bytes_moved(self) -> int:
        """Bytes sent between processes by the last :meth:`collect` (weights out, batches back)."""
        ...


class CollectorSource(Protocol):
    """A backend that can run env runners next to its environments."""

    def rollout_collector(self, package: PolicyPackage, seed: int) -> Collector:
        """A collector over the backend's environments acting with ``package``'s models."""
        ...


def policy_package(agent: Any) -> PolicyPackage:
    """Copies of ``agent``'s models and preprocessors (skrl's PPO), for runners."""
    return PolicyPackage(_cpu_copy(agent.policy), _cpu_copy(agent.value),
                         _preprocessor(agent, agent._state_preprocessor),
                         _preprocessor(agent, agent._value_preprocessor))


def policy_weights(agent: Any) -> Weights:
    """The current state dicts of ``agent``'s models and preprocessors (detached copies)."""
    def state(module: Any) -> Any:
        return None if module is None else {k: v.detach().to("cpu", copy=True) for k, v in module.state_dict().items()}

    return {"policy": state(agent.policy), "value": state(agent.value),
            "state_preprocessor": state(_preprocessor(agent, agent._state_preprocessor, copy_it=False)),
            "value_preprocessor": state(_preprocessor(agent, agent._value_preprocessor, copy_it=False))}


def weights_nbytes(weights: Weights) -> int:
    """Bytes of tensor data in ``weights``."""
    return sum(t.numel() * t.element_size() for part in weights.values() if part is not None for t in part.values())


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
        """Load ``weights`` and run ``steps`` steps of every environment; returns the batch."""
        self.load(weights)
        outer = torch.get_rng_state()
        try:
            streams = [torch.Generator().manual_seed(_stream_seed(seed, first, iteration)).get_state()
                       for seed, first in self._keys]
            return self._run(streams, iteration, steps)
        finally:
            torch.set_rng_state(outer)

    def _run(self, streams: list[torch.Tensor], iteration: int, steps: int) -> RolloutBatch:
        env, n = self.env, self.env.num_envs
        if self._states is None:
            reset = env.reset()
            self._states = self._source.states(reset[0] if isinstance(reset, tuple) else reset, "reset()")
        out: dict[str, list[Any]] = {k: [] for k in ("states", "actions", "log_prob", "values", "rewards",
                                                       "terminated", "truncated", "episode_returns")}
        states = self._states
        for t in range(steps):
            with torch.no_grad():
                actions, log_prob, values = self._act(states, streams)
            next_obs, rewards, terminated, truncated, info = env.step(actions.clamp(-ACTION_LIMIT, ACTION_LIMIT))
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

    def collect(self, weights: Weights, iteration: int, steps: int) -> RolloutBatch:
        """Run ``steps`` steps of every environment with ``weights``."""
        return self._runner.collect(weights, iteration, steps)

    @property
    def bytes_moved(self) -> int:
        """Nothing crosses a process boundary: 0."""
        return 0


def collect_iteration(agent: Any, collector: Collector, span: RolloutSpan,
                      record_returns: Callable[[list[float]], None]) -> None:
    """One iteration through a collector: weights out, a rollout back, skrl's memory filled, PPO's update run.

    Args:
        agent: skrl's PPO agent (the learner).
        collector: Who steps the environments.
        span: The iteration and its timesteps.
        record_returns: Called with the returns of the episodes that ended, step by step.
    """
    batch = collector.collect(policy_weights(agent), span.iteration, span.rollouts)
    for returns in batch.episode_returns:
        record_returns([float(r) for r in returns])
    feed_rollout(agent, batch, span)


def feed_rollout(agent: Any, batch: RolloutBatch, span: RolloutSpan) -> None:
    """Record ``batch`` into skrl's PPO as its ``record_transition`` does, calling ``post_interaction`` per step.

    Reward shaping and time-limit bootstrapping are applied here, with the runners' values; the last
    step's ``post_interaction`` runs the update.
    """
    device = agent.device

    def tensor(array: np.ndarray) -> torch.Tensor:
        return torch.tensor(array, device=device)  # a copy: arrays from Ray are read-only

    states = tensor(batch.states)
    steps = states.shape[0]
    for t in range(steps):
        timestep = span.first_timestep + t
        agent.pre_interaction(timestep=timestep, timesteps=span.timesteps)
        next_states = states[t + 1] if t + 1 < steps else tensor(batch.last_states)
        actions = tensor(batch.actions[t])
        rewards = tensor(batch.rewards[t]).clone().view(-1, 1)
        terminated = tensor(batch.terminated[t]).view(-1, 1)
        truncated = tensor(batch.truncated[t]).view(-1, 1)
        log_prob = tensor(batch.log_prob[t])
        values = tensor(batch.values[t])
        with torch.no_grad():
            Agent.record_transition(agent, states[t], actions, rewards, next_states, terminated, truncated, None,
                                    timestep, span.timesteps)
            if agent._rewards_shaper is not None:
                rewards = agent._rewards_shaper(rewards, timestep, span.timesteps)
            if agent._time_limit_bootstrap:
                rewards += agent._discount_factor * values * truncated
            sample = {"states": states[t], "actions": actions, "rewards": rewards, "next_states": next_states,
                      "terminated": terminated, "truncated": truncated, "log_prob": log_prob, "values": values}
            for memory in (agent.memory, *agent.secondary_memories):
                memory.add_samples(**sample)
        agent._current_next_states = next_states
        agent.post_interaction(timestep=timestep, timesteps=span.timesteps)


def _preprocessor(agent: Any, preprocessor: Any, copy_it: bool = True) -> Any:
    if preprocessor is None or preprocessor == agent._empty_preprocessor:
        return None
    return _cpu_copy(preprocessor) if copy_it else preprocessor


_TRANSIENT = ("_g_distribution", "_g_log_std")
"""skrl's GaussianMixin keeps the last ``act``'s distribution; after an update it holds graph tensors, which
do not copy. A copy starts without them (the next ``act`` sets them again)."""


def _cpu_copy(module: Any) -> Any:
    """A copy of ``module`` on the CPU (the runners act on the CPU, whatever the learner's device)."""
    stash = {k: v for k, v in vars(module).items() if k in _TRANSIENT}
    try:
        for k in stash:
            setattr(module, k, None)
        twin = copy.deepcopy(module).to("cpu")
    finally:
        for k, v in stash.items():
            setattr(module, k, v)
    if hasattr(twin, "device"):
        twin.device = torch.device("cpu")
    return twin


def _apply(preprocessor: Any, x: torch.Tensor, inverse: bool = False) -> torch.Tensor:
    return x if preprocessor is None else preprocessor(x, inverse=inverse)


def _stream_seed(seed: int, first: int, iteration: int) -> int:
    """A 63-bit seed for the stream of the shard starting at env ``first`` in ``iteration``."""
    return int(np.random.SeedSequence([seed & (2**63 - 1), first, iteration]).generate_state(1, np.uint64)[0] >> 1)


__all__ = ["Collector", "CollectorSource", "InProcessCollector", "PolicyPackage", "RolloutBatch", "ShardRunner",
           "collect_iteration", "feed_rollout", "open_collector", "policy_package", "policy_weights",
           "weights_nbytes"]
