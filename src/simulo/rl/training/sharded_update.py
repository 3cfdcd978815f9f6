"""PPO's update, data-parallel over the rollout shards: each shard's gradient where its rows are, summed in order.

With env runners the learner's update is the serial part of an iteration: the runners wait while one
process runs every mini-batch. This module spreads the update's forward and backward passes the way
skrl's distributed mode or RLlib's multi-learner setup do, keeping the bytes independent of the number
of runners. Each mini-batch's losses are cut by rollout shard: a shard's share is the sum over its own
rows divided by the mini-batch's size, so the shards' gradients add up to the mini-batch's. The runner
that holds a shard's rows (it collected them) computes that gradient with the learner's current weights
(:func:`shard_gradient`); the learner adds the shards' gradients up, clips their norm and steps the
optimiser (:func:`sharded_update`). The sum's order is a tree fixed by the shard layout alone
(:func:`tree_reduce`): a node's sum is its left half's plus its right half's, so whoever holds the whole of a
node can add it up and the bytes stay the same. Each runner sends the largest nodes inside its own shards
(with 2 runners over 8 shards, one sum each); the learner adds those. Per mini-batch that is one call per
runner with the weights out (pickled once for all of them) and a gradient or a few back.

What stays on the learner, as in skrl 1.4.3's ``PPO._update``: the last values, GAE, the returns and the
normalised advantages over the whole batch, the value preprocessor's and (in the first epoch, per
mini-batch) the state preprocessor's statistics, the KL early stop, the optimiser step with gradient
clipping and the KL-adaptive learning rate. The mini-batches are skrl's (``sample_all``: consecutive
ranges of the memory, the same in every epoch). The losses are the same functions as skrl's; only their
rounding differs (sums over shards instead of one mean), so a trained policy matches skrl's to float
precision and matches itself bit for bit for any number of runners.

It pays only when a shard's rows per mini-batch outweigh a forward and backward pass's fixed cost
(:data:`MIN_WORK`): :func:`use_sharded_update` decides from the shard layout, the networks' size and
``agent_cfg`` alone, never from the number of runners. ``SIMULO_SHARDED_UPDATE=on|off`` overrides it.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch
from skrl.resources.schedulers.torch import KLAdaptiveLR

from simulo.errors import SimuloValueError
from simulo.rl.training.policy_copy import PolicyPackage, Weights, apply_preprocessor
from simulo.rl.training.ppo import store_returns_and_advantages

MIN_WORK = 15_000_000
"""Rows of the smallest shard in one mini-batch times the parameters of the policy and value models, from
which the update is sharded. A shard's forward and backward pass has a fixed cost (about 2.7 ms on the
development machine under load, 8 shards: 8 of them per mini-batch) and a cost per row that grows with
the parameters. Session 5 measured (CPU seconds, one thread, 2 runners) the break-even at 9-10 M against a
learner on one thread. Since session 10 the learner's own update runs the value network on a second thread;
session 11 measured (2 runners on this 2-core machine, the learner's wall time an iteration) the cartpole at
2,048 environments (9.3 M) 0.53 s sharded against 0.35 s not, the humanoid sample at 1,024 (10 M) 0.34 s
against 0.22 s, and the cartpole sample's 4,096 (18.6 M) 2.0 s an iteration sharded against 2.04 to 2.16 s not
(three runs to ``best_reward`` 270): the break-even lies between 10 M and 18.6 M."""
ENV_SHARDED_UPDATE = "SIMULO_SHARDED_UPDATE"
"""``on`` or ``off`` forces the choice (``auto``, the default, applies :data:`MIN_WORK`)."""


@dataclass(frozen=True)
class LossSettings:
    """The PPO loss's constants (skrl's ``agent_cfg``), sent to the runners once per iteration.

    Attributes:
        ratio_clip: ``ratio_clip``.
        value_clip: ``value_clip``.
        clip_predicted_values: ``clip_predicted_values``.
        value_loss_scale: ``value_loss_scale``.
        entropy_loss_scale: ``entropy_loss_scale`` (0: no entropy term).
    """

    ratio_clip: float
    value_clip: float
    clip_predicted_values: bool
    value_loss_scale: float
    entropy_loss_scale: float

    @staticmethod
    def of(agent: Any) -> LossSettings:
        """The settings of skrl's PPO ``agent``."""
        return LossSettings(float(agent._ratio_clip), float(agent._value_clip), bool(agent._clip_predicted_values),
                            float(agent._value_loss_scale), float(agent._entropy_loss_scale or 0.0))


