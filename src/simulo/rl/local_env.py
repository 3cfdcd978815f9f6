"""``LocalEnv``: the environments of a :class:`simulo.LearningEnv` stepped in this process, in lock step.

:class:`simulo.LearningEnv` builds one of these unless the job runner installed another backend (Ray
rollout workers under ``simulo run --workers N``); each Ray worker builds one for its shard.

Tensors crossing this interface are torch tensors when the task works in torch (its module imports
torch) and numpy arrays otherwise; ``tensor_library`` overrides the choice. Actions reach the task in its
library whatever the caller hands in (a trainer's torch actions become numpy arrays for a numpy task).
Everything runs on the CPU: ``device="cuda"`` prints one warning and falls back (the state buffers are CPU
memory, with or without CUDA), so cloud apps run unchanged.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from time import perf_counter
from typing import Any

import numpy as np

from simulo.checks import check_int, check_num_envs, is_int
from simulo.errors import NonFiniteError, SimuloValueError, TaskError, TaskNonFiniteError
from simulo.rl.devices import env_device
from simulo.rl.env_streams import MAX_SEED, EnvStreams
from simulo.rl.episodes import Episodes
from simulo.rl.policy_inputs import numeric_actor_inputs, task_schema
from simulo.rl.task import Task, bind_runtime, task_uses_torch
from simulo.rl.task_outputs import TaskOutputs
from simulo.sim.scene import Scene
from simulo.sim.sensors.attach import mark_stale
from simulo.sim.sensors.policy_frames import PolicyFrames
from simulo.sim.simulation import Simulation
from simulo.sim.tensors import Tensors, is_torch


class LocalEnv(PolicyFrames):
    """A vectorised environment over a task, stepped in this process (the backend of ``LearningEnv``).

    It takes :class:`simulo.LearningEnv`'s arguments, which documents them. The task sees this object as its
    environment (``task.env`` and ``on_start(env)``): it has the LearningEnv's members. It runs the task's hooks
    in the SDK's order; its collaborators hold the rest: the random streams
    (:class:`~simulo.rl.env_streams.EnvStreams`: each environment draws from its own stream, seeded from
    ``(seed, global env index)``, so ``task.random_uniform`` gives the same values however the batch is split
    over processes), the output checks (:class:`~simulo.rl.task_outputs.TaskOutputs`) and the episode
    bookkeeping (:class:`~simulo.rl.episodes.Episodes`).

    Task outputs are checked (:attr:`check_task_outputs`): non-numeric, NaN or infinite observations and rewards
    and done masks that are not booleans (or 0/1) raise a :class:`TaskError` naming the method and the step.

    Raises:
        SimuloValueError: A bad argument. TaskError: the task's dimensions are not positive integers.
    """

    #: Refuse malformed task outputs (see above). The evaluation and the preview turn it off: they report such
    #: outputs per episode or per check themselves.
    check_task_outputs = True

    def __init__(self, task: Task, num_envs: int = 1, device: str = "cpu", dt: float | None = None,
                 physics_steps_per_action: int | None = None, env_spacing: float | None = None,
                 headless: bool = True, seed: int | None = 0, enable_cameras: bool = False,
                 tensor_library: str = "auto", envs_per_world: int | None = None,
                 shard: tuple[int, int] | None = None, engine: str | None = None) -> None:
        if not isinstance(task, Task):
            raise SimuloValueError(f"LearningEnv needs a simulo.Task instance, got {task!r}")
        for name in ("observation_dim", "action_dim"):
            value = getattr(task, name, None)
            if not is_int(value, 1):
                raise TaskError(f"{type(task).__name__}.{name} must be a positive integer, got {value!r}")
        check_num_envs(num_envs)  # bounded by memory, before the task builds anything
        steps = task.physics_steps_per_action if physics_steps_per_action is None else physics_steps_per_action
        check_int(steps, "physics_steps_per_action", 1)
        if tensor_library not in ("auto", "torch", "numpy"):
            raise SimuloValueError(f"tensor_library must be 'auto', 'torch' or 'numpy', got {tensor_library!r}")
        if seed is not None and not is_int(seed, 0, MAX_SEED):
            raise SimuloValueError(f"seed must be an integer from 0 to 2**63 - 1, or None, got {seed!r}")
        physics_dt: Any = task.physics_dt if dt is None else dt  # anything a caller passes, checked next
        if isinstance(physics_dt, bool) or not isinstance(physics_dt, numbers.Real):
            source = "dt" if dt is not None else f"{type(task).__name__}.physics_dt"
            raise SimuloValueError(f"{source} must be a number of seconds > 0 (at most 1), got {physics_dt!r}")
        self._schema = task_schema(task)
        self.task = task
        self.num_envs = num_envs
        self._device = env_device(device)
        self.headless = headless
        use_torch = tensor_library == "torch" or (tensor_library == "auto" and task_uses_torch(task))
        self.tensors = Tensors(use_torch)
        self._physics_dt = float(physics_dt)
        self._steps = steps
        spacing = task.env_spacing if env_spacing is None else env_spacing
        if shard is not None and (not isinstance(shard, (tuple, list)) or len(shard) != 2
                                  or not all(is_int(v) for v in shard)):
            raise SimuloValueError(f"shard must be (first_env, total_envs) integers, got {shard!r}")
        self._streams = EnvStreams(num_envs, 0 if shard is None else shard[0])
        self._streams.reseed(seed)
        self._outputs = TaskOutputs(type(task).__name__, num_envs)
        self._scene = Scene(num_envs=num_envs, env_spacing=spacing)
        self.step_count = 0
        self._physics_time_s = 0.0
        self._call("build", self._scene)
        self.sim = Simulation(self._scene, dt=self._physics_dt, use_torch=use_torch, envs_per_world=envs_per_world,
                              shard=shard, engine=engine)
        try:  # a failure from here on must not leak the simulation's PyBullet clients
            self._start(task)
        except BaseException:
            self.sim.close()
            raise

    def _start(self, task: Task) -> None:
        """Size the episode buffers, hand the runtime's attributes to the task and run ``on_start``."""
        self.return_final_observation = False
        self._episodes = Episodes(self.num_envs)
        self._pre_reset_hooks: list[Callable[[Any], None]] = []
        task.num_envs = self.num_envs
        task.device = self._device
        task.max_episode_length = max(1, math.ceil(task.episode_length_s / self.dt))
        task.episode_length_buf = self.tensors.out(self._episodes.length)
        task.reset_terminated = self.tensors.out(self._episodes.terminated)
        bind_runtime(task, self)
        task.env = self
        self._call("on_start", self)

    # -- properties --------------------------------------------------------------------------------
    @property
    def device(self) -> str:
        """Compute device of the batch tensors (always the CPU here)."""
        return self._device

    @property
    def dt(self) -> float:
        """Simulated seconds per :meth:`step`."""
        return self._physics_dt * self._steps

    @property
    def physics_dt(self) -> float:
        """Length of one physics step, s."""
        return self._physics_dt

    @property
    def physics_steps_per_action(self) -> int:
        """Physics steps per :meth:`step`."""
        return self._steps

    @property
    def max_episode_length(self) -> int:
        """Episode length in env steps (``ceil(episode_length_s / dt)``)."""
        return self.task.max_episode_length

    @property
    def physics_time_s(self) -> float:
        """Wall seconds :meth:`step` has spent in the simulation's physics steps since the environment was built.

        That is the ``physics_steps_per_action`` calls of ``Simulation.step`` of every :meth:`step`: the command
        flush, the engine's step and the publication of the state objects callers hold. The rest of a step is the
        task's hooks and this environment's bookkeeping around them (the trainer's ``time_split``).
        """
        return self._physics_time_s

    @property
    def scene(self) -> Scene:
        """The scene the task built."""
        return self._scene

    @property
    def observation_dim(self) -> int:
        """Width of one observation."""
        return self.task.observation_dim

    @property
    def action_dim(self) -> int:
        """Width of one action."""
        return self.task.action_dim

    # -- running -------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset every environment; returns ``(observations, info)``. ``seed`` reseeds the generators."""
        if seed is not None:
            check_int(seed, "seed", 0, MAX_SEED)
            self._streams.reseed(seed)
        ids = np.arange(self.num_envs)
        self._reset(ids)
        return self._observations(), {}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Advance one policy step; returns ``(observations, rewards, terminated, truncated, info)``.

        Finished environments are reset before the observations are taken; ``info["episode"]`` holds the
        finished episodes' ``return`` and ``length``, ``info["time_outs"]`` the truncation mask, and
        ``info["terminations"]`` the named termination masks when the task names them.

        Raises:
            ShapeError / NonFiniteError: the actions are not (num_envs, action_dim) finite numbers.
            TaskError: a task method failed or returned a malformed value (names the method and step).
        """
        checked = self.tensors.floats(actions, (self.num_envs, self.task.action_dim), "actions")
        task_actions = self._to_task(checked)
        self._call("on_pre_physics_step", task_actions)
        for _ in range(self._steps):
            self._call("apply_actions", task_actions)
            tick = perf_counter()
            self.sim.step(1)
            self._physics_time_s += perf_counter() - tick
        self.step_count += 1
        episodes = self._episodes
        episodes.count_step()
        self._call("on_post_physics_step")
        terminated, truncated, named = self._outputs.dones(self._call("get_dones"), self.step_count,
                                                           self.check_task_outputs)
        truncated = episodes.end_step(terminated, truncated, self.max_episode_length)
        rewards = self._outputs.vector(self._call("get_rewards"), "get_rewards()", float, self.step_count,
                                       self.check_task_outputs)
        episodes.returns += rewards
        done = terminated | truncated
        info: dict[str, Any] = {"time_outs": self.tensors.out(truncated.copy())}
        if named:
            info["terminations"] = {k: self.tensors.out(v) for k, v in named.items()}
        ids = np.nonzero(done)[0]
        if ids.size:
            if self.return_final_observation:
                info["final_observation"] = self.tensors.out(self._outputs.array(
                    self._observations(), "observations", self.step_count)[ids].copy())
                info["final_env_ids"] = ids
            info["episode"] = {"return": self.tensors.out(episodes.returns[ids].copy()),
                               "length": self.tensors.out(episodes.length[ids].copy()),
                               "terminated": self.tensors.out(terminated[ids].copy())}
            for hook in self._pre_reset_hooks:
                hook(ids)
            self._reset(ids)
        obs = self._observations()
        return (obs, self.tensors.out(rewards.astype(np.float32)), self.tensors.out(terminated),
                self.tensors.out(truncated), info)

    def observations(self) -> Any:
        """The current observations (num_envs, observation_dim), e.g. after :meth:`seeded_reset`."""
        return self._observations()

    def add_pre_reset_hook(self, hook: Callable[[Any], None]) -> None:
        """Call ``hook(env_ids)`` after dones are collected and before those environments reset."""
        if not callable(hook):
            raise SimuloValueError(f"pre-reset hook must be callable, got {hook!r}")
        self._pre_reset_hooks.append(hook)

    def seeded_reset(self, env_id: int, episode_number: int) -> None:
        """Reset one environment with generators seeded from ``(seed, episode_number)``: repeatable starts.

        The environment's own stream (``task.random_uniform``) and, where the task uses torch, torch's global
        generator are seeded, so draws such as ``torch.empty(n).uniform_()`` in ``reset_idx`` repeat too.

        Raises:
            SimuloValueError: ``episode_number`` is not an integer from 0 to 2**63 - 1 (nothing is reset).
            EnvIdError: ``env_id`` is not one of the environments.
        """
        ids = self.tensors.env_ids([env_id], self.num_envs)
        self._streams.seed_episode(int(ids[0]), episode_number)
        self._reset(ids)

    def close(self) -> None:
        """Shut the simulation down."""
        self.sim.close()

    # -- internals ------------------------------------------------------------------------------------
    def _to_task(self, actions: np.ndarray) -> Any:
        if self.tensors.uses_torch:
            return self.tensors.out(actions.astype(np.float32))
        return actions

    def _reset(self, ids: np.ndarray) -> None:
        self._episodes.restart(ids)
        self.sim.runtime_reset_envs(ids)  # grippers let go before reset_idx moves what they held
        self._call("reset_idx", self.tensors.out(ids))
        mark_stale(self._scene, ids)  # cameras redraw the reset environments on their next read

    def random_uniform(self, low: float, high: float, size: tuple[int, ...], env_ids: Any) -> Any:
        """Uniform draws ``(len(env_ids), *size)``, each environment's row from its own seeded stream.

        Raises:
            SimuloValueError: ``low`` or ``high`` is not numbers of magnitude at most 1e12 (NaN, infinity, text);
                no stream is drawn from.
        """
        draw = self._streams.uniform(low, high, size, self.tensors.env_ids(env_ids, self.num_envs))
        return self.tensors.out(draw.astype(np.float32) if self.tensors.uses_torch else draw)

    def survived_mask(self) -> Any:
        """Environments whose episode is ending by the time limit, not by a termination (a copy)."""
        return self.tensors.out(self._episodes.time_limit.copy())

    def _task_hook(self, method: str) -> Callable[..., Any]:
        """The task's hook ``method``: every hook call goes through here, so a subclass may wrap them."""
        hook: Callable[..., Any] = getattr(self.task, method)
        return hook

    def _call(self, method: str, *args: Any) -> Any:
        """Call one task hook, turning its unexpected failures into a :class:`TaskError` naming it."""
        try:
            return self._task_hook(method)(*args)
        except (TaskError, NotImplementedError):
            raise
        except NonFiniteError as exc:  # stays a NonFiniteError, so the job's on_anomaly hears of it
            raise TaskNonFiniteError(f"{type(self.task).__name__}.{method}() failed at env step {self.step_count}: "
                                     f"{type(exc).__name__}: {exc}") from exc
        except Exception as exc:
            raise TaskError(f"{type(self.task).__name__}.{method}() failed at env step {self.step_count}: "
                            f"{type(exc).__name__}: {exc}") from exc

    def _observations(self) -> Any:
        if self._schema is not None:  # the actor's numeric inputs (see simulo.rl.policy_inputs)
            where = f"{type(self.task).__name__} at env step {self.step_count}"
            numeric = numeric_actor_inputs(self._schema, self._call("get_policy_inputs"), self.num_envs, where)
            if self.check_task_outputs:
                self._outputs.numbers(numeric, "get_policy_inputs()", self.step_count)
            return self.tensors.out(numeric.astype(np.float32))
        obs = self._call("get_observations")
        arr = self._outputs.observations(obs, self.task.observation_dim, self.step_count, self.check_task_outputs)
        if is_torch(obs):
            return obs.float()
        return self.tensors.out(arr.astype(np.float32))
