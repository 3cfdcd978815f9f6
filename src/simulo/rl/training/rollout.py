"""One iteration's rollout: step the environment, hand skrl each transition, collect finished episodes (imports torch).

skrl's agent is driven the way its sequential trainer drives it (``pre_interaction``, ``act`` without
gradients, ``record_transition``, ``post_interaction``); ``post_interaction`` of the rollout's last step
runs the PPO update and writes the TensorBoard events.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from simulo.errors import ShapeError
from simulo.rl.training.agent import ACTION_LIMIT
from simulo.rl.training.inputs import StateSource, as_batch


@dataclass(frozen=True)
class RolloutSpan:
    """Which iteration a rollout is and where its timesteps lie.

    Attributes:
        iteration: The iteration being collected (1-based, for messages).
        first_timestep: skrl's timestep of the rollout's first step.
        rollouts: Steps per environment.
        timesteps: skrl's total timesteps of the ``train`` call (``rewards_shaper`` and schedules see it).
    """

    iteration: int
    first_timestep: int
    rollouts: int
    timesteps: int


def run_rollout(agent: Any, env: Any, source: StateSource, states: torch.Tensor, span: RolloutSpan,
                record: Callable[[torch.Tensor, torch.Tensor, Any], None]) -> tuple[torch.Tensor, float]:
    """Collect ``span.rollouts`` steps of every environment into skrl's agent.

    Args:
        agent: skrl's PPO agent.
        env: The batched environment.
        source: Turns observations into skrl's states.
        states: The states the rollout starts from.
        span: The iteration and timesteps.
        record: Called with each step's rewards, done mask and info (episode bookkeeping).

    Returns:
        The states after the last step, and the wall seconds spent stepping the environment (``env.step``, and
        reading the task's policy inputs when it declares them).

    Raises:
        ShapeError, NonFiniteError: The environment returned malformed data.
    """
    n, device = source.num_envs, source.device
    env_device = _torch_device(getattr(env, "device", None))
    stepping = 0.0
    for t in range(span.rollouts):
        timestep = span.first_timestep + t
        agent.pre_interaction(timestep=timestep, timesteps=span.timesteps)
        with torch.no_grad():
            actions = agent.act(states, timestep=timestep, timesteps=span.timesteps)[0]
        clipped = actions.clamp(-ACTION_LIMIT, ACTION_LIMIT)
        tick = time.perf_counter()
        result = env.step(clipped if env_device is None else clipped.to(env_device))
        if not isinstance(result, tuple) or len(result) != 5:
            raise ShapeError(f"env.step() returned {type(result).__name__}: expected (obs, rewards, terminated, "
                             "truncated, info)")
        next_obs, rewards, terminated, truncated, info = result
        step = f"step() at iteration {span.iteration}, rollout step {t}"
        next_states = source.states(next_obs, step)  # a task with a policy_input_schema: its input hooks
        stepping += time.perf_counter() - tick
        rewards = as_batch(rewards, f"{step}: rewards", n, (), torch.float32, device)
        terminated = as_batch(terminated, f"{step}: terminated", n, (), torch.bool, device)
        truncated = as_batch(truncated, f"{step}: truncated", n, (), torch.bool, device)
        record(rewards, terminated | truncated, info)
        with torch.no_grad():  # skrl may shape the rewards in place: it gets a copy
            agent.record_transition(states=states, actions=actions, rewards=rewards.clone().view(-1, 1),
                                    next_states=next_states, terminated=terminated.view(-1, 1),
                                    truncated=truncated.view(-1, 1), infos=info, timestep=timestep,
                                    timesteps=span.timesteps)
        agent.post_interaction(timestep=timestep, timesteps=span.timesteps)
        states = next_states
    return states, stepping


def finished_returns(rewards: torch.Tensor, dones: torch.Tensor, info: Any, running: torch.Tensor) -> list[float]:
    """The returns of the episodes that ended this step: ``info["episode"]["return"]`` when the environment
    reports them, else from ``running`` (per-environment sums, updated and zeroed here where done)."""
    running += rewards
    episode = info.get("episode") if isinstance(info, Mapping) else None
    if isinstance(episode, Mapping) and "return" in episode:
        returns = [float(r) for r in _flat(episode["return"])]
    else:
        returns = [float(r) for r in running[dones].tolist()]
    running[dones] = 0.0
    return returns


def _torch_device(name: Any) -> torch.device | None:
    """The env's device if torch can place tensors there, else ``None`` (hand over the trainer's)."""
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        return None
    if device.type == "cuda" and not torch.cuda.is_available():
        return None
    return device


def _flat(value: Any) -> list[Any]:
    if hasattr(value, "reshape") and hasattr(value, "tolist"):
        return list(value.reshape(-1).tolist())
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]