@dataclass(frozen=True)
class ShardGradient:
    """A run of consecutive rollout shards' share of a mini-batch step (usually one shard's).

    Attributes:
        grad: The gradient of the shards' share of the loss, flat float32 numpy (Ray moves numpy arrays
            without copying them through pickle): every parameter of the policy and then of the value
            model, in ``parameters()`` order. For several shards, a node of the shards' tree: their
            gradients added up in the tree's order (:func:`tree_reduce`).
        sums: 4 values: the approximate KL divergence summed over the shards' rows, and the shards' shares
            of the policy, value and entropy losses (added up in the same order).
        cpu_s: CPU seconds the runners spent on it.
        shards: How many consecutive rollout shards it covers.
    """

    grad: np.ndarray
    sums: np.ndarray
    cpu_s: float = 0.0
    shards: int = 1


class GradientSource(Protocol):
    """Whoever holds the rollout shards' rows: computes their gradients for the learner."""

    def set_targets(self, targets: dict[str, np.ndarray], settings: LossSettings) -> None:
        """Hand out the iteration's ``values``, ``returns`` and ``advantages`` (``(T, num_envs, 1)`` each)."""
        ...

    def gradients(self, weights: Weights, start: int, stop: int) -> list[ShardGradient]:
        """The shards' gradients for the memory rows ``start .. stop - 1`` with ``weights``
        (:func:`update_weights`), in shard order, as nodes of the shards' tree (:func:`tree_reduce`), each
        one shard or the sum of several."""
        ...


def update_weights(agent: Any) -> Weights:
    """What a runner needs for a mini-batch's gradient: the parameters (flat, policy then value) and the
    state preprocessor's statistics, as numpy arrays (torch tensors would not cross a plain socket)."""
    return _weights([*agent.policy.parameters(), *agent.value.parameters()], _statistics(agent))


def _weights(params: Sequence[torch.Tensor], statistics: dict[str, np.ndarray] | None) -> Weights:
    """:func:`update_weights` from the parameters and the statistics (:func:`_statistics`)."""
    flat = torch.nn.utils.parameters_to_vector(params)  # a new tensor: its numpy view needs no copy
    return {"params": flat.detach().cpu().numpy(), "state_preprocessor": statistics}


def _statistics(agent: Any) -> dict[str, np.ndarray] | None:
    """The state preprocessor's statistics as numpy copies (``None`` without one)."""
    preprocessor = agent._state_preprocessor
    if preprocessor is None or preprocessor == agent._empty_preprocessor:
        return None
    return {k: v.detach().cpu().numpy().copy() for k, v in preprocessor.state_dict().items()}


def load_update_weights(package: PolicyPackage, weights: Weights) -> None:
    """Load :func:`update_weights` into a runner's copies."""
    params = [*package.policy.parameters(), *package.value.parameters()]
    torch.nn.utils.vector_to_parameters(torch.tensor(weights["params"]), params)
    if package.state_preprocessor is not None:
        package.state_preprocessor.load_state_dict({k: torch.tensor(v)
                                                    for k, v in weights["state_preprocessor"].items()})


