"""What the policy and the critic see: the environment's observations, or the task's declared inputs (imports torch).

A task without a ``policy_input_schema`` trains on ``env.step``'s observations, for the policy and the
critic alike. A task with one trains its policy on ``task.get_policy_inputs()`` and its critic on
``task.get_critic_inputs()`` (an asymmetric actor-critic when the schema declares critic inputs): the
numeric inputs of each role are flattened and concatenated in their declared order. Image inputs are
not supported yet.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from simulo.errors import NonFiniteError, ShapeError, SimuloValueError
from simulo.interfaces.authoring.policy_inputs import PolicyInput, PolicyInputSchema
from simulo.rl.training.agent import Layout


class StateSource:
    """Turns an environment step's output into the states skrl stores (policy inputs, then critic inputs).

    Args:
        env: The batched environment.
        device: The trainer's device.

    Raises:
        SimuloValueError: The task's ``policy_input_schema`` is not a ``PolicyInputSchema``.
        NotImplementedError: It declares image inputs, or the environments run in other processes.
    """

    def __init__(self, env: Any, device: torch.device) -> None:
        self.num_envs, self.device = int(env.num_envs), device
        task = getattr(env, "task", None)
        schema = getattr(task, "policy_input_schema", None)
        self._task = task
        self.schema: PolicyInputSchema | None = schema
        if schema is None:
            obs_dim = int(env.observation_dim)
            self.layout = Layout(obs_dim, (0, obs_dim), (0, obs_dim), int(env.action_dim))
            return
        if not isinstance(schema, PolicyInputSchema):
            raise SimuloValueError(f"{type(task).__name__}.policy_input_schema={schema!r}: expected a "
                                   "simulo.PolicyInputSchema or None")
        images = sorted({spec.name for spec in (*schema.actor, *schema.critic_inputs) if spec.kind != "numeric"})
        if images:
            raise NotImplementedError(f"{type(task).__name__}: image policy inputs {images} cannot be trained "
                                      "locally yet (numeric inputs only)")
        _require_local(env)
        policy = _width(schema.actor)
        if schema.critic is None:
            self.layout = Layout(policy, (0, policy), (0, policy), int(env.action_dim))
        else:
            critic = _width(schema.critic)
            self.layout = Layout(policy + critic, (0, policy), (policy, policy + critic), int(env.action_dim))

    def states(self, obs: Any, what: str) -> torch.Tensor:
        """The states for observations ``obs`` just returned by the environment (``what`` names them in errors)."""
        if self.schema is None:
            return as_batch(obs, f"{what}: observations", self.num_envs, (self.layout.state_dim,), torch.float32,
                            self.device)
        assert self._task is not None
        parts = [self._flat(self._task.get_policy_inputs(), self.schema.actor, "get_policy_inputs()", what)]
        if self.schema.critic is not None:
            parts.append(self._flat(self._task.get_critic_inputs(), self.schema.critic, "get_critic_inputs()", what))
        return torch.cat(parts, dim=1)

    def _flat(self, values: Any, specs: tuple[PolicyInput, ...], method: str, what: str) -> torch.Tensor:
        if not isinstance(values, Mapping):
            if len(specs) != 1:
                raise ShapeError(f"{type(self._task).__name__}.{method} at {what} returned one tensor: the schema "
                                 f"declares {[s.name for s in specs]}, so return a dict by name")
            values = {specs[0].name: values}
        unknown = sorted(set(values) - {s.name for s in specs})
        if unknown:
            raise ShapeError(f"{type(self._task).__name__}.{method} at {what} returned undeclared inputs {unknown}")
        columns = []
        for spec in specs:
            if spec.name not in values:
                raise ShapeError(f"{type(self._task).__name__}.{method} at {what} lacks the input {spec.name!r}")
            columns.append(as_batch(values[spec.name], f"{what}: input {spec.name!r}", self.num_envs, spec.shape,
                                    torch.float32, self.device).reshape(self.num_envs, -1))
        return torch.cat(columns, dim=1)


def as_batch(value: Any, what: str, num_envs: int, trailing: tuple[int, ...], dtype: torch.dtype,
             device: torch.device) -> torch.Tensor:
    """``value`` as a ``(num_envs, *trailing)`` tensor of ``dtype`` on ``device``, checked.

    Raises:
        ShapeError: It is not a tensor of that shape.
        NonFiniteError: A float value is NaN or infinite.
    """
    try:
        tensor = torch.as_tensor(value, device=device)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ShapeError(f"env {what}: {type(value).__name__} is not a tensor ({exc})") from exc
    expected = (num_envs, *trailing)
    if tuple(tensor.shape) != expected:
        raise ShapeError(f"env {what} have shape {tuple(tensor.shape)}: expected {expected}")
    tensor = tensor.to(dtype)
    if dtype.is_floating_point and not bool(torch.isfinite(tensor).all()):
        bad = (~torch.isfinite(tensor)).reshape(num_envs, -1).any(dim=1).nonzero().flatten().tolist()
        raise NonFiniteError(f"env {what} contain NaN or infinity in environments {bad}")
    return tensor


def _width(specs: tuple[PolicyInput, ...]) -> int:
    return sum(math.prod(spec.shape) for spec in specs)


def _require_local(env: Any) -> None:
    from simulo.rl.local_env import LocalEnv  # noqa: PLC0415 - the engine, only for schema tasks

    backend = getattr(env, "backend", env)
    if not isinstance(backend, LocalEnv):
        raise NotImplementedError("a task with a policy_input_schema trains with its environments in this process "
                                  f"only (this one runs on {type(backend).__name__}: drop --workers)")
