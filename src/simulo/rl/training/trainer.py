"""``simulo.RLTrainer``: train a policy with skrl's PPO on a batched environment.

This module imports without torch or skrl (so ``simulo.RLTrainer`` resolves in a lean process); both are
required, and imported, when a trainer is constructed (the ``train`` extra). Without them the
constructor raises :class:`~simulo.errors.MissingDependencyError` with the install command.

One iteration is one PPO update: ``agent_cfg["rollouts"]`` (16 by default) steps of every environment,
then skrl's update. The trainer drives skrl's agent itself (``act``, ``record_transition``,
``post_interaction``), so it counts iterations, tracks the reward, writes ``best.pt`` and ``latest.pt``
and resumes a retried job; skrl writes its TensorBoard events into the run folder.

Threads: the constructor calls ``torch.set_num_threads(torch_threads)`` (default 1). The networks are
small, so intra-op threads cost more than they give, and the physics engine in the same process wants
the other core. The setting is process-wide; pass ``torch_threads=None`` to leave torch's setting alone.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulo._sdk_protocols import TrainerBase
from simulo.checks import is_int
from simulo.errors import SimuloError, SimuloValueError
from simulo.rl.devices import torch_device
from simulo.rl.training.checkpoints import (
    BEST,
    LATEST,
    control_period,
    new_local_dir,
    resolve_location,
    task_fields,
)
from simulo.rl.training.config import check_agent_cfg, check_trainer_options, describe_cfg
from simulo.rl.training.deps import require_skrl, require_torch
from simulo.rl.training.progress import Progress
from simulo.rl.training.time_split import IterationTimes, TimeSplit, env_physics_time, local_times, runner_times
from simulo.rl.training.trainer_checkpoints import REWARD_WINDOW, TrainerCheckpoints
from simulo.rl.training.vector_env import VectorEnvLike, check_vector_env, reset_observations

if TYPE_CHECKING:
    from torch import Tensor

    from simulo.rl.training.actors import ImageActor
    from simulo.rl.training.networks import DeterministicActor

CHECKPOINT_EVERY = 50
"""Iterations between ``latest.pt`` writes when ``train(checkpoint_every=None)`` (the SDK's default)."""


class RLTrainer(TrainerCheckpoints, TrainerBase):
    """Train a Gaussian policy on a batched environment with skrl's PPO.

    Args:
        env: A batched environment (:class:`~simulo.rl.training.vector_env.VectorEnvLike`,
            e.g. ``simulo.LearningEnv``).
        algorithm: ``"PPO"`` (case-insensitive), the only algorithm.
        device: Torch device of the networks; ``"cuda"`` without CUDA warns once and uses the CPU.
        seed: Seed of network initialisation, action sampling and minibatch sampling.
        log_dir: Where skrl writes TensorBoard events; ``None``: ``tensorboard/`` in the run folder (beside
            the ``checkpoints/`` folder of a job run, else inside the checkpoint directory).
        ml_framework: ``"torch"``, the only framework.
        agent_cfg: skrl 1.4.3 PPO settings (``rollouts``, ``learning_epochs``, ``mini_batches``,
            ``state_preprocessor``, ...; see :mod:`simulo.rl.training.config`), classes and callables included.
        debug_on_anomaly: ``None``, or a disabled ``simulo.DebugOnAnomaly``; anomaly capture is not
            implemented locally.
        checkpoint_dir: Where ``best.pt`` and ``latest.pt`` go; ``None`` picks the run's directory,
            then ``$SIMULO_CHECKPOINT_DIR``, then a fresh ``./runs/checkpoints/rltrainer-*``
            (see :mod:`simulo.rl.training.checkpoints`).
        resume: ``None`` resumes from ``latest.pt`` only when the directory belongs to a job run
            (a retried job continues where it stopped); ``True`` resumes from ``latest.pt`` in
            ``checkpoint_dir`` if it exists; ``False`` never resumes.
        progress: Show a progress bar on stderr (tqdm when installed, else one updating line).
        torch_threads: ``torch.set_num_threads`` value (process-wide), or ``None`` to keep torch's.
        hidden_layers: Hidden layer sizes of the policy and the value MLPs (ELU).

    Raises:
        SimuloValueError: An argument or an ``agent_cfg`` key is invalid (the message names it).
        MissingDependencyError: torch or skrl is not installed.
        NotImplementedError: ``debug_on_anomaly`` is enabled, or the task declares image policy inputs.
    """

    def __init__(
        self,
        env: VectorEnvLike,
        algorithm: str = "PPO",
        device: str = "cuda",
        seed: int = 42,
        log_dir: str | os.PathLike[str] | None = None,
        ml_framework: str = "torch",
        agent_cfg: Mapping[str, Any] | None = None,
        debug_on_anomaly: Any = None,
        *,
        checkpoint_dir: str | os.PathLike[str] | None = None,
        resume: bool | None = None,
        progress: bool = True,
        torch_threads: int | None = 1,
        hidden_layers: tuple[int, ...] = (64, 64),
    ) -> None:
        check_trainer_options(algorithm=algorithm, ml_framework=ml_framework, seed=seed, resume=resume,
                              progress=progress, torch_threads=torch_threads, hidden_layers=hidden_layers,
                              debug_on_anomaly=debug_on_anomaly)
        cfg = check_agent_cfg(agent_cfg)
        num_envs, _, action_dim = check_vector_env(env)
        if cfg["mini_batches"] > cfg["rollouts"] * num_envs:
            raise SimuloValueError(f"agent_cfg['mini_batches']={cfg['mini_batches']}: expected at most rollouts * "
                                   f"num_envs = {cfg['rollouts'] * num_envs}")
        location = resolve_location(checkpoint_dir)
        if resume is True and location.directory is None:
            raise SimuloValueError("resume=True needs a checkpoint_dir (or a job run) to resume from")
        torch = require_torch()
        require_skrl()
        from simulo.rl.training.agent import Networks, build_agent  # noqa: PLC0415 - torch and skrl
        from simulo.rl.training.inputs import StateSource  # noqa: PLC0415

        self._device = torch_device(device)
        if torch_threads is not None:
            torch.set_num_threads(torch_threads)
        self.env = env
        self.algorithm = "PPO"
        self.seed = seed
        self.progress = progress
        self.num_envs, self.action_dim = num_envs, action_dim
        self._source = StateSource(env, self._device)
        self.observation_dim = self._source.layout.policy_dim
        self._cfg = cfg
        self._networks = Networks(hidden=tuple(hidden_layers))
        self._directory = location.directory if location.directory is not None else new_local_dir()
        self.log_dir = Path(log_dir) if log_dir is not None else _default_log_dir(self._directory)
        outer = torch.get_rng_state()
        torch.manual_seed(seed)
        try:
            self._agent = build_agent(cfg, self._source.layout, self._networks, num_envs, self._device, self.log_dir)
        finally:
            self._rng_state = torch.get_rng_state()
            torch.set_rng_state(outer)
        self._generator = torch.Generator(device=self._device).manual_seed(seed + 1)
        from simulo.rl.training.collector import open_collector  # noqa: PLC0415 - torch and skrl

        self._collector = open_collector(env, self._agent, seed)  # env runners, when the backend has them
        self.iteration = 0
        self.env_steps = 0
        self.best_reward: float | None = None
        self.best_iteration: int | None = None
        self.reward_history: list[float | None] = []
        self._window: deque[float] = deque(maxlen=REWARD_WINDOW)
        self._states: Tensor | None = None
        self._running_return: Tensor | None = None
        self._closed = False
        self._credit = 0
        self._numbered: list[Path] = []
        # the task's name and file digest as loaded, and the policy step's period, for every checkpoint
        self._task_fields = {**task_fields(env), **control_period(env)}
        if resume is True or (resume is None and location.from_run):
            latest = self._directory / LATEST
            if latest.is_file():
                self.load(latest)
                self._credit = self.iteration

    # ------------------------------------------------------------------ public surface

    @property
    def agent_cfg(self) -> dict[str, Any]:
        """The PPO settings in use, as plain data (classes by name)."""
        return describe_cfg(self._agent.cfg)

    @property
    def agent(self) -> Any:
        """The skrl PPO agent."""
        return self._agent

    @property
    def device(self) -> str:
        """The torch device of the networks, as a string (e.g. ``"cpu"``)."""
        return str(self._device)

    @property
    def checkpoint_dir(self) -> Path:
        """Where ``best.pt`` and ``latest.pt`` go."""
        return self._directory

    def train(
        self,
        max_iterations: int = 1000,
        *,
        checkpoint_dir: str | os.PathLike[str] | None = None,
        checkpoint_every: int | None = None,
        keep_last: int | None = None,
    ) -> dict[str, Any]:
        """Run PPO iterations (``rollouts`` steps of every environment, then one update each).

        Each call runs ``max_iterations`` more iterations, except the first call after an automatic
        resume (a retried job): it counts the resumed iterations, so the job ends at the same total.
        ``best.pt`` is written whenever the reward improves; ``latest.pt`` every ``checkpoint_every``
        iterations and at the end.

        Args:
            max_iterations: Iterations to run (>= 0).
            checkpoint_dir: Overrides the trainer's checkpoint directory from now on.
            checkpoint_every: Iterations between ``latest.pt`` writes (>= 1); ``None``: every 50.
            keep_last: Also keep numbered ``model_<iteration>.pt`` files, the last ``keep_last`` of them.

        Returns:
            A JSON-ready dict: ``iterations`` (total so far), ``iterations_run``, ``best_reward`` and
            ``best_iteration``, ``final_reward`` (the reward of the last iteration), ``env_steps``
            (total), ``wall_time_s`` and ``env_steps_per_s`` of this call, ``reward_history`` (one
            entry per iteration, ``None`` before any episode finished), ``learning_rate``,
            ``checkpoint_dir``, ``best_checkpoint``, ``latest_checkpoint``, ``log_dir``, and ``time_split``:
            where this call's iterations spent their wall-clock time, summed (``iterations``, ``total_s``,
            ``physics_s``, ``task_s``, ``learner_s`` and their means in ``per_iteration``; see
            :mod:`simulo.rl.training.time_split` for the parts under env runners). The reward of an iteration
            is the mean return of the last 100 finished episodes.

        Raises:
            SimuloValueError: An argument is invalid.
            SimuloError: The trainer is closed.
            ShapeError, NonFiniteError: The environment returned malformed data.
        """
        every = CHECKPOINT_EVERY if checkpoint_every is None else checkpoint_every
        for name, value, minimum in (("max_iterations", max_iterations, 0), ("checkpoint_every", every, 1)):
            if not is_int(value, minimum):
                raise SimuloValueError(f"{name}={value!r}: expected an integer >= {minimum}")
        if keep_last is not None and not is_int(keep_last, 1):
            raise SimuloValueError(f"keep_last={keep_last!r}: expected an integer >= 1 or None")
        self._check_open()
        if checkpoint_dir is not None:
            self._directory = Path(checkpoint_dir)
        to_run = max(0, max_iterations - self._credit)
        self._credit = 0
        start_steps, start = self.env_steps, time.perf_counter()
        bar = Progress(to_run, enabled=self.progress)
        split = TimeSplit()
        try:
            with self._own_rng():
                for _ in range(to_run):
                    times = self._iteration(self.iteration + to_run)
                    split.add(times)
                    reward = self.reward_history[-1]
                    if reward is not None and (self.best_reward is None or reward > self.best_reward):
                        self.best_reward, self.best_iteration = reward, self.iteration
                        self.save(self._directory / BEST)
                    if self.iteration % every == 0:
                        self._periodic_save(keep_last)
                    elapsed = max(time.perf_counter() - start, 1e-9)
                    bar.update(reward, self.best_reward, (self.env_steps - start_steps) / elapsed,
                               self.learning_rate, times)
                if to_run == 0 or self.iteration % every != 0:
                    self._periodic_save(keep_last)
        finally:
            bar.close()
        wall = time.perf_counter() - start
        best = self._directory / BEST
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
            "learning_rate": self.learning_rate,
            "checkpoint_dir": str(self._directory),
            "best_checkpoint": str(best) if best.is_file() else None,
            "latest_checkpoint": str(self._directory / LATEST),
            "log_dir": str(self.log_dir),
            "time_split": split.as_dict(),
        }

    @property
    def learning_rate(self) -> float:
        """The optimiser's current learning rate (the KL-adaptive scheduler changes it)."""
        return float(self._agent.optimizer.param_groups[0]["lr"])

    def act(self, obs: Any, deterministic: bool = True) -> Any:
        """Return the policy's actions for raw policy inputs (no learning, no statistics update).

        Args:
            obs: Policy inputs ``(batch, observation_dim)`` or one ``(observation_dim,)``; a torch
                tensor, numpy array or nested list. A policy with image inputs takes its inputs by name
                (a dict, as ``task.get_policy_inputs()`` returns them).
            deterministic: Take the Gaussian mean (clipped) instead of sampling.

        Returns:
            Actions of matching leading shape: a tensor on the input's device for tensor input,
            else a numpy array.
        """
        from simulo.rl.training.actors import run_actor  # noqa: PLC0415 - torch-heavy

        return run_actor(self._actor(), obs, self._device, deterministic, self._generator)

    def export_policy(self, path: str | os.PathLike[str]) -> str:
        """Write the deterministic actor (state standardisation folded in, actions clipped) to ``path``.

        ``.onnx`` writes ONNX (the ``export`` extra); ``.pt`` or ``.ts`` writes TorchScript. The file runs
        without this package: input ``obs`` ``(batch, observation_dim)`` float32, output ``actions``.

        Returns:
            The path written.

        Raises:
            SimuloValueError: The suffix is neither.
            MissingDependencyError: ONNX was asked for and onnx is not installed.
        """
        from simulo.rl.training.export import export_actor  # noqa: PLC0415 - torch-heavy

        return export_actor(self._actor(), path)

    def close(self) -> None:
        """Release the trainer (TensorBoard writer flushed; the environment stays open: close it yourself)."""
        if self._closed:
            return
        self._closed = True
        writer = getattr(self._agent, "writer", None)
        if writer is not None:
            writer.close()
        self._states = None
        self._running_return = None

    # ------------------------------------------------------------------ internals

    def _actor(self) -> DeterministicActor | ImageActor:
        from simulo.rl.training.agent import deterministic_actor  # noqa: PLC0415

        actor = deterministic_actor(self._agent, self._source.layout, self._networks)
        if actor is None:
            raise NotImplementedError("the policy's state_preprocessor is neither skrl's RunningStandardScaler nor "
                                      "None: it cannot be folded into a standalone actor")
        return actor

    @contextmanager
    def _own_rng(self) -> Iterator[None]:
        """Inside the block torch's global generator (which skrl samples from) runs this trainer's stream."""
        import torch  # noqa: PLC0415

        outer = torch.get_rng_state()
        torch.set_rng_state(self._rng_state)
        try:
            yield
        finally:
            self._rng_state = torch.get_rng_state()
            torch.set_rng_state(outer)

    def _check_open(self) -> None:
        if self._closed:
            raise SimuloError("this RLTrainer is closed: create a new one to train again")

    def _iteration(self, last_iteration: int) -> IterationTimes:
        """Run one iteration; returns where its wall-clock time went."""
        import torch  # noqa: PLC0415 - available: checked in __init__

        from simulo.rl.training.rollout import RolloutSpan, finished_returns, run_rollout  # noqa: PLC0415

        start = time.perf_counter()
        rollouts = int(self._cfg["rollouts"])
        span = RolloutSpan(self.iteration + 1, self.iteration * rollouts, rollouts, last_iteration * rollouts)
        if self._collector is not None:
            from simulo.rl.training.collector import collect_iteration  # noqa: PLC0415

            cost = collect_iteration(self._agent, self._collector, span, self._window.extend)
            self._count_iteration(rollouts)
            return runner_times(time.perf_counter() - start, cost.collect_wall_s, cost.runners.physics_s,
                                cost.runners.env_wall_s)
        physics, env_s = env_physics_time(self.env), 0.0
        if self._states is None:
            tick = time.perf_counter()
            self._states = self._source.states(reset_observations(self.env.reset()), "reset()")
            env_s = time.perf_counter() - tick
            self._running_return = torch.zeros(self.num_envs, device=self._device)
        running = self._running_return
        assert running is not None

        def record(rewards: Tensor, dones: Tensor, info: Any) -> None:
            self._window.extend(finished_returns(rewards, dones, info, running))

        self._states, stepping = run_rollout(self._agent, self.env, self._source, self._states, span, record)
        self._count_iteration(rollouts)
        now = env_physics_time(self.env)
        return local_times(time.perf_counter() - start, env_s + stepping,
                           None if now is None or physics is None else now - physics)

    def _count_iteration(self, rollouts: int) -> None:
        self.iteration += 1
        self.env_steps += rollouts * self.num_envs
        self.reward_history.append(sum(self._window) / len(self._window) if self._window else None)


def _default_log_dir(checkpoints: Path) -> Path:
    """``RUN/tensorboard`` for a job run's ``RUN/checkpoints``, else ``<checkpoint dir>/tensorboard``."""
    return (checkpoints.parent if checkpoints.name == "checkpoints" else checkpoints) / "tensorboard"