def use_sharded_update(agent: Any, shard_sizes: Sequence[int]) -> bool:
    """Whether :func:`sharded_update` replaces skrl's update for env runners with these rollout shards."""
    choice = os.environ.get(ENV_SHARDED_UPDATE, "auto").strip().lower()
    if choice not in ("auto", "on", "off"):
        raise SimuloValueError(f"{ENV_SHARDED_UPDATE}={choice!r}: expected on, off or auto")
    supported = agent.policy is not agent.value and not agent._mixed_precision
    if choice != "auto" or not supported:
        return supported and choice == "on"
    parameters = sum(p.numel() for model in (agent.policy, agent.value) for p in model.parameters())
    return min(shard_sizes) * agent._rollouts // agent._mini_batches * parameters >= MIN_WORK


def shard_rows(block: dict[str, torch.Tensor], first_env: int, num_envs: int, start: int,
               stop: int) -> dict[str, torch.Tensor]:
    """The rows of one shard (``block``: ``(T, count, ...)`` tensors of global environments ``first_env ..``)
    that fall in memory rows ``start .. stop - 1`` (skrl's flat index ``t * num_envs + env``), in that order."""
    steps, count = next(iter(block.values())).shape[:2]
    pieces: list[tuple[int, int, int]] = []  # (t, first local env, stop local env)
    for t in range(max(0, start // num_envs), min(steps, -(-stop // num_envs))):
        lo = max(0, start - t * num_envs - first_env)
        hi = min(count, stop - t * num_envs - first_env)
        if lo < hi:
            pieces.append((t, lo, hi))
    if not pieces:
        return {name: tensor[:0].reshape(0, *tensor.shape[2:]) for name, tensor in block.items()}
    if all((lo, hi) == (0, count) for _, lo, hi in pieces):  # whole, consecutive time steps: one slice
        t0, t1 = pieces[0][0], pieces[-1][0] + 1
        return {name: tensor[t0:t1].reshape(-1, *tensor.shape[2:]) for name, tensor in block.items()}
    return {name: torch.cat([tensor[t, lo:hi] for t, lo, hi in pieces]) for name, tensor in block.items()}


def shard_gradient(package: PolicyPackage, settings: LossSettings, rows: dict[str, torch.Tensor],
                   batch_rows: int) -> ShardGradient:
    """The gradient of one shard's share of a mini-batch's PPO loss (skrl's losses, summed over ``rows``
    and divided by the mini-batch's ``batch_rows``), with ``package``'s current weights."""
    cpu = time.process_time()
    policy, value = package.policy, package.value
    with torch.enable_grad():
        x = apply_preprocessor(package.state_preprocessor, rows["states"])
        if settings.entropy_loss_scale:  # skrl's act keeps the distribution the entropy needs
            _, log_prob, _ = policy.act({"states": x, "taken_actions": rows["actions"]}, role="policy")
        else:
            log_prob = _log_prob(policy, x, rows["actions"])
        log_ratio = log_prob - rows["log_prob"]
        kl_sum = ((torch.exp(log_ratio) - 1) - log_ratio).detach().sum()
        ratio = torch.exp(log_ratio)
        advantages = rows["advantages"]
        clipped = torch.clip(ratio, 1.0 - settings.ratio_clip, 1.0 + settings.ratio_clip)
        policy_loss = -torch.min(advantages * ratio, advantages * clipped).sum() / batch_rows
        entropy_loss = torch.zeros(())
        if settings.entropy_loss_scale:
            entropy = policy.get_entropy(role="policy")
            entropy_loss = -settings.entropy_loss_scale * entropy.sum() / (batch_rows * entropy.shape[-1])
        predicted = value.compute({"states": x}, role="value")[0]  # skrl's DeterministicMixin.act, unclipped
        if value._d_clip_actions:
            predicted = torch.clamp(predicted, min=value._d_clip_actions_min, max=value._d_clip_actions_max)
        if settings.clip_predicted_values:
            predicted = rows["values"] + torch.clip(predicted - rows["values"], -settings.value_clip,
                                                    settings.value_clip)
        value_loss = settings.value_loss_scale * (rows["returns"] - predicted).square().sum() / batch_rows
        params = [*policy.parameters(), *value.parameters()]
        grads = torch.autograd.grad(policy_loss + entropy_loss + value_loss, params, allow_unused=True)
    flat = torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1) for p, g in zip(params, grads,
                                                                                           strict=True)])
    sums = torch.stack([kl_sum, policy_loss.detach(), value_loss.detach(), entropy_loss.detach()])
    return ShardGradient(flat.numpy(), sums.numpy(), time.process_time() - cpu)


