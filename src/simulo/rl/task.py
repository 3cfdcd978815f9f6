"""``simulo.Task``: the learning problem, as a subclass with named lifecycle hooks.

The :class:`~simulo.rl.env.LearningEnv` drives a task like this::

    task.build(scene)                  # once: add robots, props, terrain
    task.on_start(env)                 # once: resolve joints, size buffers (num_envs, device are set)
    task.reset_idx(all envs)           # in env.reset()
    every env.step(actions):
        task.on_pre_physics_step(actions_copy)
        repeat physics_steps_per_action: task.apply_actions(actions_copy); physics step
        task.on_post_physics_step()
        terminated, truncated = task.get_dones()   # or ({name: mask}, truncated)
        rewards = task.get_rewards()
        finished environments: task.reset_idx(env_ids)
        observations = task.get_observations()

The runtime sets ``num_envs``, ``device``, ``max_episode_length``, ``episode_length_buf`` (steps since the
episode started, per environment) and ``reset_terminated`` (the last ``terminated`` mask) on the task.

Instead of ``get_observations``, ``get_rewards`` and ``get_dones``, a task may list components
(``simulo.ObservationComponent``, ``RewardComponent``, ``TerminationCondition``) in ``observation_components``,
``reward_components`` and ``termination_conditions``; :mod:`simulo.rl.task_components` composes them.
This module imports neither torch nor the engine, so app files that subclass Task import instantly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from simulo._sdk_protocols import TaskBase
from simulo.errors import TaskError
from simulo.rl import task_components


class TaskRuntime(Protocol):
    """What a running environment gives its task: the helpers behind :meth:`Task.random_uniform` and
    :meth:`Task.survived`. :class:`~simulo.rl.local_env.LocalEnv` implements it."""

    def random_uniform(self, low: float, high: float, size: tuple[int, ...], env_ids: Any) -> Any:
        """Draws ``(len(env_ids), *size)`` from the environments' seeded generators."""
        ...

    def survived_mask(self) -> Any:
        """Mask of environments whose episode is ending by the time limit."""
        ...


