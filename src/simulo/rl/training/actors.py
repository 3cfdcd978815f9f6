"""The standalone trained policy, without skrl: the vector actor or the image actor, rebuilt and run (imports torch).

A checkpoint keeps its policy's actor as plain data (``spec()``). :func:`actor_from_spec` rebuilds it:
a :class:`~simulo.rl.training.networks.DeterministicActor` (one flat input) or, for a task whose
``policy_input_schema`` declares image inputs, an :class:`ImageActor`, which takes the schema's actor
inputs by name. :func:`run_actor` turns raw inputs into actions for either (what ``RLTrainer.act`` and
``PolicyPlayer`` call).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from simulo.errors import NonFiniteError, ShapeError, SimuloValueError
from simulo.rl.training.encoders import ARCHITECTURE, CnnNumericNet, EncoderConfig, ImageInput
from simulo.rl.training.networks import DeterministicActor, policy_input


@dataclass(frozen=True)
class ActorInput:
    """One declared actor input, as the image actor takes it.

    Attributes:
        name: The declared name.
        kind: ``"numeric"`` or ``"image"``.
        shape: Its shape without the batch (``(H, W, 3)`` for an image).
        preprocessing: An image's ``"none"`` or ``"center"``.
    """

    name: str
    kind: str
    shape: tuple[int, ...]
    preprocessing: str = "none"

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for a checkpoint."""
        return {"name": self.name, "kind": self.kind, "shape": list(self.shape), "preprocessing": self.preprocessing}


class ImageActor(nn.Module):
    """Raw actor inputs, in declared order, to actions: standardise the numeric ones, CNN-numeric network, clip.

    Args:
        inputs: The actor inputs in declared order (at least one image).
        action_dim: Width of the action.
        encoder: The CNN of each image input.
        hidden: Hidden layer sizes of the head.
        activation: A key of :data:`~simulo.rl.training.networks.ACTIVATIONS`.
        normalize: Standardise the numeric inputs by ``mean`` and ``scale`` and clip them to ``±clip`` first.
        clip: Clip of the standardised numeric inputs.
        action_limit: Actions are clipped to ``±action_limit``.

    Attributes:
        input_dim: Width of the numeric inputs, flattened and concatenated (the task's ``observation_dim``).
    """

    mean: torch.Tensor
    scale: torch.Tensor
    log_std: torch.Tensor

    def __init__(self, inputs: Sequence[ActorInput], action_dim: int, encoder: EncoderConfig,
                 hidden: tuple[int, ...], activation: str, normalize: bool = False, clip: float = 5.0,
                 action_limit: float = 1.0) -> None:
        super().__init__()
        self.inputs = tuple(inputs)
        self.names = tuple(spec.name for spec in self.inputs)
        self.action_dim, self.encoder = action_dim, encoder
        self.hidden, self.activation = tuple(hidden), activation
        self.normalize, self.clip, self.action_limit = normalize, float(clip), float(action_limit)
        images = [ImageInput(s.name, (s.shape[0], s.shape[1], s.shape[2]), s.preprocessing)
                  for s in self.inputs if s.kind == "image"]
        self.input_dim = sum(math.prod(s.shape) for s in self.inputs if s.kind != "image")
        self.core = CnnNumericNet(images, self.input_dim, encoder, self.hidden, action_dim, activation, 0.01)
        self.register_buffer("mean", torch.zeros(self.input_dim))
        self.register_buffer("scale", torch.ones(self.input_dim))
        self.register_buffer("log_std", torch.zeros(action_dim))

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        """Deterministic actions for the raw inputs (uint8 images ``(N, H, W, 3)``, float numeric ``(N, *shape)``)."""
        return self.gaussian_mean(*inputs).clamp(-self.action_limit, self.action_limit)

    def gaussian_mean(self, *inputs: torch.Tensor) -> torch.Tensor:
        """The policy's Gaussian mean (not clipped) for the raw inputs."""
        images: list[torch.Tensor] = []
        numeric: list[torch.Tensor] = []
        for spec, value in zip(self.inputs, inputs, strict=True):
            if spec.kind == "image":
                images.append(value)
            else:
                numeric.append(value.reshape(value.shape[0], -1).float())
        x = torch.cat(numeric, dim=1) if numeric else inputs[0].new_zeros((inputs[0].shape[0], 0), dtype=torch.float32)
        if self.normalize:
            x = ((x - self.mean) / self.scale).clamp(-self.clip, self.clip)
        return self.core(images, x)

    def sample(self, inputs: Sequence[torch.Tensor], generator: torch.Generator | None = None) -> torch.Tensor:
        """Sampled actions (the Gaussian of the trained standard deviation, clipped) for the raw inputs."""
        mean = self.gaussian_mean(*inputs)
        noise = torch.randn(mean.shape, generator=generator, device=mean.device)
        return (mean + self.log_std.exp() * noise).clamp(-self.action_limit, self.action_limit)

    def spec(self) -> dict[str, Any]:
        """The actor as plain data (sizes, configuration and tensors); :func:`actor_from_spec` reverses it."""
        return {"architecture": ARCHITECTURE, "inputs": [s.to_dict() for s in self.inputs],
                "input_dim": self.input_dim, "action_dim": self.action_dim, "encoder": self.encoder.to_dict(),
                "hidden": list(self.hidden), "activation": self.activation, "normalize": self.normalize,
                "clip": self.clip, "action_limit": self.action_limit,
                "state": {k: v.detach().clone() for k, v in self.state_dict().items()}}


