"""Proximal Policy Optimisation (clipped surrogate, GAE, KL-adaptive learning rate) in torch.

This module holds the learner only: networks, optimiser, rollout storage and the update. The loop
that drives an environment, reports progress and writes checkpoints is
:class:`~simulo.rl.training.trainer.RLTrainer`.

Randomness: network initialisation runs under ``torch.random.fork_rng`` seeded with ``seed`` (the
global torch RNG is left as it was), and action sampling and minibatch shuffling draw from a
private ``torch.Generator`` seeded with ``seed``. Only deterministic CPU ops are used, so two
learners with the same seed, config and data produce the same parameters bit for bit (given the
same torch thread count).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from simulo.rl.training.config import PPOConfig
from simulo.rl.training.networks import Critic, DeterministicPolicy, GaussianActor, ObservationNormalizer

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_MIN_LR = 1e-5
_MAX_LR = 1e-2


def gaussian_log_prob(actions: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    """Return the log density of ``actions`` under a diagonal Gaussian, summed over the action axis."""
    z = (actions - mean) / std
    return (-0.5 * z.square() - std.log() - _LOG_SQRT_2PI).sum(dim=-1)


class PPO:
    """A PPO learner for one batch layout ``(rollout_steps, num_envs)``.

    Args:
        obs_dim: Observation features.
        action_dim: Action features.
        num_envs: Environments stepped together.
        config: Hyperparameters.
        device: Torch device for networks and storage.
        seed: Seed of initialisation, sampling and shuffling.
    """

    def __init__(
        self, obs_dim: int, action_dim: int, num_envs: int, config: PPOConfig, device: torch.device, seed: int
    ) -> None:
        self.config = config
        self.device = device
        self.num_envs = num_envs
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.actor = GaussianActor(obs_dim, action_dim, config).to(device)
            self.critic = Critic(obs_dim, config).to(device)
        normalizer = ObservationNormalizer(obs_dim, config.observation_clip, config.normalize_observations)
        self.normalizer = normalizer.to(device)
        self.learning_rate = config.learning_rate
        self.optimizer = torch.optim.Adam([*self.actor.parameters(), *self.critic.parameters()], lr=self.learning_rate)
        self.generator = torch.Generator(device=device)
        self.generator.manual_seed(seed)
        shape = (config.rollout_steps, num_envs)
        self._obs = torch.zeros((*shape, obs_dim), device=device)
        self._actions = torch.zeros((*shape, action_dim), device=device)
        self._means = torch.zeros((*shape, action_dim), device=device)
        self._stds = torch.zeros((*shape, action_dim), device=device)
        self._log_probs = torch.zeros(shape, device=device)
        self._values = torch.zeros(shape, device=device)
        self._rewards = torch.zeros(shape, device=device)
        self._dones = torch.zeros(shape, device=device)

    @torch.no_grad()
    def act(
        self, norm_obs: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample actions for normalised observations.

        Returns:
            ``(raw_actions, log_probs, values, means, stds)``; raw actions are unclipped samples.
        """
        mean, std = self.actor(norm_obs)
        noise = torch.randn(mean.shape, generator=self.generator, device=mean.device)
        raw = mean + std * noise
        return raw, gaussian_log_prob(raw, mean, std), self.critic(norm_obs), mean, std

    def env_actions(self, raw_actions: torch.Tensor) -> torch.Tensor:
        """Return the actions to send to the environment (clipped to ``action_limit``)."""
        limit = self.config.action_limit
        return raw_actions if limit is None else raw_actions.clamp(-limit, limit)

    @torch.no_grad()
    def value(self, norm_obs: torch.Tensor) -> torch.Tensor:
        """Return state values ``(batch,)`` of normalised observations."""
        return self.critic(norm_obs)

    def store(
        self,
        step: int,
        norm_obs: torch.Tensor,
        raw_actions: torch.Tensor,
        log_probs: torch.Tensor,
        values: torch.Tensor,
        rewards: torch.Tensor,
        dones: torch.Tensor,
        means: torch.Tensor,
        stds: torch.Tensor,
    ) -> None:
        """Write one transition of every environment at rollout index ``step``."""
        self._obs[step] = norm_obs
        self._actions[step] = raw_actions
        self._log_probs[step] = log_probs
        self._values[step] = values
        self._rewards[step] = rewards
        self._dones[step] = dones.to(self._dones.dtype)
        self._means[step] = means
        self._stds[step] = stds

    def policy(self) -> DeterministicPolicy:
        """Return the deterministic inference head sharing this learner's modules."""
        return DeterministicPolicy(self.normalizer, self.actor, self.config.action_limit)

    def _advantages(self, last_values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        cfg = self.config
        advantages = torch.zeros_like(self._rewards)
        running = torch.zeros_like(last_values)
        next_values = last_values
        for t in reversed(range(cfg.rollout_steps)):
            not_done = 1.0 - self._dones[t]
            delta = self._rewards[t] + cfg.gamma * next_values * not_done - self._values[t]
            running = delta + cfg.gamma * cfg.gae_lambda * not_done * running
            advantages[t] = running
            next_values = self._values[t]
        return advantages, advantages + self._values

    def update(self, last_values: torch.Tensor) -> dict[str, float]:
        """Run the PPO epochs on the stored rollout.

        Args:
            last_values: Values ``(num_envs,)`` of the observations after the last stored step.

        Returns:
            Mean policy loss, value loss, entropy, approximate KL, clip fraction and the learning rate.
        """
        cfg = self.config
        advantages, returns = self._advantages(last_values)
        n = cfg.rollout_steps * self.num_envs
        obs = self._obs.reshape(n, -1)
        actions = self._actions.reshape(n, -1)
        old_means = self._means.reshape(n, -1)
        old_stds = self._stds.reshape(n, -1)
        old_log_probs = self._log_probs.reshape(n)
        old_values = self._values.reshape(n)
        returns = returns.reshape(n)
        advantages = advantages.reshape(n)
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        size = n // cfg.num_minibatches
        params = [*self.actor.parameters(), *self.critic.parameters()]
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "kl": 0.0, "clip_fraction": 0.0}
        updates = 0
        for _ in range(cfg.num_epochs):
            order = torch.randperm(n, generator=self.generator, device=self.device)
            for k in range(cfg.num_minibatches):
                idx = order[k * size : (k + 1) * size]
                mean, std = self.actor(obs[idx])
                log_probs = gaussian_log_prob(actions[idx], mean, std)
                entropy = (std.log() + 0.5 + _LOG_SQRT_2PI).sum(dim=-1).mean()
                with torch.no_grad():
                    o_mean, o_std = old_means[idx], old_stds[idx]
                    kl = (torch.log(std / o_std)
                          + (o_std.square() + (o_mean - mean).square()) / (2.0 * std.square()) - 0.5)
                    kl = kl.sum(dim=-1).mean()
                if cfg.lr_schedule == "adaptive":
                    if kl > 2.0 * cfg.desired_kl:
                        self.learning_rate = max(_MIN_LR, self.learning_rate / 1.5)
                    elif kl < 0.5 * cfg.desired_kl:
                        self.learning_rate = min(_MAX_LR, self.learning_rate * 1.5)
                    for group in self.optimizer.param_groups:
                        group["lr"] = self.learning_rate
                ratio = torch.exp(log_probs - old_log_probs[idx])
                adv = advantages[idx]
                surrogate = torch.min(ratio * adv, ratio.clamp(1.0 - cfg.clip_range, 1.0 + cfg.clip_range) * adv)
                policy_loss = -surrogate.mean()
                values = self.critic(obs[idx])
                if cfg.clip_value_loss:
                    clipped = old_values[idx] + (values - old_values[idx]).clamp(-cfg.clip_range, cfg.clip_range)
                    value_loss = torch.max((values - returns[idx]).square(), (clipped - returns[idx]).square()).mean()
                else:
                    value_loss = (values - returns[idx]).square().mean()
                loss = policy_loss + cfg.value_coef * value_loss - cfg.entropy_coef * entropy
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
                self.optimizer.step()
                totals["policy_loss"] += float(policy_loss.detach())
                totals["value_loss"] += float(value_loss.detach())
                totals["entropy"] += float(entropy.detach())
                totals["kl"] += float(kl)
                totals["clip_fraction"] += float(((ratio.detach() - 1.0).abs() > cfg.clip_range).float().mean())
                updates += 1
        stats = {key: value / updates for key, value in totals.items()}
        stats["learning_rate"] = self.learning_rate
        return stats

    def state_dict(self) -> dict[str, Any]:
        """Return every piece of learner state (networks, normaliser, optimiser, lr, RNG)."""
        return {
            "actor": self.actor.state_dict(),
            "critic": self.critic.state_dict(),
            "normalizer": self.normalizer.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "learning_rate": self.learning_rate,
            "generator": self.generator.get_state(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned (raises on missing or mismatched entries)."""
        self.actor.load_state_dict(state["actor"])
        self.critic.load_state_dict(state["critic"])
        self.normalizer.load_state_dict(state["normalizer"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.learning_rate = float(state["learning_rate"])
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate
        self.generator.set_state(state["generator"].cpu())
