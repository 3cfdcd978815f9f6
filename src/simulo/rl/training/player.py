"""Replay a trained policy without the trainer (importable without torch).

:class:`PolicyPlayer` turns a checkpoint into a callable ``obs -> actions``; :class:`RLPlayer` rolls
it through a batched environment for a number of episodes or steps and reports the returns.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from simulo._sdk_protocols import PlayerBase, PolicyNetworkBase
from simulo.checks import is_int
from simulo.errors import SimuloError, SimuloValueError
from simulo.rl.devices import torch_device
from simulo.rl.training.checkpoints import read_checkpoint
from simulo.rl.training.deps import require_torch
from simulo.rl.training.vector_env import VectorEnvLike, check_vector_env, reset_observations

if TYPE_CHECKING:
    import torch

    from simulo.authoring.contract import RecordConfig
    from simulo.rl.recordings.config import RecordingPlan
    from simulo.rl.recordings.rollout import RolloutRecorder
    from simulo.rl.training.actors import ImageActor
    from simulo.rl.training.networks import DeterministicActor


class PolicyPlayer(PolicyNetworkBase):
    """A trained policy as a callable: raw observations in, actions out.

    Build it with :meth:`from_checkpoint`. Calls never change the policy (the state standardisation
    is frozen at its saved statistics).

    Attributes:
        observation_dim: Observation (policy input) size the policy expects.
        action_dim: Action size it returns.
        agent_cfg: The PPO settings it was trained with, as plain data.
        iteration: The training iteration of the checkpoint.
        path: The checkpoint file.
    """

    def __init__(self, actor: DeterministicActor | ImageActor, agent_cfg: dict[str, Any], iteration: int, path: str,
                 device: torch.device, seed: int = 0) -> None:
        torch = require_torch()
        self.agent_cfg = agent_cfg
        self.observation_dim = actor.input_dim
        self.action_dim = actor.action_dim
        self.iteration = iteration
        self.path = path
        self._device = device
        self._actor = actor.to(device).eval()
        self._generator = torch.Generator(device=device)
        self._generator.manual_seed(seed)

    @classmethod
    def from_checkpoint(cls, path: str | os.PathLike[str], device: str = "cpu", seed: int = 0) -> PolicyPlayer:
        """Load the policy of a checkpoint written by ``RLTrainer`` (``best.pt``, ``latest.pt``, ``save``).

        Args:
            path: The checkpoint file.
            device: Device to run the policy on (``"cuda"`` without CUDA warns and uses the CPU).
            seed: Seed of the sampling generator used when ``deterministic=False``.

        Returns:
            The player.

        Raises:
            SimuloValueError: The file is not a usable checkpoint.
            MissingDependencyError: torch is not installed.
        """
        require_torch("simulo.PolicyPlayer")
        from simulo.rl.training.actors import actor_from_spec  # noqa: PLC0415 - torch-heavy

        if not is_int(seed, low=0):
            raise SimuloValueError(f"seed={seed!r}: expected an integer >= 0")
        resolved = torch_device(device)
        payload = read_checkpoint(path, map_location=resolved)
        source = str(path)
        if payload.get("actor") is None:
            raise SimuloValueError(f"checkpoint {source!r} keeps no standalone actor: its policy used a "
                                   "state_preprocessor other than skrl's RunningStandardScaler or None")
        try:
            actor = actor_from_spec(payload["actor"])
            iteration = int(payload["iteration"])
            agent_cfg = dict(payload.get("agent_cfg") or {})
        except SimuloValueError as exc:
            raise SimuloValueError(f"checkpoint {source!r}: {exc}") from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise SimuloValueError(f"checkpoint {source!r} is incomplete or inconsistent: {exc!r}") from exc
        return cls(actor, agent_cfg, iteration, source, resolved, seed)

    @property
    def device(self) -> str:
        """Device of the policy, as a string."""
        return str(self._device)

    @property
    def input_names(self) -> tuple[str, ...] | None:
        """The names of the inputs a policy with image inputs takes (a dict, as ``task.get_policy_inputs()``
        returns them); ``None`` for a policy of one flat observation."""
        return getattr(self._actor, "names", None)

    def inputs_from(self, task: Any, obs: Any) -> Any:
        """What to call this policy with in an environment of ``task`` whose step returned ``obs``: the task's
        ``get_policy_inputs()`` for a policy with image inputs, else ``obs``."""
        return obs if self.input_names is None else task.get_policy_inputs()

    @property
    def input_dim(self) -> int:
        """Observation width the policy expects (``observation_dim``; the SDK's ``PolicyNetworkProtocol`` name)."""
        return self.observation_dim

    @property
    def output_dim(self) -> int:
        """Action width the policy produces (``action_dim``; the SDK's ``PolicyNetworkProtocol`` name)."""
        return self.action_dim

    def __call__(self, observation: Any, deterministic: bool = True) -> Any:
        """Return actions for raw observations.

        Args:
            observation: ``(batch, observation_dim)`` or ``(observation_dim,)``; tensor, numpy array or list. A
                policy with image inputs takes a dict of its :attr:`input_names` (uint8 images, numeric inputs).
            deterministic: Take the (clipped) Gaussian mean instead of sampling.

        Returns:
            Actions of matching leading shape: a tensor on the input's device for tensor input,
            else a numpy array.

        Raises:
            ShapeError: The observations have the wrong shape.
            NonFiniteError: They contain NaN or infinity.
        """
        from simulo.rl.training.actors import run_actor  # noqa: PLC0415

        return run_actor(self._actor, observation, self._device, deterministic, self._generator)

    act = __call__


class RLPlayer(PlayerBase):
    """Roll a saved policy through a batched environment and report episode returns.

    Args:
        env: The environment (:class:`~simulo.rl.training.vector_env.VectorEnvLike`).
        policy: A checkpoint path or a :class:`PolicyPlayer`.
        device: Device of the policy; ``"cuda"`` without CUDA warns and uses the CPU.
        ml_framework: ``"torch"``, the only framework.

    Raises:
        SimuloValueError: The env is not batched, ``ml_framework`` is not ``"torch"``, or the policy does not fit
            its sizes.
    """

    def __init__(self, env: VectorEnvLike, policy: str | os.PathLike[str] | PolicyPlayer, device: str = "cuda",
                 ml_framework: str = "torch") -> None:
        if ml_framework != "torch":
            raise SimuloValueError(f"ml_framework={ml_framework!r}: expected 'torch'")
        self._num_envs, obs_dim, action_dim = check_vector_env(env)
        player = policy if isinstance(policy, PolicyPlayer) else PolicyPlayer.from_checkpoint(policy, device=device)
        _check_fits(player, obs_dim, action_dim)
        self.env = env
        self._player: PolicyPlayer | None = player
        self._device = device
        self._recorder: RolloutRecorder | None = None

    @property
    def policy(self) -> PolicyPlayer | None:
        """The loaded policy (``None`` after :meth:`close`)."""
        return self._player

    @property
    def recorder(self) -> RolloutRecorder | None:
        """The recorder of the last :meth:`play` that recorded (its ``plan`` names the files), else ``None``."""
        return self._recorder

    def load(self, path: str | os.PathLike[str]) -> None:
        """Replace the policy by the one in checkpoint ``path`` (unchanged if it does not load or fit)."""
        player = PolicyPlayer.from_checkpoint(path, device=self._device)
        _check_fits(player, self.env.observation_dim, self.env.action_dim)
        self._player = player

    def play(
        self,
        num_episodes: int | None = None,
        num_steps: int | None = None,
        real_time: bool = False,
        video_path: str | None = None,
        video_length: int = 200,
        deterministic: bool = True,
        record: str | os.PathLike[str] | RecordConfig | None = None,
    ) -> dict[str, Any]:
        """Reset the environment and run the policy until ``num_episodes`` episodes finished or ``num_steps`` steps ran.

        With neither bound, plays one episode. Episodes are counted from ``info["episode"]``
        (all environments together), so the run may finish a few more than ``num_episodes``;
        all of them are reported.

        Args:
            num_episodes: Finished episodes to wait for.
            num_steps: Batched environment steps to run.
            real_time: Pace the steps to the simulation clock (``env.dt`` seconds each).
            video_path: Film environment 0 into this MP4 (or GIF).
            video_length: Most frames of the ``video_path`` video.
            deterministic: Take the policy's mean action.
            record: Record the rollout (:mod:`simulo.rl.recordings`): a path, or a
                :class:`simulo.RecordConfig`; an MCAP in the VizStream layout, and an MP4 with
                ``include_video``, in the run folder's ``recordings/`` unless the path says otherwise.

        Returns:
            ``episodes``, ``mean_return``, ``returns``, ``mean_length``, ``lengths`` and ``steps``;
            with ``record`` or ``video_path``, also ``recordings``: the files written.

        Raises:
            SimuloValueError: A bound is not a positive integer, or both are given; a bad ``record``
                or ``video_path``.
            MissingDependencyError: Recording needs the ``record`` extra.
        """
        from simulo.rl.recordings.config import plan_recording  # noqa: PLC0415 - only when recording

        if self._player is None:
            raise SimuloError("this RLPlayer is closed")
        if num_episodes is not None and num_steps is not None:
            raise SimuloValueError(f"num_episodes={num_episodes!r}, num_steps={num_steps!r}: give at most one bound")
        for name, value in (("num_episodes", num_episodes), ("num_steps", num_steps)):
            if value is not None and not is_int(value, low=1):
                raise SimuloValueError(f"{name}={value!r}: expected an integer >= 1 or None")
        episodes_wanted = 1 if num_episodes is None and num_steps is None else num_episodes
        dt = float(getattr(self.env, "dt", 0.0))
        plan = plan_recording(record, self._num_envs, dt or 1.0, "play", video_path, video_length)
        recorder = None if plan is None else _recorder(self.env, plan, self._player.path)
        if recorder is not None:
            self._recorder = recorder
        try:
            returns, lengths, steps = self._roll(episodes_wanted, num_steps, real_time, deterministic, dt, recorder)
        finally:
            files = [] if recorder is None else recorder.close()
        result: dict[str, Any] = {} if recorder is None else {"recordings": [str(p) for p in files]}
        return {
            **result,
            "episodes": len(returns),
            "mean_return": sum(returns) / len(returns) if returns else None,
            "returns": returns,
            "mean_length": sum(lengths) / len(lengths) if lengths else None,
            "lengths": lengths,
            "steps": steps,
        }

    def _roll(self, episodes_wanted: int | None, num_steps: int | None, real_time: bool, deterministic: bool,
              dt: float, recorder: RolloutRecorder | None) -> tuple[list[float], list[float], int]:
        """Reset, then step until a bound is met; returns the finished episodes' returns and lengths, and the steps."""
        assert self._player is not None
        returns: list[float] = []
        lengths: list[float] = []
        obs = reset_observations(self.env.reset())
        if recorder is not None:
            recorder.begin()
        steps = 0
        started = time.monotonic()
        while True:
            actions = self._player(self._player.inputs_from(getattr(self.env, "task", None), obs),
                                   deterministic=deterministic)
            obs, rewards, terminated, truncated, info = self.env.step(actions)
            steps += 1
            if recorder is not None:
                recorder.step(actions, rewards, terminated, truncated)
            if real_time:
                time.sleep(max(0.0, started + steps * dt - time.monotonic()))
            episode = info.get("episode") if isinstance(info, dict) else None
            if isinstance(episode, dict):
                returns += _floats(episode.get("return", []))
                lengths += _floats(episode.get("length", []))
            if episodes_wanted is not None and len(returns) >= episodes_wanted:
                break
            if num_steps is not None and steps >= num_steps:
                break
        return returns, lengths, steps

    def close(self) -> None:
        """Drop the policy (the environment stays open). Idempotent."""
        self._player = None


def _recorder(env: VectorEnvLike, plan: RecordingPlan, scene_id: str) -> RolloutRecorder:
    from simulo.rl.recordings.rollout import RolloutRecorder  # noqa: PLC0415 - only when recording

    return RolloutRecorder(env, plan, scene_id)


def _check_fits(player: PolicyPlayer, obs_dim: int, action_dim: int) -> None:
    if (player.observation_dim, player.action_dim) != (obs_dim, action_dim):
        raise SimuloValueError(
            f"policy {player.path!r} maps {player.observation_dim} observations to {player.action_dim} actions; "
            f"the environment has {obs_dim} and {action_dim}"
        )


def _floats(value: Any) -> list[float]:
    if hasattr(value, "reshape") and hasattr(value, "tolist"):
        return [float(v) for v in value.reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value]
    return [float(value)]
