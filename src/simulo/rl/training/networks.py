"""The trained policy's inference head, without skrl (imports torch).

The trainer's skrl models (:mod:`simulo.rl.training.agent`) build their MLPs with :func:`build_mlp`, so
the policy's layers copy one to one into a :class:`DeterministicActor`: the state preprocessor's running
statistics folded in, the Gaussian mean, clipped to the action range. That actor is what checkpoints keep
for replay (:class:`~simulo.rl.training.player.PolicyPlayer`) and what export writes (ONNX, TorchScript).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import nn

from simulo.errors import NonFiniteError, ShapeError, SimuloValueError

ACTIVATIONS: dict[str, type[nn.Module]] = {"elu": nn.ELU, "tanh": nn.Tanh, "relu": nn.ReLU}


def build_mlp(in_dim: int, hidden: tuple[int, ...], out_dim: int, activation: str, out_gain: float) -> nn.Sequential:
    """Build an MLP with orthogonal weights (gain sqrt(2) inside, ``out_gain`` on the last layer) and zero biases.

    Args:
        in_dim: Input features.
        hidden: Hidden layer sizes.
        out_dim: Output features.
        activation: A key of :data:`ACTIVATIONS`.
        out_gain: Orthogonal gain of the output layer (small for a policy mean, 1 for a value).

    Returns:
        The network.
    """
    layers: list[nn.Module] = []
    sizes = (in_dim, *hidden)
    for a, b in itertools.pairwise(sizes):
        linear = nn.Linear(a, b)
        nn.init.orthogonal_(linear.weight, gain=math.sqrt(2.0))
        nn.init.zeros_(linear.bias)
        layers += [linear, ACTIVATIONS[activation]()]
    head = nn.Linear(sizes[-1], out_dim)
    nn.init.orthogonal_(head.weight, gain=out_gain)
    nn.init.zeros_(head.bias)
    layers.append(head)
    return nn.Sequential(*layers)


class DeterministicActor(nn.Module):
    """Raw policy inputs ``(batch, input_dim)`` to actions ``(batch, action_dim)``: standardise, MLP, clip.

    Args:
        input_dim: Width of the policy's input.
        action_dim: Width of its action.
        hidden: Hidden layer sizes.
        activation: A key of :data:`ACTIVATIONS`.
        normalize: Standardise the input by ``mean`` and ``scale`` and clip it to ``±clip`` first.
        clip: Clip of the standardised input.
        action_limit: Actions are clipped to ``±action_limit``.
    """

    mean: torch.Tensor
    scale: torch.Tensor
    log_std: torch.Tensor

    def __init__(self, input_dim: int, action_dim: int, hidden: tuple[int, ...], activation: str,
                 normalize: bool = False, clip: float = 5.0, action_limit: float = 1.0) -> None:
        super().__init__()
        self.input_dim, self.action_dim = input_dim, action_dim
        self.hidden, self.activation = tuple(hidden), activation
        self.normalize, self.clip, self.action_limit = normalize, float(clip), float(action_limit)
        self.net = build_mlp(input_dim, self.hidden, action_dim, activation, out_gain=0.01)
        self.register_buffer("mean", torch.zeros(input_dim))
        self.register_buffer("scale", torch.ones(input_dim))
        self.register_buffer("log_std", torch.zeros(action_dim))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Return the deterministic actions for raw inputs."""
        return self.gaussian_mean(obs).clamp(-self.action_limit, self.action_limit)

    def gaussian_mean(self, obs: torch.Tensor) -> torch.Tensor:
        """The policy's Gaussian mean (not clipped) for raw inputs."""
        x = obs
        if self.normalize:
            x = ((x - self.mean) / self.scale).clamp(-self.clip, self.clip)
        return self.net(x)

    def sample(self, obs: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """Return sampled actions (the Gaussian of the trained standard deviation, clipped) for raw inputs."""
        mean = self.gaussian_mean(obs)
        noise = torch.randn(mean.shape, generator=generator, device=mean.device)
        return (mean + self.log_std.exp() * noise).clamp(-self.action_limit, self.action_limit)

    def spec(self) -> dict[str, Any]:
        """Return the actor as plain data (sizes and tensors), for a checkpoint; :meth:`from_spec` reverses it."""
        return {"input_dim": self.input_dim, "action_dim": self.action_dim, "hidden": list(self.hidden),
                "activation": self.activation, "normalize": self.normalize, "clip": self.clip,
                "action_limit": self.action_limit,
                "state": {k: v.detach().clone() for k, v in self.state_dict().items()}}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any]) -> DeterministicActor:
        """Rebuild an actor from :meth:`spec`'s data.

        Raises:
            SimuloValueError: The data is incomplete or inconsistent.
        """
        try:
            actor = cls(int(spec["input_dim"]), int(spec["action_dim"]), tuple(int(h) for h in spec["hidden"]),
                        str(spec["activation"]), bool(spec["normalize"]), float(spec["clip"]),
                        float(spec["action_limit"]))
            actor.load_state_dict(spec["state"])
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise SimuloValueError(f"the policy's actor data is incomplete or inconsistent: {exc!r}") from exc
        return actor.eval()


def policy_input(obs: Any, obs_dim: int, device: torch.device) -> tuple[torch.Tensor, Callable[[torch.Tensor], Any]]:
    """Convert observations for a policy and return a function that converts actions back.

    Args:
        obs: ``(batch, obs_dim)`` or ``(obs_dim,)``; a torch tensor, numpy array or nested list.
        obs_dim: Expected observation size.
        device: Device of the policy.

    Returns:
        ``(batch, restore)``: a float32 ``(batch, obs_dim)`` tensor on ``device``, and a function
        mapping actions back to the input's form (same leading shape; a tensor on the input's
        device for tensor input, else a numpy array).

    Raises:
        ShapeError: The observations have the wrong shape.
        NonFiniteError: They contain NaN or infinity.
    """
    is_tensor = isinstance(obs, torch.Tensor)
    try:
        batch = torch.as_tensor(obs, dtype=torch.float32).to(device)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ShapeError(f"observations of type {type(obs).__name__} cannot be read as numbers: {exc}") from exc
    single = batch.dim() == 1
    if single:
        batch = batch.unsqueeze(0)
    if batch.dim() != 2 or batch.shape[1] != obs_dim:
        raise ShapeError(f"observations have shape {tuple(torch.as_tensor(obs).shape)}: "
                         f"expected (batch, {obs_dim}) or ({obs_dim},)")
    if not bool(torch.isfinite(batch).all()):
        raise NonFiniteError("observations contain NaN or infinity")
    source_device = obs.device if is_tensor else None

    def restore(actions: torch.Tensor) -> Any:
        out = actions[0] if single else actions
        return out.to(source_device) if is_tensor else out.cpu().numpy()

    return batch, restore
