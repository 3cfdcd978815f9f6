"""What the policy and the critic see: the environment's observations, or the task's declared inputs (imports torch).

A task without a ``policy_input_schema`` trains on ``env.step``'s observations, for the policy and the
critic alike. A task with one trains its policy on ``task.get_policy_inputs()`` and its critic on
``task.get_critic_inputs()`` (an asymmetric actor-critic when the schema declares critic inputs): the
numeric inputs of each role are flattened and concatenated in their declared order.

Image inputs (RGB uint8 ``(num_envs, H, W, 3)``) ride in the same states as their packed bytes
(:func:`~simulo.rl.training.encoders.pack_image`); the layout then lists every input piece by piece, for
the networks of :mod:`simulo.rl.training.agent`. As the SDK requires, the policy has at least one numeric
input, and the task's ``observation_dim`` is the width of its numeric inputs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from simulo.errors import NonFiniteError, ShapeError
from simulo.interfaces.authoring.policy_inputs import PolicyInput, PolicyInputSchema
from simulo.rl.policy_inputs import task_schema
from simulo.rl.training.agent import Layout, Networks, Piece, encoder_for
from simulo.rl.training.encoders import ARCHITECTURE, ImageInput, architecture_config, pack_image, packed_width


class StateSource:
    """Turns an environment step's output into the states skrl stores (policy inputs, then critic inputs).

    Args:
        env: The batched environment.
        device: The trainer's device.

    Raises:
        SimuloValueError: The task's ``policy_input_schema`` is not a ``PolicyInputSchema``.
        TaskError: The policy has no numeric input, or ``observation_dim`` is not their width.
        NotImplementedError: The environments run in other processes.
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
        task_schema(task)
        _require_local(env)
        if any(spec.kind == "image" for spec in (*schema.actor, *schema.critic_inputs)):
            self.layout = _piece_layout(schema, int(env.action_dim))
            return
        policy = _width(schema.actor)
        if schema.critic is None:
            self.layout = Layout(policy, (0, policy), (0, policy), int(env.action_dim))
        else:
            critic = _width(schema.critic)
            self.layout = Layout(policy + critic, (0, policy), (policy, policy + critic), int(env.action_dim))

    def metadata(self, networks: Networks) -> dict[str, Any]:
        """What a checkpoint records of the named inputs, in the SDK's sidecar keys (empty without a schema).

        ``policy_input_fingerprint`` always; with images also ``policy_architecture`` (``simulo.cnn-numeric.v1``),
        ``policy_architecture_config`` (encoder, head, images) and ``image_preprocessing`` (per image input).
        """
        if self.schema is None:
            return {}
        out: dict[str, Any] = {"policy_input_fingerprint": self.schema.fingerprint}
        if self.layout.has_images:
            pieces = [p for p in (*self.layout.policy_inputs, *self.layout.critic_inputs) if p.kind == "image"]
            images = list({p.name: ImageInput(p.name, (p.shape[0], p.shape[1], p.shape[2]), p.preprocessing)
                           for p in pieces}.values())
            out["policy_architecture"] = ARCHITECTURE
            out["policy_architecture_config"] = architecture_config(images, encoder_for(self.layout),
                                                                    networks.hidden, networks.activation)
            out["image_preprocessing"] = {s.name: s.preprocessing for s in self.schema.actor if s.kind == "image"}
        return out

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
            if spec.kind == "image":
                columns.append(pack_image(_image(values[spec.name], f"{what}: input {spec.name!r}", self.num_envs,
                                                 spec.shape, self.device)))
                continue
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


def _image(value: Any, what: str, num_envs: int, shape: tuple[int, ...], device: torch.device) -> torch.Tensor:
    """An image input as a checked uint8 ``(num_envs, H, W, 3)`` tensor (never converted from another dtype)."""
    tensor = as_batch(value, what, num_envs, shape, torch.uint8, device) if _is_uint8(value) else None
    if tensor is None:
        raise ShapeError(f"env {what} have dtype {getattr(value, 'dtype', type(value).__name__)}: expected uint8 RGB "
                         f"images (num_envs, {', '.join(map(str, shape))}), as Camera.read_rgb() returns them")
    return tensor


def _is_uint8(value: Any) -> bool:
    return str(getattr(value, "dtype", "")).removeprefix("torch.") == "uint8"


def _width(specs: tuple[PolicyInput, ...]) -> int:
    return sum(math.prod(spec.shape) for spec in specs)


def _pieces(specs: tuple[PolicyInput, ...], start: int) -> tuple[Piece, ...]:
    pieces = []
    for spec in specs:
        width = packed_width(spec.shape) if spec.kind == "image" else math.prod(spec.shape)
        pieces.append(Piece(spec.name, spec.kind, tuple(spec.shape), start, start + width, spec.preprocessing))
        start += width
    return tuple(pieces)


def _piece_layout(schema: PolicyInputSchema, action_dim: int) -> Layout:
    """The layout of a schema with images: the policy's pieces, then the critic's (unless it shares the policy's)."""
    policy = _pieces(schema.actor, 0)
    end = policy[-1].stop
    if schema.critic is None:
        return Layout(end, (0, end), (0, end), action_dim, policy, policy)
    critic = _pieces(schema.critic, end)
    return Layout(critic[-1].stop, (0, end), (end, critic[-1].stop), action_dim, policy, critic)


def _require_local(env: Any) -> None:
    from simulo.rl.local_env import LocalEnv  # noqa: PLC0415 - the engine, only for schema tasks

    backend = getattr(env, "backend", env)
    if not isinstance(backend, LocalEnv) and not hasattr(backend, "rollout_collector"):  # env runners: inputs there
        raise NotImplementedError("a task with a policy_input_schema trains with its environments in this process "
                                  f"only (this one runs on {type(backend).__name__}: drop --workers)")
