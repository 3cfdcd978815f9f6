"""skrl's PPO with a leaner update loop: the same arithmetic in the same order, less Python per mini-batch.

skrl 1.4.3's ``PPO._update`` spends about as long on bookkeeping as on the networks for the small MLPs a
cartpole trains: an autocast context and the gradient scaler per mini-batch (both disabled on the CPU), a
fresh ``itertools.chain`` of every parameter for the gradient clip, and Adam's per-parameter loop.
:class:`LeanPPO` runs the same update with the parameter list built once, torch's ``foreach`` kernels for
Adam and the clip (element-wise, so bit for bit what the per-tensor loops give on the CPU), and no
contexts that do nothing. Mixed precision and distributed runs keep skrl's own update.

When the policy and the value function are separate networks (skrl's default) and a mini-batch has at least
:data:`PARALLEL_ROWS` rows, it runs the value network's forward and backward pass on a second thread while this
one runs the policy's: torch releases the GIL inside its kernels, so the two passes share the machine's cores
(about 1.6 times as fast at 4,096 rows on two idle cores; below about 512 rows, or with the other core busy, the
hand-over costs more than it saves). The gradients are the same bits: the two
networks share no parameter, and the gradient of the summed loss reaching either one is that network's own
loss's (its factor in the sum is exactly 1). A mini-batch that the KL check stops leaves the value network's
gradients of its own pass where skrl leaves the last step's; no step reads them (the next one clears them first).

The results are skrl's to the bit for the same seed (``tests/rl/training/test_lean_ppo.py`` compares the
parameters, optimiser state and random stream after updates of both).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import torch
from skrl import config
from skrl.agents.torch.ppo import PPO
from skrl.resources.schedulers.torch import KLAdaptiveLR
from torch import nn
from torch.nn import functional as F

#: Fewest mini-batch rows whose value-network passes run on the second thread.
PARALLEL_ROWS = 4096

_value_thread: ThreadPoolExecutor | None = None


def _second_thread() -> ThreadPoolExecutor:
    """The process's one thread for value-network passes (made on first use)."""
    global _value_thread  # one idle thread per process, shared by every agent
    if _value_thread is None:
        _value_thread = ThreadPoolExecutor(1, thread_name_prefix="simulo-value-pass")
    return _value_thread


class LeanPPO(PPO):
    """skrl's :class:`~skrl.agents.torch.ppo.PPO`, its update run with less overhead (same results).

    Takes skrl's arguments. ``init`` also switches the optimiser to torch's ``foreach`` Adam (the same
    element-wise arithmetic as its per-parameter loop).
    """

    def init(self, trainer_cfg: Any = None) -> None:
        """skrl's ``init``, then the optimiser's ``foreach`` kernels and the fixed parameter list."""
        super().init(trainer_cfg=trainer_cfg)
        use_foreach(self)
        self._policy_params = list(self.policy.parameters())
        self._value_params = list(self.value.parameters()) if self.value is not self.policy else []
        self._clip_params = self._policy_params + self._value_params

    def _update(self, timestep: int, timesteps: int) -> None:
        if self._mixed_precision or config.torch.is_distributed:
            super()._update(timestep, timesteps)
            return
        store_returns_and_advantages(self)
        batches = self.memory.sample_all(names=self._tensors_names, mini_batches=self._mini_batches)
        policy_total, value_total, entropy_total = 0.0, 0.0, 0.0
        for epoch in range(self._learning_epochs):
            kl_divergences: list[torch.Tensor] = []
            for states, actions, log_prob, sampled_values, sampled_returns, sampled_advantages in batches:
                losses = self._minibatch(epoch, states, actions, log_prob, sampled_values, sampled_returns,
                                         sampled_advantages, kl_divergences)
                if losses is None:
                    break
                policy_total += losses[0]
                value_total += losses[1]
                entropy_total += losses[2]
            if self._learning_rate_scheduler:
                if isinstance(self.scheduler, KLAdaptiveLR):
                    self.scheduler.step(torch.tensor(kl_divergences, device=self.device).mean().item())
                else:
                    self.scheduler.step()
        self._track_losses(policy_total, value_total, entropy_total)

    def _minibatch(self, epoch: int, states: torch.Tensor, actions: torch.Tensor, log_prob: torch.Tensor,
                   sampled_values: torch.Tensor, sampled_returns: torch.Tensor, sampled_advantages: torch.Tensor,
                   kl_divergences: list[torch.Tensor]) -> tuple[float, float, float] | None:
        """One optimisation step on one mini-batch; its losses, or ``None`` when the KL stops the epoch."""
        states = self._state_preprocessor(states, train=not epoch)
        value_pass: Future[torch.Tensor] | None = None
        if self._value_params and len(states) >= PARALLEL_ROWS:
            value_pass = _second_thread().submit(self._value_pass, states, sampled_values, sampled_returns)
        try:
            _, next_log_prob, _ = self.policy.act({"states": states, "taken_actions": actions}, role="policy")
            with torch.no_grad():
                ratio = next_log_prob - log_prob
                kl_divergence = ((torch.exp(ratio) - 1) - ratio).mean()
                kl_divergences.append(kl_divergence)
            if self._kl_threshold and kl_divergence > self._kl_threshold:
                return None
            entropy_loss: torch.Tensor | int = 0
            if self._entropy_loss_scale:
                entropy_loss = -self._entropy_loss_scale * self.policy.get_entropy(role="policy").mean()
            ratio = torch.exp(next_log_prob - log_prob)
            surrogate = sampled_advantages * ratio
            surrogate_clipped = sampled_advantages * torch.clip(ratio, 1.0 - self._ratio_clip,
                                                                1.0 + self._ratio_clip)
            policy_loss = -torch.min(surrogate, surrogate_clipped).mean()
            if value_pass is None:  # skrl's single backward pass (one network for both, or a small mini-batch)
                value_loss = self._value_loss(states, sampled_values, sampled_returns)
                self.optimizer.zero_grad()
                (policy_loss + entropy_loss + value_loss).backward()
            else:
                for param in self._policy_params:
                    param.grad = None
                (policy_loss + entropy_loss).backward()
                value_loss = value_pass.result()
        finally:
            if value_pass is not None:  # (done before anything else touches the value network)
                value_pass.result()
        if self._grad_norm_clip > 0:
            nn.utils.clip_grad_norm_(self._clip_params, self._grad_norm_clip, foreach=True)
        self.optimizer.step()
        entropy = entropy_loss.item() if isinstance(entropy_loss, torch.Tensor) else 0.0
        return policy_loss.item(), value_loss.item(), entropy

    def _value_loss(self, states: torch.Tensor, sampled_values: torch.Tensor,
                    sampled_returns: torch.Tensor) -> torch.Tensor:
        """skrl's value loss of one mini-batch."""
        predicted_values, _, _ = self.value.act({"states": states}, role="value")
        if self._clip_predicted_values:
            predicted_values = sampled_values + torch.clip(predicted_values - sampled_values, min=-self._value_clip,
                                                           max=self._value_clip)
        return self._value_loss_scale * F.mse_loss(sampled_returns, predicted_values)

    def _value_pass(self, states: torch.Tensor, sampled_values: torch.Tensor,
                    sampled_returns: torch.Tensor) -> torch.Tensor:
        """The value network's loss, forward and backward pass, its gradients cleared first (on the second
        thread)."""
        value_loss = self._value_loss(states, sampled_values, sampled_returns)
        for param in self._value_params:
            param.grad = None
        value_loss.backward()
        return value_loss

    def _track_losses(self, policy_total: float, value_total: float, entropy_total: float) -> None:
        steps = self._learning_epochs * self._mini_batches
        self.track_data("Loss / Policy loss", policy_total / steps)
        self.track_data("Loss / Value loss", value_total / steps)
        if self._entropy_loss_scale:
            self.track_data("Loss / Entropy loss", entropy_total / steps)
        self.track_data("Policy / Standard deviation", self.policy.distribution(role="policy").stddev.mean().item())
        if self._learning_rate_scheduler:
            self.track_data("Learning / Learning rate", self.scheduler.get_last_lr()[0])


