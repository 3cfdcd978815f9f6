"""Policy, value and observation-normaliser networks of the PPO trainer (imports torch)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from simulo.errors import NonFiniteError, ShapeError
from simulo.rl.training.config import PPOConfig

_ACTIVATION_TYPES: dict[str, type[nn.Module]] = {"elu": nn.ELU, "tanh": nn.Tanh, "relu": nn.ReLU}


def build_mlp(in_dim: int, hidden: tuple[int, ...], out_dim: int, activation: str, out_gain: float) -> nn.Sequential:
    """Build an MLP with orthogonal weights (gain sqrt(2) inside, ``out_gain`` on the last layer) and zero biases.

    Args:
        in_dim: Input features.
        hidden: Hidden layer sizes.
        out_dim: Output features.
        activation: ``"elu"``, ``"tanh"`` or ``"relu"``.
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
        layers += [linear, _ACTIVATION_TYPES[activation]()]
    head = nn.Linear(sizes[-1], out_dim)
    nn.init.orthogonal_(head.weight, gain=out_gain)
    nn.init.zeros_(head.bias)
    layers.append(head)
    return nn.Sequential(*layers)


class ObservationNormalizer(nn.Module):
    """Running mean/variance normaliser (parallel Welford update, float64 statistics).

    When ``enabled`` is false, :meth:`forward` returns its input and :meth:`update` does nothing,
    so a disabled normaliser is still saved and restored like an enabled one.
    """

    # Registered buffers (declared for type checkers; ``nn.Module.__getattr__`` would type them loosely).
    mean: torch.Tensor
    var: torch.Tensor
    count: torch.Tensor

    def __init__(self, dim: int, clip: float, enabled: bool = True) -> None:
        super().__init__()
        self.enabled = enabled
        self.clip = clip
        self.register_buffer("mean", torch.zeros(dim, dtype=torch.float64))
        self.register_buffer("var", torch.ones(dim, dtype=torch.float64))
        self.register_buffer("count", torch.zeros((), dtype=torch.float64))

    @torch.no_grad()
    def update(self, obs: torch.Tensor) -> None:
        """Fold a batch ``(batch, dim)`` of raw observations into the statistics."""
        if not self.enabled:
            return
        batch = obs.to(torch.float64)
        n = float(batch.shape[0])
        batch_mean = batch.mean(dim=0)
        batch_var = batch.var(dim=0, unbiased=False)
        total = self.count + n
        delta = batch_mean - self.mean
        self.mean += delta * (n / total)
        self.var.copy_((self.var * self.count + batch_var * n + delta.square() * self.count * n / total) / total)
        self.count.copy_(total)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Return normalised, clipped observations (float32)."""
        if not self.enabled:
            return obs
        std = torch.sqrt(self.var + 1e-8).to(obs.dtype)
        return ((obs - self.mean.to(obs.dtype)) / std).clamp(-self.clip, self.clip)


class GaussianActor(nn.Module):
    """Gaussian policy: an MLP for the mean and a state-independent, learned log standard deviation."""

    def __init__(self, obs_dim: int, action_dim: int, config: PPOConfig) -> None:
        super().__init__()
        self.mean_net = build_mlp(obs_dim, config.actor_hidden, action_dim, config.activation, out_gain=0.01)
        self.log_std = nn.Parameter(torch.full((action_dim,), float(config.init_log_std)))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Return the action mean ``(batch, action_dim)`` and std broadcast to the same shape."""
        mean = self.mean_net(obs)
        return mean, self.log_std.exp().expand_as(mean)


class Critic(nn.Module):
    """State-value network (separate from the actor)."""

    def __init__(self, obs_dim: int, config: PPOConfig) -> None:
        super().__init__()
        self.value_net = build_mlp(obs_dim, config.critic_hidden, 1, config.activation, out_gain=1.0)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Return values of shape ``(batch,)``."""
        return self.value_net(obs).squeeze(-1)


class DeterministicPolicy(nn.Module):
    """The inference head of a trained policy: normalise, take the Gaussian mean, clip."""

    def __init__(self, normalizer: ObservationNormalizer, actor: GaussianActor, action_limit: float | None) -> None:
        super().__init__()
        self.normalizer = normalizer
        self.actor = actor
        self.action_limit = action_limit

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Return the deterministic action for raw observations ``(batch, obs_dim)``."""
        mean = self.actor.mean_net(self.normalizer(obs))
        if self.action_limit is not None:
            mean = mean.clamp(-self.action_limit, self.action_limit)
        return mean


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
