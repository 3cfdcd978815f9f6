"""How a :class:`simulo.Task` composes its observations, rewards and terminations from components.

A task that lists terms (:mod:`simulo.rl.components`) in ``observation_components``, ``reward_components`` or
``termination_conditions`` needs no ``get_observations``, ``get_rewards`` or ``get_dones`` of its own:

* observations: each component's ``compute(prev_actions)``, ``(num_envs, dim)``, side by side in the listed
  order; the widths add up to the task's ``observation_dim``;
* rewards: the sum of each component's ``compute(prev_actions, terminated)``, ``terminated`` being the
  environments the task's terminations ended this step;
* dones: ``({name: check()}, truncated)``, each condition under its ``name`` (its class name when ``None``),
  ``truncated`` the time limit (the step counter reached ``max_episode_length - 1``).

``prev_actions`` is the task's ``actions``: the batch its ``on_pre_physics_step`` kept (zeros before the first
step). Each term is initialized once, before its first use, with ``task.component_robot()``, the task's
device and number of environments.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from simulo.errors import TaskError
from simulo.rl.components import ObservationComponent, RewardComponent, TerminationCondition

#: A running :class:`simulo.Task` (typed loosely: :mod:`simulo.rl.task` imports this module).
Task = Any


def _is_torch(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "torch"


def _ready(task: Task, attribute: str, base: type) -> Sequence[Any]:
    """The task's terms listed in ``attribute``, each checked against ``base`` and initialized once."""
    terms = getattr(task, attribute)
    name = type(task).__name__
    if isinstance(terms, (str, bytes)) or not isinstance(terms, Sequence):
        raise TaskError(f"{name}.{attribute} must be a list of simulo.{base.__name__}, got {terms!r}")
    for term in terms:
        if not isinstance(term, base):
            raise TaskError(f"{name}.{attribute} holds {term!r}, which is not a simulo.{base.__name__}")
    ready: dict[int, Any] = task.__dict__.setdefault("_initialized_terms", {})  # id -> term, kept alive
    fresh = [term for term in terms if ready.get(id(term)) is not term]
    if fresh:
        robot = task.component_robot()
        for term in fresh:
            term.initialize(robot, task.device, task.num_envs)
            ready[id(term)] = term
    if task.actions is None:
        task.actions = _zeros(task, (task.num_envs, task.action_dim))
    return terms


def _zeros(task: Task, shape: tuple[int, ...]) -> Any:
    """Zeros in the task's tensor library: torch's when the environment hands the task torch tensors."""
    if _is_torch(task.episode_length_buf):
        return sys.modules["torch"].zeros(shape, device=task.device)
    import numpy as np  # noqa: PLC0415 - a task module imports instantly, numpy is loaded by the environment

    return np.zeros(shape, dtype=np.float32)


def _shape(value: Any) -> tuple[int, ...] | None:
    shape = getattr(value, "shape", None)
    return None if shape is None else tuple(int(n) for n in shape)


def observations(task: Task) -> Any:
    """The task's observation components' values side by side, ``(num_envs, observation_dim)``.

    Raises:
        TaskError: a term is not an ObservationComponent, its ``dim`` or batch shape is wrong, or the widths do
            not add up to ``observation_dim``.
    """
    terms = _ready(task, "observation_components", ObservationComponent)
    name = type(task).__name__
    pieces, total = [], 0
    for term in terms:
        width = term.dim(term.robot)
        piece = term.compute(task.actions)
        shape = _shape(piece)
        if shape != (task.num_envs, width):
            raise TaskError(f"{type(term).__name__}.compute() returned shape {shape}; its dim() is {width!r}, so "
                            f"{name} needs ({task.num_envs}, {width})")
        pieces.append(piece)
        total += width
    if total != task.observation_dim:
        raise TaskError(f"{name}.observation_components add up to {total} values, but observation_dim is "
                        f"{task.observation_dim}")
    if _is_torch(pieces[0]):
        return sys.modules["torch"].cat(pieces, dim=1)
    import numpy as np  # noqa: PLC0415 - see _zeros

    return np.concatenate([np.asarray(p) for p in pieces], axis=1)


def rewards(task: Task) -> Any:
    """The sum of the task's reward components, ``(num_envs,)``.

    Raises:
        TaskError: a term is not a RewardComponent or returned a batch of the wrong shape.
    """
    terms = _ready(task, "reward_components", RewardComponent)
    total: Any = None
    for term in terms:
        value = term.compute(task.actions, task.reset_terminated)
        if _shape(value) != (task.num_envs,):
            raise TaskError(f"{type(term).__name__}.compute() returned shape {_shape(value)}; "
                            f"{type(task).__name__} needs ({task.num_envs},)")
        total = value if total is None else total + value
    return total


def dones(task: Task) -> tuple[dict[str, Any], Any]:
    """``({name: mask}, truncated)`` from the task's termination conditions and its time limit.

    Raises:
        TaskError: a term is not a TerminationCondition, two share a name, or one returned a wrong batch.
    """
    terms = _ready(task, "termination_conditions", TerminationCondition)
    named: dict[str, Any] = {}
    for term in terms:
        label = term.name if term.name is not None else type(term).__name__
        if label in named:
            raise TaskError(f"{type(task).__name__}.termination_conditions has two conditions named {label!r}; "
                            "give each its own name=")
        mask = term.check()
        if _shape(mask) != (task.num_envs,):
            raise TaskError(f"{type(term).__name__}.check() returned shape {_shape(mask)}; "
                            f"{type(task).__name__} needs ({task.num_envs},)")
        named[label] = mask
    return named, task.episode_length_buf >= task.max_episode_length - 1