def use_foreach(agent: Any) -> None:
    """Run the agent's optimiser on torch's ``foreach`` kernels (again after a checkpoint's groups are loaded)."""
    for group in agent.optimizer.param_groups:
        group["foreach"] = True


def store_returns_and_advantages(agent: PPO) -> None:
    """What skrl's ``PPO._update`` does before its epochs: the value of the rollout's last states, GAE's returns
    and advantages, and the value preprocessor's update, written into the agent's memory (``values``,
    ``returns``, ``advantages``)."""
    with torch.no_grad():
        agent.value.train(False)
        last_values, _, _ = agent.value.act(
            {"states": agent._state_preprocessor(agent._current_next_states.float())}, role="value")
        agent.value.train(True)
        last_values = agent._value_preprocessor(last_values, inverse=True)
        memory = agent.memory
        values = memory.get_tensor_by_name("values")
        dones = memory.get_tensor_by_name("terminated") | memory.get_tensor_by_name("truncated")
        returns, advantages = gae(memory.get_tensor_by_name("rewards"), dones, values, last_values,
                                  agent._discount_factor, agent._lambda)
        memory.set_tensor_by_name("values", agent._value_preprocessor(values, train=True))
        memory.set_tensor_by_name("returns", agent._value_preprocessor(returns, train=True))
        memory.set_tensor_by_name("advantages", advantages)


def gae(rewards: torch.Tensor, dones: torch.Tensor, values: torch.Tensor, last_values: torch.Tensor,
        discount: float, lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Returns and normalised advantages (generalised advantage estimation), as skrl 1.4.3's PPO computes them.

    Args:
        rewards: ``(rollouts, num_envs, 1)`` rewards (time-limit bootstrapping already added).
        dones: Terminated or truncated, the same shape.
        values: The value estimates of the rollout's states, the same shape.
        last_values: The values of the states after the rollout's last step ``(num_envs, 1)``.
        discount: The discount factor.
        lam: GAE's lambda.

    Returns:
        ``(returns, advantages)``, the advantages standardised over the whole rollout.
    """
    advantage: torch.Tensor | int = 0
    advantages = torch.zeros_like(rewards)
    not_dones = dones.logical_not()
    size = rewards.shape[0]
    for i in reversed(range(size)):
        next_values = values[i + 1] if i < size - 1 else last_values
        advantage = rewards[i] - values[i] + discount * not_dones[i] * (next_values + lam * advantage)
        advantages[i] = advantage
    returns = advantages + values
    return returns, (advantages - advantages.mean()) / (advantages.std() + 1e-8)
