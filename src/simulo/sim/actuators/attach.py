"""How a simulation connects the robots' actuators to the engine and the scene once the scene is built.

An actuator that needs more than its robot's data (a surface gripper needs the engine's welds and the props it
may hold) has a ``runtime_connect(context)`` hook; one that follows the physics has ``runtime_step(dt)``, which
the simulation calls after every physics step, once the robots and props have been refreshed. One that keeps state
across steps (a surface gripper's grip) has ``runtime_reset(env_ids)``, which an environment's reset calls
(:func:`reset_actuators`) before the task's ``reset_idx`` runs, and ``robot.reset(env_ids)`` calls for its own
actuators (:func:`reset_each`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from simulo._frozen import frozen_dataclass

if TYPE_CHECKING:
    import numpy as np

    from simulo.engine.base import Engine
    from simulo.sim.robot import Robot
    from simulo.sim.tensors import Tensors


@frozen_dataclass
class ActuatorContext:
    """What an actuator's ``runtime_connect`` gets.

    Attributes:
        engine: The simulation's engine.
        props: The simulation's attached props (``Prop`` and ``VariantProp``), in scene order.
        tensors: The simulation's tensor converter.
        clock: Simulated time now, s.
    """

    engine: Engine
    props: Sequence[Any]
    tensors: Tensors
    clock: Callable[[], float]


@runtime_checkable
class SteppedActuator(Protocol):
    """An actuator that follows the physics step by step."""

    def runtime_step(self, dt: float) -> None:
        """Update after a physics step of ``dt`` seconds (runtime hook)."""
        ...


def connect_actuators(robots: Sequence[Robot], context: ActuatorContext) -> list[SteppedActuator]:
    """Connect every actuator of ``robots`` that has a ``runtime_connect`` hook; returns those the simulation
    steps (the ones with a ``runtime_step`` hook), in robot and attachment order."""
    stepped: list[SteppedActuator] = []
    for robot in robots:
        for actuator in robot.actuators:
            connect = getattr(actuator, "runtime_connect", None)
            if connect is not None:
                connect(context)
            if isinstance(actuator, SteppedActuator):
                stepped.append(actuator)
    return stepped


def reset_actuators(robots: Sequence[Robot], env_ids: np.ndarray) -> None:
    """Reset what the actuators of ``robots`` keep across steps in the environments ``env_ids`` (local indices):
    call each one's ``runtime_reset`` hook, in robot and attachment order."""
    for robot in robots:
        reset_each(robot.actuators, env_ids)


def reset_each(actuators: Iterable[Any], env_ids: np.ndarray) -> None:
    """Call the ``runtime_reset(env_ids)`` hook of each of ``actuators`` that has one, in order (a surface
    gripper lets go in those environments)."""
    for actuator in actuators:
        reset = getattr(actuator, "runtime_reset", None)
        if reset is not None:
            reset(env_ids)
