"""``simulo.LearningEnv``: steps a :class:`~simulo.Task` over ``num_envs`` environments in lock step.

Tensors crossing this interface are torch tensors when the task works in torch (its module imports
torch) and numpy arrays otherwise; ``tensor_library`` overrides the choice. Everything runs on the CPU:
an explicit ``device="cuda"`` prints one warning and falls back (the state buffers are CPU memory, with
or without CUDA), so cloud apps run unchanged.

Who steps the environments is a backend. By default it is a :class:`~simulo.rl.local_env.LocalEnv`
in this process. The job runner of ``simulo run --workers N`` installs another one for the job with
:func:`env_backend` (Ray rollout workers, :mod:`simulo.scale.ray_env`), so an app file runs unchanged
with and without the flag. An explicit ``shard`` always builds a local backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from simulo._sdk_protocols import LearningEnvBase
from simulo.errors import SimuloValueError
from simulo.rl.local_env import LocalEnv
from simulo.rl.task import Task
from simulo.sim.scene import Scene


class EnvBackend(Protocol):
    """The stepping surface a :class:`LearningEnv` delegates to."""

    num_envs: int
    task: Task
    return_final_observation: bool

    @property
    def device(self) -> str: ...
    @property
    def dt(self) -> float: ...
    @property
    def physics_dt(self) -> float: ...
    @property
    def physics_steps_per_action(self) -> int: ...
    @property
    def max_episode_length(self) -> int: ...
    @property
    def observation_dim(self) -> int: ...
    @property
    def action_dim(self) -> int: ...
    @property
    def scene(self) -> Scene: ...

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Any, dict[str, Any]]: ...
    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]: ...
    def observations(self) -> Any: ...
    def add_pre_reset_hook(self, hook: Callable[[Any], None]) -> None: ...
    def seeded_reset(self, env_id: int, episode_number: int) -> None: ...
    def close(self) -> None: ...


#: Builds a backend from LearningEnv's arguments: ``factory(task, num_envs, **options)``.
BackendFactory = Callable[..., EnvBackend]

_installed: list[BackendFactory] = []


@contextmanager
def env_backend(factory: BackendFactory) -> Iterator[None]:
    """Inside the block, every ``LearningEnv`` built without ``shard`` uses ``factory``'s backend.

    The job runner wraps a job in this when it shards environments over workers.
    """
    _installed.append(factory)
    try:
        yield
    finally:
        _installed.remove(factory)


class _UnnamedDevice(str):
    """The SDK's default ``device``, ``"cuda"``, when the caller names none: the CPU here, without a warning."""


class _UnnamedSpacing(float):
    """The SDK's default ``env_spacing``, 4.0, when the caller passes none: the task's ``env_spacing`` here."""


#: ``LearningEnv``'s defaults, the SDK's values, told apart from the same values passed explicitly.
DEFAULT_DEVICE = _UnnamedDevice("cuda")
DEFAULT_ENV_SPACING = _UnnamedSpacing(4.0)


def _refuse_sdk_only(render_mode: str | None, scene_usd: str | None, viewstream: Any,
                     time_limit_backstop: bool) -> None:
    """Refuse the SDK's parameters that have no local meaning unless they have their defaults."""
    if render_mode is not None:
        raise SimuloValueError(
            f"LearningEnv(render_mode={render_mode!r}): this environment renders no frames itself (gymnasium's "
            "render_mode); scene cameras render with enable_cameras=True, and simulo run --record-3d or "
            "RLPlayer.play(record=...) record the environments. Leave render_mode=None")
    if scene_usd is not None:
        raise SimuloValueError(
            f"LearningEnv(scene_usd={scene_usd!r}): a whole USD stage is not loaded as the scene here; the task's "
            "build(scene) builds it (robots from USD files: simulo.Asset.from_usd_file). Leave scene_usd=None")
    if viewstream is not None:
        raise SimuloValueError(
            f"LearningEnv(viewstream={viewstream!r}): the live view is the job's, not one environment's: "
            "simulo run --viewstream shows every LearningEnv the job builds. Leave viewstream=None")
    if not isinstance(time_limit_backstop, bool):
        raise SimuloValueError(f"LearningEnv(time_limit_backstop=...) must be True or False, got "
                               f"{time_limit_backstop!r}")


