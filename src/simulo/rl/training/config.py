"""Hyperparameters of the PPO trainer (pure Python: importable without torch)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from simulo._checks import is_int, is_real
from simulo.errors import SimuloValueError

_ACTIVATIONS = ("elu", "tanh", "relu")
_SCHEDULES = ("adaptive", "fixed")


@dataclass(frozen=True)
class PPOConfig:
    """Hyperparameters of :class:`~simulo.rl.training.trainer.RLTrainer` with ``algorithm="PPO"``.

    The defaults are tuned for small continuous-control tasks such as the cartpole sample (4
    observations, 1 action, 64-256 environments) on a laptop CPU.

    Attributes:
        rollout_steps: Environment steps collected per environment in each iteration.
        num_epochs: Passes over each rollout batch.
        num_minibatches: Minibatches the rollout batch is split into per epoch.
        gamma: Discount factor.
        gae_lambda: Lambda of generalised advantage estimation.
        clip_range: PPO ratio clip (epsilon); also clips the value loss when ``clip_value_loss``.
        clip_value_loss: Clip the value-function update around the rollout's values.
        entropy_coef: Weight of the policy entropy bonus.
        value_coef: Weight of the value loss in the joint loss.
        learning_rate: Initial Adam learning rate (actor and critic).
        lr_schedule: ``"adaptive"`` scales the learning rate after every minibatch so that the KL
            divergence between the old and the new policy stays near ``desired_kl``; ``"fixed"``
            keeps it constant.
        desired_kl: Target KL divergence of the adaptive schedule.
        max_grad_norm: Global gradient-norm clip.
        init_log_std: Initial log standard deviation of the Gaussian policy (state-independent).
        actor_hidden: Hidden layer sizes of the policy MLP.
        critic_hidden: Hidden layer sizes of the value MLP (a separate network).
        activation: Hidden activation, ``"elu"``, ``"tanh"`` or ``"relu"``.
        normalize_observations: Normalise observations by running mean and variance.
        observation_clip: Normalised observations are clipped to ``[-observation_clip, observation_clip]``.
        action_limit: Actions sent to the environment are clipped to ``[-action_limit, action_limit]``;
            ``None`` sends the raw Gaussian samples.
        reward_window: Number of most recently finished episodes whose mean return is the reported
            reward of an iteration.
    """

    rollout_steps: int = 24
    num_epochs: int = 5
    num_minibatches: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    clip_value_loss: bool = True
    entropy_coef: float = 0.0
    value_coef: float = 1.0
    learning_rate: float = 1e-3
    lr_schedule: str = "adaptive"
    desired_kl: float = 0.01
    max_grad_norm: float = 1.0
    init_log_std: float = 0.0
    actor_hidden: tuple[int, ...] = field(default=(32, 32))
    critic_hidden: tuple[int, ...] = field(default=(32, 32))
    activation: str = "elu"
    normalize_observations: bool = True
    observation_clip: float = 5.0
    action_limit: float | None = 1.0
    reward_window: int = 100

    def __post_init__(self) -> None:
        for name in ("rollout_steps", "num_epochs", "num_minibatches", "reward_window"):
            _check_int(name, getattr(self, name), minimum=1)
        for name in ("gamma", "gae_lambda"):
            value = _check_float(name, getattr(self, name))
            if not 0.0 <= value <= 1.0:
                raise SimuloValueError(f"PPOConfig.{name}={value!r}: expected a number in [0, 1]")
        for name in ("clip_range", "learning_rate", "desired_kl", "max_grad_norm", "observation_clip"):
            value = _check_float(name, getattr(self, name))
            if value <= 0.0:
                raise SimuloValueError(f"PPOConfig.{name}={value!r}: expected a number > 0")
        for name in ("entropy_coef", "value_coef"):
            value = _check_float(name, getattr(self, name))
            if value < 0.0:
                raise SimuloValueError(f"PPOConfig.{name}={value!r}: expected a number >= 0")
        _check_float("init_log_std", self.init_log_std)
        if self.action_limit is not None and _check_float("action_limit", self.action_limit) <= 0.0:
            raise SimuloValueError(f"PPOConfig.action_limit={self.action_limit!r}: expected a number > 0 or None")
        for name in ("clip_value_loss", "normalize_observations"):
            if not isinstance(getattr(self, name), bool):
                raise SimuloValueError(f"PPOConfig.{name}={getattr(self, name)!r}: expected True or False")
        for name in ("actor_hidden", "critic_hidden"):
            object.__setattr__(self, name, _check_sizes(name, getattr(self, name)))
        if self.activation not in _ACTIVATIONS:
            raise SimuloValueError(f"PPOConfig.activation={self.activation!r}: expected one of {_ACTIVATIONS}")
        if self.lr_schedule not in _SCHEDULES:
            raise SimuloValueError(f"PPOConfig.lr_schedule={self.lr_schedule!r}: expected one of {_SCHEDULES}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> PPOConfig:
        """Build a config from keyword values, refusing unknown names.

        Args:
            values: Field names and values; missing fields keep their defaults.

        Returns:
            The validated config.

        Raises:
            SimuloValueError: A name is not a field of :class:`PPOConfig`, or a value is invalid.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise SimuloValueError(
                f"unknown PPO hyperparameter(s) {unknown}: expected names among {sorted(known)}"
            )
        return cls(**dict(values))

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as a plain dict (tuples stay tuples), for checkpoints and logs."""
        return dataclasses.asdict(self)

    def batch_size(self, num_envs: int) -> int:
        """Return the number of samples in one rollout of ``num_envs`` environments."""
        return self.rollout_steps * num_envs


def _check_int(name: str, value: Any, minimum: int) -> int:
    if not is_int(value, low=minimum):
        raise SimuloValueError(f"PPOConfig.{name}={value!r}: expected an integer >= {minimum}")
    return value


def _check_float(name: str, value: Any) -> float:
    if not is_real(value):
        raise SimuloValueError(f"PPOConfig.{name}={value!r}: expected a finite number")
    return float(value)


def _check_sizes(name: str, value: Any) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)) or not value:
        raise SimuloValueError(f"PPOConfig.{name}={value!r}: expected a non-empty sequence of layer sizes")
    for size in value:
        if not is_int(size, low=1):
            raise SimuloValueError(f"PPOConfig.{name}={value!r}: layer sizes must be integers >= 1, got {size!r}")
    return tuple(value)
