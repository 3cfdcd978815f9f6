"""``simulo.RLTrainer``: train a policy with PPO on a batched environment, on the CPU.

This module imports without torch (so ``simulo.RLTrainer`` resolves in a lean process); torch is
required, and imported, when a trainer is constructed. Without torch the constructor raises
:class:`~simulo.errors.MissingDependencyError` with the install command.

Threads: the constructor calls ``torch.set_num_threads(torch_threads)`` (default 1). The networks
are tiny, so intra-op threads cost more than they give, and the physics engine in the same
process wants the other core. A fixed thread count also keeps results bit-for-bit repeatable.
The setting is process-wide; pass ``torch_threads=None`` to leave torch's setting alone.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulo._checks import is_int
from simulo.errors import NonFiniteError, ShapeError, SimuloError, SimuloValueError
from simulo.rl.devices import torch_device
from simulo.rl.training.checkpoints import (
    BEST,
    LATEST,
    new_local_dir,
    read_checkpoint,
    resolve_location,
    write_checkpoint,
)
from simulo.rl.training.config import PPOConfig
from simulo.rl.training.deps import require_torch
from simulo.rl.training.vector_env import VectorEnvLike, check_vector_env, reset_observations

if TYPE_CHECKING:
    import torch
    from torch import Tensor

    from simulo.rl.training.ppo import PPO

ALGORITHMS = ("PPO",)


class RLTrainer:
    """Train a Gaussian policy on a batched environment with PPO.

    Args:
        env: A batched environment (:class:`~simulo.rl.training.vector_env.VectorEnvLike`,
            e.g. ``simulo.LearningEnv``).
        algorithm: ``"PPO"`` (case-insensitive), the only algorithm.
        device: Torch device of the networks; ``"cuda"`` without CUDA warns once and uses the CPU.
        seed: Seed of network initialisation, action sampling and minibatch shuffling.
        checkpoint_dir: Where ``best.pt`` and ``latest.pt`` go; ``None`` picks the run's directory,
            then ``$SIMULO_CHECKPOINT_DIR``, then a fresh ``./runs/checkpoints/rltrainer-*``
            (see :mod:`simulo.rl.training.checkpoints`).
        resume: ``None`` resumes from ``latest.pt`` only when the directory belongs to a job run
            (a retried job continues where it stopped); ``True`` resumes from ``latest.pt`` in
            ``checkpoint_dir`` if it exists; ``False`` never resumes.
        progress: Show a progress bar on stderr (tqdm when installed, else one updating line).
        torch_threads: ``torch.set_num_threads`` value (process-wide), or ``None`` to keep torch's.
        ml_framework: ``"torch"``, the only framework.
        agent_cfg: Hyperparameters as a mapping (same names as ``**hyperparameters``).
        **hyperparameters: Fields of :class:`~simulo.rl.training.config.PPOConfig`.

    Raises:
        SimuloValueError: An argument or hyperparameter is invalid (the message names it).
        MissingDependencyError: torch is not installed.
    """

    def __init__(
        self,
        env: VectorEnvLike,
        algorithm: str = "PPO",
        device: str = "cpu",
        seed: int = 0,
        *,
        checkpoint_dir: str | os.PathLike[str] | None = None,
        resume: bool | None = None,
        progress: bool = True,
        torch_threads: int | None = 1,
        ml_framework: str = "torch",
        agent_cfg: Mapping[str, Any] | None = None,
        **hyperparameters: Any,
    ) -> None:
        if not isinstance(algorithm, str) or algorithm.upper() not in ALGORITHMS:
            raise SimuloValueError(f"algorithm={algorithm!r}: expected one of {ALGORITHMS} (case-insensitive)")
        if ml_framework != "torch":
            raise SimuloValueError(f"ml_framework={ml_framework!r}: expected 'torch'")
        if not is_int(seed, 0):
            raise SimuloValueError(f"seed={seed!r}: expected an integer >= 0")
        if resume not in (None, True, False):
            raise SimuloValueError(f"resume={resume!r}: expected None, True or False")
        if not isinstance(progress, bool):
            raise SimuloValueError(f"progress={progress!r}: expected True or False")
        if torch_threads is not None and not is_int(torch_threads, 1):
            raise SimuloValueError(f"torch_threads={torch_threads!r}: expected an integer >= 1 or None")
        if agent_cfg is not None and not isinstance(agent_cfg, Mapping):
            raise SimuloValueError(f"agent_cfg={agent_cfg!r}: expected a mapping of hyperparameters or None")
        both = sorted(set(agent_cfg or {}) & set(hyperparameters))
        if both:
            raise SimuloValueError(f"hyperparameter(s) {both} given both in agent_cfg and as keywords: give each once")
        config = PPOConfig.from_mapping({**(agent_cfg or {}), **hyperparameters})
        num_envs, obs_dim, action_dim = check_vector_env(env)
        _check_batch(config, num_envs)
        location = resolve_location(checkpoint_dir)
        if resume is True and location.directory is None:
            raise SimuloValueError("resume=True needs a checkpoint_dir (or a job run) to resume from")
        torch = require_torch()
        self._device = torch_device(device)
        if torch_threads is not None:
            torch.set_num_threads(torch_threads)

        self.env = env
        self.algorithm = "PPO"
        self.seed = seed
        self.progress = progress
        self.num_envs, self.observation_dim, self.action_dim = num_envs, obs_dim, action_dim
        self._directory = location.directory
        self._learner = self._new_learner(config)
        self._eval_generator = torch.Generator(device=self._device)
        self._eval_generator.manual_seed(seed + 1)
        self.iteration = 0
        self.env_steps = 0
        self.best_reward: float | None = None
        self.best_iteration: int | None = None
        self.reward_history: list[float | None] = []
        self._window: deque[float] = deque(maxlen=config.reward_window)
        self._obs: Tensor | None = None
        self._running_return: Tensor | None = None
        self._closed = False
        self._credit = 0
        self._numbered: list[Path] = []
        if self._directory is not None and (resume is True or (resume is None and location.from_run)):
            latest = self._directory / LATEST
            if latest.is_file():
                self.load(latest)
                self._credit = self.iteration

    # ------------------------------------------------------------------ public surface

    @property
    def config(self) -> PPOConfig:
        """The hyperparameters in use."""
        return self._learner.config

    @property
    def device(self) -> str:
        """The torch device of the networks, as a string (e.g. ``"cpu"``)."""
        return str(self._device)

    @property
    def checkpoint_dir(self) -> Path | None:
        """Where checkpoints go; ``None`` until a fresh local directory is created on first save."""
        return self._directory

    def train(
        self,
        max_iterations: int = 1000,
        *,
        checkpoint_dir: str | os.PathLike[str] | None = None,
        checkpoint_every: int = 1,
        keep_last: int | None = None,
    ) -> dict[str, Any]:
        """Run PPO iterations (collect ``rollout_steps`` per environment, then update).

        Each call runs ``max_iterations`` more iterations, except the first call after an automatic
        resume (a retried job): it counts the resumed iterations, so the job ends at the same total.
        ``best.pt`` is written whenever the reward improves; ``latest.pt`` every
        ``checkpoint_every`` iterations and at the end.

        Args:
            max_iterations: Iterations to run (>= 0).
            checkpoint_dir: Overrides the trainer's checkpoint directory from now on.
            checkpoint_every: Iterations between ``latest.pt`` writes (>= 1).
            keep_last: Also keep numbered ``model_<iteration>.pt`` files, the last ``keep_last`` of them.

        Returns:
            A JSON-ready dict: ``iterations`` (total so far), ``iterations_run``, ``best_reward`` and
            ``best_iteration``, ``final_reward`` (the reward of the last iteration), ``env_steps``
            (total), ``wall_time_s`` and ``env_steps_per_s`` of this call, ``reward_history`` (one
            entry per iteration, ``None`` before any episode finished), ``learning_rate``,
            ``checkpoint_dir``, ``best_checkpoint`` and ``latest_checkpoint``. The reward of an
            iteration is the mean return of the last ``reward_window`` finished episodes.

        Raises:
            SimuloValueError: An argument is invalid.
            SimuloError: The trainer is closed.
            ShapeError, NonFiniteError: The environment returned malformed data.
        """
        for name, value, minimum in (("max_iterations", max_iterations, 0), ("checkpoint_every", checkpoint_every, 1)):
            if not is_int(value, minimum):
                raise SimuloValueError(f"{name}={value!r}: expected an integer >= {minimum}")
        if keep_last is not None and not is_int(keep_last, 1):
            raise SimuloValueError(f"keep_last={keep_last!r}: expected an integer >= 1 or None")
        self._check_open()
        if checkpoint_dir is not None:
            self._directory = Path(checkpoint_dir)
        to_run = max(0, max_iterations - self._credit)
        self._credit = 0
        start_steps = self.env_steps
        start = time.perf_counter()
        bar = _Progress(to_run, enabled=self.progress)
        try:
            for _ in range(to_run):
                stats = self._iteration()
                reward = self.reward_history[-1]
                if reward is not None and (self.best_reward is None or reward > self.best_reward):
                    self.best_reward, self.best_iteration = reward, self.iteration
                    self.save(self._ensure_directory() / BEST)
                if self.iteration % checkpoint_every == 0:
                    self._periodic_save(keep_last)
                elapsed = time.perf_counter() - start
                bar.update(reward, self.best_reward, (self.env_steps - start_steps) / max(elapsed, 1e-9), stats)
            if to_run == 0 or self.iteration % checkpoint_every != 0:
                self._periodic_save(keep_last)
        finally:
            bar.close()
        wall = time.perf_counter() - start
        directory = self._ensure_directory()
        return {
            "iterations": self.iteration,
            "iterations_run": to_run,
            "best_reward": self.best_reward,
            "best_iteration": self.best_iteration,
            "final_reward": self.reward_history[-1] if self.reward_history else None,
            "env_steps": self.env_steps,
            "wall_time_s": wall,
            "env_steps_per_s": (self.env_steps - start_steps) / wall if wall > 0 else 0.0,
            "reward_history": list(self.reward_history),
            "learning_rate": self._learner.learning_rate,
            "checkpoint_dir": str(directory),
            "best_checkpoint": str(directory / BEST) if (directory / BEST).is_file() else None,
            "latest_checkpoint": str(directory / LATEST),
        }

    def act(self, obs: Any, deterministic: bool = True) -> Any:
        """Return the policy's actions for raw observations (no learning, no normaliser update).

        Args:
            obs: Observations ``(batch, observation_dim)`` or one ``(observation_dim,)``; a torch
                tensor, numpy array or nested list.
            deterministic: Take the Gaussian mean (clipped) instead of sampling.

        Returns:
            Actions of matching leading shape: a tensor on the input's device for tensor input,
            else a numpy array.
        """
        from simulo.rl.training.networks import policy_input  # noqa: PLC0415 - torch-heavy

        torch = require_torch()
        batch, restore = policy_input(obs, self.observation_dim, self._device)
        learner = self._learner
        with torch.no_grad():
            if deterministic:
                actions = learner.policy()(batch)
            else:
                mean, std = learner.actor(learner.normalizer(batch))
                noise = torch.randn(mean.shape, generator=self._eval_generator, device=mean.device)
                actions = learner.env_actions(mean + std * noise)
        return restore(actions)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the full trainer state (policy, value, optimiser, normaliser, counters, config) to ``path``."""
        write_checkpoint(
            path,
            {
                "algorithm": self.algorithm,
                "config": self.config.to_dict(),
                "observation_dim": self.observation_dim,
                "action_dim": self.action_dim,
                "seed": self.seed,
                "iteration": self.iteration,
                "env_steps": self.env_steps,
                "best_reward": self.best_reward,
                "best_iteration": self.best_iteration,
                "reward_history": list(self.reward_history),
                "reward_window": list(self._window),
                "learner": self._learner.state_dict(),
            },
        )

    def load(self, path: str | os.PathLike[str]) -> None:
        """Restore the state written by :meth:`save` (the checkpoint's config replaces the current one).

        Nothing changes unless the whole checkpoint loads.

        Raises:
            SimuloValueError: The file is not a checkpoint, or it was trained for other
                observation/action sizes or does not fit this environment.
        """
        payload = read_checkpoint(path, map_location=self._device)
        source = str(path)
        dims = (payload.get("observation_dim"), payload.get("action_dim"))
        if dims != (self.observation_dim, self.action_dim):
            raise SimuloValueError(
                f"checkpoint {source!r} is for observation_dim, action_dim = {dims}; "
                f"this environment has {(self.observation_dim, self.action_dim)}"
            )
        try:
            config = PPOConfig.from_mapping(payload["config"])
            _check_batch(config, self.num_envs)
            learner = self._new_learner(config)
            learner.load_state_dict(payload["learner"])
            counters = (
                int(payload["iteration"]),
                int(payload["env_steps"]),
                _optional_float(payload["best_reward"]),
                None if payload["best_iteration"] is None else int(payload["best_iteration"]),
                [_optional_float(r) for r in payload["reward_history"]],
                [float(r) for r in payload["reward_window"]],
            )
        except SimuloValueError as exc:
            raise SimuloValueError(f"checkpoint {source!r}: {exc}") from exc
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise SimuloValueError(f"checkpoint {source!r} is incomplete or inconsistent: {exc!r}") from exc
        self._learner = learner
        self.iteration, self.env_steps, self.best_reward, self.best_iteration, history, window = counters
        self.reward_history = history
        self._window = deque(window, maxlen=config.reward_window)

    def close(self) -> None:
        """Release the trainer (the environment stays open; close it yourself). Idempotent."""
        self._closed = True
        self._obs = None
        self._running_return = None

    # ------------------------------------------------------------------ internals

    def _new_learner(self, config: PPOConfig) -> PPO:
        from simulo.rl.training.ppo import PPO  # noqa: PLC0415 - torch-heavy

        return PPO(self.observation_dim, self.action_dim, self.num_envs, config, self._device, self.seed)

    def _check_open(self) -> None:
        if self._closed:
            raise SimuloError("this RLTrainer is closed: create a new one to train again")

    def _ensure_directory(self) -> Path:
        if self._directory is None:
            self._directory = new_local_dir()
        return self._directory

    def _periodic_save(self, keep_last: int | None) -> None:
        directory = self._ensure_directory()
        self.save(directory / LATEST)
        if keep_last is None:
            return
        numbered = directory / f"model_{self.iteration:06d}.pt"
        self.save(numbered)
        if numbered not in self._numbered:
            self._numbered.append(numbered)
        while len(self._numbered) > keep_last:
            self._numbered.pop(0).unlink(missing_ok=True)

    def _iteration(self) -> dict[str, float]:
        import torch  # noqa: PLC0415 - available: checked in __init__

        learner, cfg, env = self._learner, self._learner.config, self.env
        if self._obs is None:
            self._obs = self._batch(reset_observations(env.reset()), "reset() observations", (self.observation_dim,),
                                    torch.float32)
            self._running_return = torch.zeros(self.num_envs, device=self._device)
        obs = self._obs
        env_device = _torch_device(getattr(env, "device", None))
        for t in range(cfg.rollout_steps):
            learner.normalizer.update(obs)
            norm_obs = learner.normalizer(obs)
            raw, log_probs, values, means, stds = learner.act(norm_obs)
            actions = learner.env_actions(raw)
            result = env.step(actions if env_device is None else actions.to(env_device))
            if not isinstance(result, tuple) or len(result) != 5:
                raise ShapeError(f"env.step() returned {type(result).__name__}: expected (obs, rewards, terminated, "
                                 "truncated, info)")
            next_obs, rewards, terminated, truncated, info = result
            step = f"step() at iteration {self.iteration + 1}, rollout step {t}"
            next_obs = self._batch(next_obs, f"{step}: observations", (self.observation_dim,), torch.float32)
            rewards = self._batch(rewards, f"{step}: rewards", (), torch.float32)
            terminated = self._batch(terminated, f"{step}: terminated", (), torch.bool)
            truncated = self._batch(truncated, f"{step}: truncated", (), torch.bool)
            dones = terminated | truncated
            # time-limit bootstrap: a truncated (not terminated) episode keeps the value of its state
            learn_rewards = rewards + cfg.gamma * values * (truncated & ~terminated)
            learner.store(t, norm_obs, raw, log_probs, values, learn_rewards, dones, means, stds)
            self._record_episodes(rewards, dones, info)
            obs = next_obs
        self._obs = obs
        last_values = learner.value(learner.normalizer(obs))
        stats = learner.update(last_values)
        self.iteration += 1
        self.env_steps += cfg.rollout_steps * self.num_envs
        self.reward_history.append(sum(self._window) / len(self._window) if self._window else None)
        return stats

    def _record_episodes(self, rewards: torch.Tensor, dones: torch.Tensor, info: Any) -> None:
        assert self._running_return is not None
        self._running_return += rewards
        episode = info.get("episode") if isinstance(info, Mapping) else None
        if isinstance(episode, Mapping) and "return" in episode:
            returns = [float(r) for r in _flat(episode["return"])]
        else:
            returns = [float(r) for r in self._running_return[dones].tolist()]
        self._window.extend(returns)
        self._running_return[dones] = 0.0

    def _batch(self, value: Any, what: str, trailing: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        import torch  # noqa: PLC0415

        try:
            tensor = torch.as_tensor(value, device=self._device)
        except (TypeError, ValueError, RuntimeError) as exc:
            raise ShapeError(f"env {what}: {type(value).__name__} is not a tensor ({exc})") from exc
        expected = (self.num_envs, *trailing)
        if tuple(tensor.shape) != expected:
            raise ShapeError(f"env {what} have shape {tuple(tensor.shape)}: expected {expected}")
        tensor = tensor.to(dtype)
        if dtype.is_floating_point and not bool(torch.isfinite(tensor).all()):
            bad = (~torch.isfinite(tensor)).reshape(self.num_envs, -1).any(dim=1).nonzero().flatten().tolist()
            raise NonFiniteError(f"env {what} contain NaN or infinity in environments {bad}")
        return tensor


def _check_batch(config: PPOConfig, num_envs: int) -> None:
    samples = config.batch_size(num_envs)
    if config.num_minibatches > samples:
        raise SimuloValueError(
            f"PPOConfig.num_minibatches={config.num_minibatches}: expected at most rollout_steps * num_envs = {samples}"
        )


def _torch_device(name: Any) -> torch.device | None:
    """Return the env's device if torch can place tensors there, else ``None`` (hand over ours)."""
    import torch  # noqa: PLC0415

    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        return None
    if device.type == "cuda" and not torch.cuda.is_available():
        return None
    return device


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _flat(value: Any) -> list[Any]:
    if hasattr(value, "reshape") and hasattr(value, "tolist"):
        return list(value.reshape(-1).tolist())
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


class _Progress:
    """A progress bar: tqdm when installed, else one carriage-return line on stderr."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._enabled = enabled and total > 0
        self._total = total
        self._done = 0
        self._bar: Any = None
        if self._enabled:
            try:
                from tqdm import tqdm  # noqa: PLC0415 - optional

                self._bar = tqdm(total=total, desc="PPO", unit="it", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                self._bar = None

    def update(self, reward: float | None, best: float | None, fps: float, stats: Mapping[str, float]) -> None:
        if not self._enabled:
            return
        self._done += 1
        text = (f"reward {_fmt(reward)} best {_fmt(best)} steps/s {fps:,.0f} kl {stats['kl']:.4f} "
                f"lr {stats['learning_rate']:.1e}")
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=False)
            self._bar.update(1)
        else:
            sys.stderr.write(f"\rPPO {self._done}/{self._total} {text}")
            sys.stderr.flush()

    def close(self) -> None:
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