class Task(TaskBase):
    """Base class of learning tasks. Subclasses override the hooks they need.

    Class attributes:
        observation_dim: Width of one environment's observation vector (required, > 0).
        action_dim: Width of one environment's action vector (required, > 0).
        episode_length_s: Episode length in simulated seconds (time-limit truncation).
        physics_dt: Physics time step, s.
        physics_steps_per_action: Physics steps per policy step.
        env_spacing: Default distance between environment origins, m.
        policy_input_schema: Named actor (and critic) inputs (a ``simulo.PolicyInputSchema``), or ``None``:
            the policy and the critic see ``get_observations()``. With a schema the trainer feeds the policy
            ``get_policy_inputs()`` and, when the schema declares critic inputs, the critic
            ``get_critic_inputs()`` (an asymmetric actor-critic).
        observation_components: ``simulo.ObservationComponent`` instances whose values, side by side, are the
            observations when ``get_observations`` is not overridden (their widths add up to ``observation_dim``).
        reward_components: ``simulo.RewardComponent`` instances whose sum is the reward when ``get_rewards`` is
            not overridden.
        termination_conditions: ``simulo.TerminationCondition`` instances, reported by name, that end episodes
            when ``get_dones`` is not overridden (the time limit truncates them).

    Components are named by the SDK but not how a task lists them; these three names are simulo-local's,
    after the SDK's class names (Isaac Lab's managers call them observations, rewards and terminations). Give
    each task instance its own components, e.g. set them in ``on_start``: each is initialized once, before its
    first use, with :meth:`component_robot`, the device and the number of environments.
    """

    observation_dim: int = 0
    action_dim: int = 0
    episode_length_s: float = 5.0
    physics_dt: float = 1.0 / 120.0
    physics_steps_per_action: int = 2
    env_spacing: float = 4.0
    policy_input_schema: Any = None
    observation_components: Sequence[Any] = ()
    reward_components: Sequence[Any] = ()
    termination_conditions: Sequence[Any] = ()

    actions: Any = None
    """The last action batch the default :meth:`on_pre_physics_step` kept (components get it as ``prev_actions``)."""
    env: Any = None
    """The environment running this task (set before ``on_start``), else ``None``."""
    _runtime: TaskRuntime | None = None
    _checks: dict[str, Any] | None = None

    num_envs: int
    device: str
    max_episode_length: int
    episode_length_buf: Any
    reset_terminated: Any

    # -- hooks -------------------------------------------------------------------------------------
    def build(self, scene: Any) -> None:
        """Add this task's world to ``scene``. Must be overridden."""
        raise NotImplementedError(f"{type(self).__name__}.build(scene) must add the task's robots and objects")

    def on_start(self, env: Any) -> None:
        """One-time hook once the environment is live (robots attached)."""

    def on_pre_physics_step(self, actions: Any) -> None:
        """Process the policy's actions (a copy; may be modified in place) before physics advances.

        The default keeps them as :attr:`actions`.
        """
        self.actions = actions

    def apply_actions(self, actions: Any) -> None:
        """Write the actions to the robots; called before every physics step of an env step. Must be overridden."""
        raise NotImplementedError(f"{type(self).__name__}.apply_actions(actions) must drive the robots")

    def on_post_physics_step(self) -> None:
        """Run once per env step after physics, before dones, rewards and observations."""

    def get_observations(self) -> Any:
        """Observations (num_envs, observation_dim): override it, or list :attr:`observation_components`."""
        if not self.observation_components:
            raise NotImplementedError(f"{type(self).__name__}.get_observations() must return (num_envs, "
                                      "observation_dim), or the task must list observation_components")
        return task_components.observations(self)

    def get_policy_inputs(self) -> Any:
        """The actor's raw inputs: a batch, or a dict by declared name; defaults to :meth:`get_observations`."""
        return self.get_observations()

    def get_critic_inputs(self) -> Any:
        """The critic's raw inputs: a batch, or a dict by declared name; defaults to :meth:`get_policy_inputs`."""
        return self.get_policy_inputs()

    def get_rewards(self) -> Any:
        """Rewards (num_envs,): override it, or list :attr:`reward_components`."""
        if not self.reward_components:
            raise NotImplementedError(f"{type(self).__name__}.get_rewards() must return (num_envs,), or the task "
                                      "must list reward_components")
        return task_components.rewards(self)

    def get_dones(self) -> Any:
        """``(terminated, truncated)`` masks, or ``({name: terminated_mask}, truncated)``: override it, or list
        :attr:`termination_conditions`."""
        if not self.termination_conditions:
            raise NotImplementedError(f"{type(self).__name__}.get_dones() must return (terminated, truncated), or "
                                      "the task must list termination_conditions")
        return task_components.dones(self)

    def reset_idx(self, env_ids: Any) -> None:
        """Reset the listed environments to start states. Must be overridden."""
        raise NotImplementedError(f"{type(self).__name__}.reset_idx(env_ids) must reset those environments")

    def component_robot(self) -> Any:
        """The robot the task's components are initialized with: ``self.robot`` (override for another).

        Raises:
            TaskError: the task has no ``robot`` attribute.
        """
        robot = getattr(self, "robot", None)
        if robot is None:
            raise TaskError(f"{type(self).__name__} lists components, which read self.robot: set it in build(), "
                            "or override component_robot()")
        return robot

    # -- helpers the runtime provides ----------------------------------------------------------------
    def random_uniform(self, low: float, high: float, size: tuple[int, ...] = (), env_ids: Any = None) -> Any:
        """Uniform draws ``(len(env_ids), *size)`` from the environment's seeded generator.

        Use it for every random value of an episode so runs repeat for a given seed.
        """
        return self._require_runtime("random_uniform").random_uniform(low, high, tuple(size), env_ids)

    def check(self, label: str, mask: Any) -> Any:
        """Record a named success check (for ``@app.success`` rules) and return ``mask`` unchanged.

        Checks are recorded while an evaluation judges an episode; elsewhere (training, preview) the mask
        is only returned.
        """
        if not isinstance(label, str) or not label.strip():
            raise TaskError(f"task.check() needs a non-empty label, got {label!r}")
        if self._checks is not None:
            self._checks[label] = mask
        return mask

    def survived(self) -> Any:
        """Mask of environments whose episode is ending by the time limit, not by a termination."""
        return self._require_runtime("survived").survived_mask()

    def _require_runtime(self, member: str) -> TaskRuntime:
        if self._runtime is None:
            raise TaskError(f"task.{member}() is available once a LearningEnv runs the task (from on_start onward)")
        return self._runtime


def bind_runtime(task: Task, runtime: TaskRuntime | None) -> None:
    """Give ``task`` the environment that runs it (``None`` unbinds). Called by the environment, once.

    The binding is an attribute of the task instance, set here so that subclasses that never call
    ``Task.__init__`` still work.
    """
    task._runtime = runtime


@contextmanager
def recording_checks(task: Task) -> Iterator[dict[str, Any]]:
    """Collect the ``task.check(label, mask)`` calls made inside the block into the dict it yields."""
    checks: dict[str, Any] = {}
    previous, task._checks = task._checks, checks
    try:
        yield checks
    finally:
        task._checks = previous


def task_uses_torch(task: Task) -> bool:
    """True when the module defining the task's class imported torch (its tensors are then torch's)."""
    torch = sys.modules.get("torch")
    module = sys.modules.get(type(task).__module__)
    return torch is not None and module is not None and any(v is torch for v in vars(module).values())