def actor_from_spec(spec: Mapping[str, Any]) -> DeterministicActor | ImageActor:
    """Rebuild the actor a checkpoint keeps (a ``spec()``), in evaluation mode.

    Raises:
        SimuloValueError: The data is incomplete or inconsistent, or names an unknown architecture.
    """
    architecture = spec.get("architecture")
    if architecture is None:
        return DeterministicActor.from_spec(spec)
    if architecture != ARCHITECTURE:
        raise SimuloValueError(f"the policy's architecture {architecture!r} is unknown here (expected {ARCHITECTURE!r}"
                               " or a plain MLP)")
    try:
        inputs = [ActorInput(str(i["name"]), str(i["kind"]), tuple(int(d) for d in i["shape"]),
                             str(i["preprocessing"])) for i in spec["inputs"]]
        actor = ImageActor(inputs, int(spec["action_dim"]), EncoderConfig.from_dict(spec["encoder"]),
                           tuple(int(h) for h in spec["hidden"]), str(spec["activation"]), bool(spec["normalize"]),
                           float(spec["clip"]), float(spec["action_limit"]))
        actor.load_state_dict(spec["state"])
    except (KeyError, TypeError, ValueError, RuntimeError, IndexError) as exc:
        raise SimuloValueError(f"the policy's image actor data is incomplete or inconsistent: {exc!r}") from exc
    return actor.eval()


def run_actor(actor: DeterministicActor | ImageActor, obs: Any, device: torch.device, deterministic: bool = True,
              generator: torch.Generator | None = None) -> Any:
    """Actions of ``actor`` for raw inputs, without gradients, in the inputs' form.

    A vector actor takes ``(batch, input_dim)`` or ``(input_dim,)``; an image actor a mapping of its input
    names to batched (or single) values, as ``task.get_policy_inputs()`` returns them.

    Raises:
        ShapeError: The inputs have the wrong names, shapes or dtypes.
        NonFiniteError: A numeric input holds NaN or infinity.
    """
    if isinstance(actor, ImageActor):
        batch, restore = named_inputs(actor, obs, device)
    else:
        flat, restore = policy_input(obs, actor.input_dim, device)
        batch = (flat,)
    with torch.no_grad():
        if deterministic:
            actions = actor(*batch)
        else:
            actions = actor.sample(batch, generator) if isinstance(actor, ImageActor) else actor.sample(flat, generator)
    return restore(actions)


def named_inputs(actor: ImageActor, obs: Any,
                 device: torch.device) -> tuple[tuple[torch.Tensor, ...], Callable[[torch.Tensor], Any]]:
    """The image actor's inputs, checked and in declared order, and a function turning actions back.

    Raises:
        ShapeError: ``obs`` is not a mapping of exactly the actor's inputs, or a value has the wrong shape or dtype.
        NonFiniteError: A numeric input holds NaN or infinity.
    """
    if not isinstance(obs, Mapping):
        raise ShapeError(f"this policy takes its named inputs {list(actor.names)} (a dict, as task.get_policy_inputs()"
                         f" returns them), not a {type(obs).__name__}")
    unknown, missing = sorted(set(obs) - set(actor.names)), [n for n in actor.names if n not in obs]
    if unknown or missing:
        raise ShapeError(f"policy inputs {sorted(obs)}: expected exactly {list(actor.names)} "
                         f"(missing {missing}, unknown {unknown})")
    values, single, source = [], None, None
    for spec in actor.inputs:
        raw = obs[spec.name]
        if isinstance(raw, torch.Tensor) and source is None:
            source = raw.device
        value = _tensor(raw, spec)
        one = tuple(value.shape) == spec.shape
        if not one and (value.dim() != len(spec.shape) + 1 or tuple(value.shape[1:]) != spec.shape):
            raise ShapeError(f"policy input {spec.name!r} has shape {tuple(value.shape)}: expected "
                             f"(batch, {', '.join(map(str, spec.shape))}) or {spec.shape}")
        if single is not None and one != single:
            raise ShapeError(f"policy input {spec.name!r} is {'single' if one else 'batched'} while others are not")
        single = one
        values.append((value.unsqueeze(0) if one else value).to(device))
    sizes = {int(v.shape[0]) for v in values}
    if len(sizes) != 1:
        raise ShapeError(f"policy inputs {list(actor.names)} have different batch sizes {sorted(sizes)}")

    def restore(actions: torch.Tensor) -> Any:
        out = actions[0] if single else actions
        return out.to(source) if source is not None else out.cpu().numpy()

    return tuple(values), restore


def _tensor(raw: Any, spec: ActorInput) -> torch.Tensor:
    try:
        value = torch.as_tensor(raw)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ShapeError(f"policy input {spec.name!r} of type {type(raw).__name__} is not a tensor: {exc}") from exc
    if spec.kind == "image":
        if value.dtype != torch.uint8:
            raise ShapeError(f"policy input {spec.name!r} has dtype {value.dtype}: expected uint8 RGB images "
                             f"(N, {', '.join(map(str, spec.shape))})")
        return value
    value = value.float()
    if not bool(torch.isfinite(value).all()):
        raise NonFiniteError(f"policy input {spec.name!r} contains NaN or infinity")
    return value