class LearningEnv(LearningEnvBase):
    """A vectorised environment over a task.

    The SDK's parameters come first, in its order and with its defaults; simulo-local's own are keyword-only.

    Args:
        task: The task instance.
        num_envs: Number of parallel environments.
        device: ``"cpu"`` or ``"cuda[:N]"``. The tensors live in the engine's CPU buffers: an explicit
            ``"cuda"`` warns once and runs on the CPU; the default (the SDK's ``"cuda"``) runs on the CPU
            without a warning, as before.
        dt: Physics step, s; defaults to ``task.physics_dt``.
        physics_steps_per_action: Physics steps per :meth:`step`; defaults to the task's.
        env_spacing: Distance between environment origins, m. When not passed, the task's ``env_spacing``
            (whose own default is the SDK's 4.0), so a task that sets its spacing keeps it; a value passed,
            4.0 included, overrides the task's.
        headless: Accepted for compatibility; the engine runs headless here.
        seed: Seed of the environment's random generators (resets, ``task.random_uniform``).
        render_mode: The SDK's (gymnasium's) render mode: only ``None`` here (no frames rendered by the env).
        scene_usd: The SDK's USD stage for the scene: only ``None`` here (the task's ``build`` builds it).
        viewstream: The SDK's live view of this environment: only ``None`` here, where ``simulo run
            --viewstream`` shows every environment of the job.
        enable_cameras: Accepted as the SDK's switch; cameras in the scene render either way (PyBullet's CPU
            TinyRenderer), and this env serves the policy cameras' frames (``camera_names``,
            ``read_policy_frames``, ``refresh_policy_frames``: the SDK's ``PolicyFrameSource``).
        time_limit_backstop: The SDK's, whose meaning it does not publish (by its name, the environment ending
            episodes at ``max_episode_length`` when the task's ``get_dones`` does not). Here the time limit always
            truncates (the task's default ``get_dones`` relies on it), with either value.
        tensor_library: ``"auto"`` (torch if the task's module uses torch), ``"torch"`` or ``"numpy"``.
        envs_per_world: Environments per engine world (see :class:`~simulo.Simulation`).
        shard: ``(first_env, total_envs)`` when this env steps one slice of a larger batch (Ray rollouts):
            environment ``k`` here is global environment ``first_env + k`` for origins, worlds and random
            streams, so the slice computes what those environments compute in a single process.
        engine: The physics engine by registered name (see :func:`simulo.engine.registry.available_engines`).

    Randomness: each environment draws from its own stream, seeded from ``(seed, global env index)``, so
    ``task.random_uniform`` gives the same values however the batch is split over processes.

    Attributes:
        task: The task this environment runs.
        num_envs: Number of parallel environments.

    Raises:
        SimuloValueError: A bad argument, or a value other than the default of ``render_mode``, ``scene_usd``
            or ``viewstream``. TaskError: the task's dimensions are not positive integers.
    """

    def __init__(self, task: Task, num_envs: int = 1, device: str = DEFAULT_DEVICE, dt: float | None = None,
                 physics_steps_per_action: int | None = None, env_spacing: float | None = DEFAULT_ENV_SPACING,
                 headless: bool = True, seed: int | None = 0, render_mode: str | None = None,
                 scene_usd: str | None = None, viewstream: Any = None, enable_cameras: bool = False,
                 time_limit_backstop: bool = False, *, tensor_library: str = "auto",
                 envs_per_world: int | None = None, shard: tuple[int, int] | None = None,
                 engine: str | None = None) -> None:
        _refuse_sdk_only(render_mode, scene_usd, viewstream, time_limit_backstop)
        options: dict[str, Any] = {
            "device": "cpu" if device is DEFAULT_DEVICE else device, "dt": dt,
            "physics_steps_per_action": physics_steps_per_action,
            "env_spacing": None if env_spacing is DEFAULT_ENV_SPACING else env_spacing, "headless": headless,
            "seed": seed, "enable_cameras": enable_cameras, "tensor_library": tensor_library,
            "envs_per_world": envs_per_world, "engine": engine}
        if shard is None and _installed:
            self._backend: EnvBackend = _installed[-1](task, num_envs, **options)
        else:
            self._backend = LocalEnv(task, num_envs, shard=shard, **options)
        # plain attributes, as the SDK's LearningEnvProtocol declares them (its implementation assigns them here)
        self.task: Task = self._backend.task
        self.num_envs: int = self._backend.num_envs

    @property
    def backend(self) -> EnvBackend:
        """What steps the environments: a ``LocalEnv`` here, or a sharded backend under ``--workers``."""
        return self._backend

    # -- properties --------------------------------------------------------------------------------
    @property
    def device(self) -> str:
        """Compute device of the batch tensors (always the CPU here)."""
        return self._backend.device

    @property
    def dt(self) -> float:
        """Simulated seconds per :meth:`step`."""
        return self._backend.dt

    @property
    def physics_dt(self) -> float:
        """Length of one physics step, s."""
        return self._backend.physics_dt

    @property
    def physics_steps_per_action(self) -> int:
        """Physics steps per :meth:`step`."""
        return self._backend.physics_steps_per_action

    @property
    def max_episode_length(self) -> int:
        """Episode length in env steps (``ceil(episode_length_s / dt)``)."""
        return self._backend.max_episode_length

    @property
    def observation_dim(self) -> int:
        """Width of one observation."""
        return self._backend.observation_dim

    @property
    def action_dim(self) -> int:
        """Width of one action."""
        return self._backend.action_dim

    @property
    def scene(self) -> Scene:
        """The scene the task built: everything that exists in the simulation (one environment's items,
        replicated ``num_envs`` times, plus the shared ones), with its ``env_origins``."""
        return self._backend.scene

    @property
    def return_final_observation(self) -> bool:
        """Whether :meth:`step` puts finished episodes' last observations in ``info["final_observation"]``."""
        return self._backend.return_final_observation

    @return_final_observation.setter
    def return_final_observation(self, flag: bool) -> None:
        self._backend.return_final_observation = bool(flag)

    # -- running -------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset every environment; returns ``(observations, info)``. ``seed`` reseeds the generators."""
        return self._backend.reset(seed, options)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Advance one policy step; returns ``(observations, rewards, terminated, truncated, info)``.

        Finished environments are reset before the observations are taken; ``info["episode"]`` holds the
        finished episodes' ``return`` and ``length``, ``info["time_outs"]`` the truncation mask, and
        ``info["terminations"]`` the named termination masks when the task names them.

        Raises:
            ShapeError / NonFiniteError: the actions are not (num_envs, action_dim) finite numbers.
            TaskError: a task method failed or returned a malformed value (names the method and step).
        """
        return self._backend.step(actions)

    def observations(self) -> Any:
        """The current observations (num_envs, observation_dim), e.g. after :meth:`seeded_reset`."""
        return self._backend.observations()

    def add_pre_reset_hook(self, hook: Callable[[Any], None]) -> None:
        """Call ``hook(env_ids)`` after dones are collected and before those environments reset."""
        self._backend.add_pre_reset_hook(hook)

    def seeded_reset(self, env_id: int, episode_number: int) -> None:
        """Reset one environment with generators seeded from ``(seed, episode_number)``: repeatable starts."""
        self._backend.seeded_reset(env_id, episode_number)

    def close(self) -> None:
        """Shut the environments down."""
        self._backend.close()

    def __getattr__(self, name: str) -> Any:
        """Members only one backend has (``sim``, ``tensors`` locally; ``workers`` on Ray)."""
        if name == "_backend":  # not built yet (a failed __init__)
            raise AttributeError(name)
        return getattr(self._backend, name)
