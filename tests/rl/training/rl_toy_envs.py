"""Small pure-torch batched environments with the VectorEnvLike surface, for trainer tests."""

from __future__ import annotations

import math
from typing import Any

import torch


class _AutoResetEnv:
    """Shared bookkeeping: episode returns/lengths, time limit, auto-reset, ``info["episode"]``."""

    observation_dim = 0
    action_dim = 0

    def __init__(self, num_envs: int, max_steps: int, seed: int) -> None:
        self.num_envs = num_envs
        self.device = "cpu"
        self.max_steps = max_steps
        self.generator = torch.Generator().manual_seed(seed)
        self.returns = torch.zeros(num_envs)
        self.lengths = torch.zeros(num_envs, dtype=torch.long)
        self.steps_taken = 0

    def reset(self) -> torch.Tensor:
        self._reset_idx(torch.arange(self.num_envs))
        self.returns.zero_()
        self.lengths.zero_()
        return self._obs()

    def step(
        self, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, dict[str, Any]]:
        assert actions.shape == (self.num_envs, self.action_dim), actions.shape
        self.steps_taken += 1
        rewards, terminated = self._advance(actions.clamp(-1.0, 1.0))
        self.returns += rewards
        self.lengths += 1
        truncated = (self.lengths >= self.max_steps) & ~terminated
        done = terminated | truncated
        info: dict[str, Any] = {}
        if bool(done.any()):
            ids = done.nonzero().flatten()
            info["episode"] = {"return": self.returns[ids].clone(), "length": self.lengths[ids].clone()}
            self._reset_idx(ids)
            self.returns[ids] = 0.0
            self.lengths[ids] = 0
        return self._obs(), rewards, terminated, truncated, info

    def _uniform(self, n: int, low: float, high: float) -> torch.Tensor:
        return low + (high - low) * torch.rand(n, generator=self.generator)

    def _obs(self) -> torch.Tensor:
        raise NotImplementedError

    def _reset_idx(self, ids: torch.Tensor) -> None:
        raise NotImplementedError

    def _advance(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError


class PointMassEnv(_AutoResetEnv):
    """A 1-D point mass pushed by a force; reward -(x^2 + 0.1 a^2); leaving |x| > 3 terminates (-5)."""

    observation_dim = 2
    action_dim = 1

    def __init__(self, num_envs: int = 32, max_steps: int = 40, seed: int = 0) -> None:
        super().__init__(num_envs, max_steps, seed)
        self.x = torch.zeros(num_envs)
        self.v = torch.zeros(num_envs)

    def _obs(self) -> torch.Tensor:
        return torch.stack([self.x, self.v], dim=1)

    def _reset_idx(self, ids: torch.Tensor) -> None:
        self.x[ids] = self._uniform(len(ids), -2.0, 2.0)
        self.v[ids] = 0.0

    def _advance(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a = actions[:, 0]
        dt = 0.1
        self.v = self.v + 2.0 * a * dt
        self.x = self.x + self.v * dt
        terminated = self.x.abs() > 3.0
        rewards = -(self.x.square() + 0.1 * a.square()) - 5.0 * terminated.float()
        return rewards, terminated


class CartpoleEnv(_AutoResetEnv):
    """Cart-pole like the cartpole sample: 120 Hz physics, 2 physics steps per action, 5 s episodes.

    Observations (pole angle, pole velocity, cart position, cart velocity); force = 100 N * action;
    rewards alive +1, terminated -2, pole angle^2 -1, |cart velocity| -0.01, |pole velocity| -0.005;
    terminates when |cart| > 3 m or |pole| > pi/2; the pole starts uniformly in +-0.25 pi.
    Dynamics: the classic cart-pole equations (cart 1 kg, pole 0.5 kg, half length 0.5 m),
    semi-implicit Euler.
    """

    observation_dim = 4
    action_dim = 1
    gravity = 9.81
    cart_mass = 1.0
    pole_mass = 0.5
    half_length = 0.5
    force_scale = 100.0
    physics_dt = 1.0 / 120.0
    substeps = 2

    def __init__(self, num_envs: int = 64, max_steps: int = 300, seed: int = 0) -> None:
        super().__init__(num_envs, max_steps, seed)
        self.state = torch.zeros(num_envs, 4)  # x, x_dot, theta, theta_dot

    def _obs(self) -> torch.Tensor:
        s = self.state
        return torch.stack([s[:, 2], s[:, 3], s[:, 0], s[:, 1]], dim=1)

    def _reset_idx(self, ids: torch.Tensor) -> None:
        self.state[ids] = 0.0
        self.state[ids, 2] = self._uniform(len(ids), -0.25 * math.pi, 0.25 * math.pi)

    def _advance(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        force = self.force_scale * actions[:, 0]
        total = self.cart_mass + self.pole_mass
        x, x_dot, th, th_dot = self.state.unbind(dim=1)
        for _ in range(self.substeps):
            sin, cos = torch.sin(th), torch.cos(th)
            temp = (force + self.pole_mass * self.half_length * th_dot.square() * sin) / total
            th_acc = (self.gravity * sin - cos * temp) / (
                self.half_length * (4.0 / 3.0 - self.pole_mass * cos.square() / total)
            )
            x_acc = temp - self.pole_mass * self.half_length * th_acc * cos / total
            x_dot = x_dot + self.physics_dt * x_acc
            th_dot = th_dot + self.physics_dt * th_acc
            x = x + self.physics_dt * x_dot
            th = th + self.physics_dt * th_dot
        self.state = torch.stack([x, x_dot, th, th_dot], dim=1)
        terminated = (x.abs() > 3.0) | (th.abs() > 0.5 * math.pi)
        rewards = (
            1.0 * (~terminated).float()
            - 2.0 * terminated.float()
            - th.square()
            - 0.01 * x_dot.abs()
            - 0.005 * th_dot.abs()
        )
        return rewards, terminated