def _log_prob(policy: Any, x: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """The log-probability of ``actions`` as skrl's ``GaussianMixin.act`` computes it (the same operations, so
    the same bytes), without the sample and the distribution object it also makes."""
    mean, log_std, _ = policy.compute({"states": x, "taken_actions": actions}, role="policy")
    if policy._g_clip_log_std:
        log_std = torch.clamp(log_std, policy._g_log_std_min, policy._g_log_std_max)
    mean, scale = torch.broadcast_tensors(mean, log_std.exp())  # as torch's Normal holds them
    log_prob = -((actions - mean) ** 2) / (2 * scale**2) - scale.log() - math.log(math.sqrt(2 * math.pi))
    if policy._g_reduction is not None:
        log_prob = policy._g_reduction(log_prob, dim=-1)
    return log_prob if log_prob.dim() == actions.dim() else log_prob.unsqueeze(-1)


def sharded_update(agent: Any, source: GradientSource) -> None:
    """skrl's ``PPO._update`` with every mini-batch's gradient summed over the rollout shards in ``source``."""
    memory = agent.memory
    store_returns_and_advantages(agent)
    source.set_targets({name: memory.get_tensor_by_name(name).cpu().numpy()
                        for name in ("values", "returns", "advantages")}, LossSettings.of(agent))
    states = memory.get_tensor_by_name("states", keepdim=False)
    size = memory.memory_size * memory.num_envs // agent._mini_batches
    params = [*agent.policy.parameters(), *agent.value.parameters()]
    grad = torch.zeros(sum(p.numel() for p in params), dtype=params[0].dtype, device=params[0].device)
    for param, chunk in zip(params, torch.split(grad, [p.numel() for p in params]), strict=True):
        param.grad = chunk.view_as(param)  # each step's gradient is copied in, replacing the last one's
    statistics: dict[str, np.ndarray] | None = None  # set in the first epoch's first mini-batch
    totals = [0.0, 0.0, 0.0]  # policy, value, entropy losses
    for epoch in range(agent._learning_epochs):
        kls = []
        for k in range(agent._mini_batches):
            start, stop = size * k, size * (k + 1)
            if epoch == 0:  # the statistics change in the first epoch only
                with torch.no_grad():
                    agent._state_preprocessor(states[start:stop], train=True)  # its statistics, as skrl's
                statistics = _statistics(agent)
            total = tree_sum(source.gradients(_weights(params, statistics), start, stop))
            sums = torch.from_numpy(total.sums)
            kl = sums[0] / size
            kls.append(kl)
            if agent._kl_threshold and kl > agent._kl_threshold:
                break
            grad.copy_(torch.from_numpy(total.grad))
            if agent._grad_norm_clip > 0:
                torch.nn.utils.clip_grad_norm_(params, agent._grad_norm_clip, foreach=True)
            agent.optimizer.step()
            for j, value in enumerate(sums[1:].tolist()):
                totals[j] += value
        if agent._learning_rate_scheduler:
            if isinstance(agent.scheduler, KLAdaptiveLR):
                agent.scheduler.step(torch.tensor(kls).mean().item())
            else:
                agent.scheduler.step()
    steps = agent._learning_epochs * agent._mini_batches
    agent.track_data("Loss / Policy loss", totals[0] / steps)
    agent.track_data("Loss / Value loss", totals[1] / steps)
    if agent._entropy_loss_scale:
        agent.track_data("Loss / Entropy loss", totals[2] / steps)
    agent.track_data("Policy / Standard deviation", _stddev(agent, states[:1]))
    if agent._learning_rate_scheduler:
        agent.track_data("Learning / Learning rate", agent.scheduler.get_last_lr()[0])


def _stddev(agent: Any, states: torch.Tensor) -> float:
    """The policy's mean standard deviation at ``states`` (skrl tracks the last mini-batch's; the learner's own
    policy has not acted here, so it acts once, outside the training streams)."""
    outer = torch.get_rng_state()
    try:
        with torch.no_grad():
            agent.policy.act({"states": agent._state_preprocessor(states)}, role="policy")
        return float(agent.policy.distribution(role="policy").stddev.mean().item())
    finally:
        torch.set_rng_state(outer)


def tree_reduce(parts: Sequence[ShardGradient], first: int, total: int) -> list[ShardGradient]:
    """The largest nodes of the shards' tree that ``parts`` cover, each added up in the tree's order.

    The tree is fixed by the number of shards alone: the root covers shards ``0 .. total - 1``, a node of
    more than one shard splits at its middle (``(lo + hi) // 2``) and its sum is its left half's plus its
    right half's. Every node's bytes are therefore the same whoever adds it up: a runner reduces its own
    shards to the largest nodes inside them, and the learner reduces what all the runners sent to the root.

    Args:
        parts: Consecutive runs of shards in shard order, starting at shard ``first``; each one shard or a
            node of the tree (as :func:`tree_reduce` returns them).
        first: The index of the first part's first shard.
        total: The shards in the whole layout.

    Returns:
        The largest nodes inside the shards ``parts`` cover, in shard order (the root alone when they
        cover every shard).

    Raises:
        SimuloValueError: The parts do not fit in the layout, or one covers several shards without being a
            node of the tree.
    """
    given: dict[tuple[int, int], ShardGradient] = {}
    stop = first
    for part in parts:
        given[(stop, stop + part.shards)] = part
        stop += part.shards
    if not parts or first < 0 or stop > total:
        raise SimuloValueError(f"gradients of shards {first}..{stop - 1}: expected some of the {total} shards "
                               f"0..{total - 1}")

    def node(lo: int, hi: int) -> ShardGradient:
        part = given.get((lo, hi))
        if part is not None:
            return part
        if hi - lo == 1:  # not given alone: it is inside a part that is no node (parts never overlap)
            raise SimuloValueError(f"gradients of shards {first}..{stop - 1}: shard {lo} is inside a part of "
                                   f"{[p.shards for p in parts]} shards that is not a node of the {total} "
                                   f"shards' tree")
        mid = (lo + hi) // 2
        left, right = node(lo, mid), node(mid, hi)
        return ShardGradient(left.grad + right.grad, left.sums + right.sums, left.cpu_s + right.cpu_s, hi - lo)

    def cover(lo: int, hi: int) -> list[ShardGradient]:
        if hi <= first or stop <= lo:
            return []
        if first <= lo and hi <= stop:
            return [node(lo, hi)]
        mid = (lo + hi) // 2
        return cover(lo, mid) + cover(mid, hi)

    return cover(0, total)


def tree_sum(parts: Sequence[ShardGradient]) -> ShardGradient:
    """Every shard's gradient added up in the tree's order (:func:`tree_reduce`): ``parts`` cover the whole
    layout, in shard order."""
    return tree_reduce(parts, 0, sum(p.shards for p in parts))[0]


__all__ = [
    "ENV_SHARDED_UPDATE",
    "MIN_WORK",
    "GradientSource",
    "LossSettings",
    "ShardGradient",
    "load_update_weights",
    "shard_gradient",
    "shard_rows",
    "sharded_update",
    "tree_reduce",
    "tree_sum",
    "update_weights",
    "use_sharded_update",
]
