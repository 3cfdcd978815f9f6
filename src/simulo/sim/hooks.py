"""Runtime hooks: how the scene, the simulation, robots, sensors and actuators call each other.

These Protocols name the members the runtime calls, and the contexts it hands them; apps never need them.
Members named ``runtime_*`` are documented as runtime hooks on every class that has them. The sensors and
actuators themselves are add-ons (:mod:`simulo.sim.sensors`, :mod:`simulo.sim.actuators`) that implement these
hooks; nothing here knows them.

An actuator that needs more than its robot's data (a surface gripper needs the engine's welds and the props it
may hold) has a ``runtime_connect(context)`` hook (:func:`connect_actuators`); one that follows the physics has
``runtime_step(dt)`` (:class:`SteppedActuator`), which the simulation calls after every physics step, once the
robots and props have been refreshed. One that keeps state across steps (a surface gripper's grip) has
``runtime_reset(env_ids)`` (:func:`reset_each`), which an environment's reset calls before the task's
``reset_idx`` runs, and ``robot.reset(env_ids)`` calls for its own actuators.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from simulo.frozen import frozen_dataclass

if TYPE_CHECKING:
    import numpy as np

    from simulo.engine.base import Engine
    from simulo.sim.robot_data import RobotData
    from simulo.sim.tensors import Tensors


@runtime_checkable
class SceneMember(Protocol):
    """An item the simulation builds in the engine (a Robot or a Prop)."""

    @property
    def runtime_attached(self) -> bool:
        """Whether a simulation has attached the item."""
        ...

    def runtime_set_path(self, path: str) -> None:
        """Take the scene path the item was added at (its name is the last component)."""
        ...

    def runtime_detach(self) -> None:
        """Forget the engine objects (the simulation is closing)."""
        ...

    def reset(self, env_ids: Any = None) -> None:
        """Write the item's defaults for ``env_ids``."""
        ...

    def update(self, dt: float) -> None:
        """Refresh the state buffers after a physics step."""
        ...


@runtime_checkable
class RobotAttachment(Protocol):
    """A sensor or actuator that a robot binds to its data once the robot is attached."""

    path: str | None

    @property
    def name(self) -> str | None:
        """The sensor's or actuator's name (the last component of its scene path)."""
        ...

    def runtime_bind(self, data: RobotData, attach_to: str) -> None:
        """Bind to the robot's data; ``attach_to`` is the body name or pattern given to the robot."""
        ...


@runtime_checkable
class RobotSensor(RobotAttachment, Protocol):
    """A sensor: a robot attachment the robot refreshes after every physics step."""

    def update(self, dt: float) -> None:
        """Refresh after a physics step of ``dt`` seconds."""
        ...


# -- sensors -----------------------------------------------------------------------------------------------
@frozen_dataclass
class SensorContext:
    """What the simulation gives a sensor when it attaches it (runtime API).

    Attributes:
        engine: The engine (renders and casts rays).
        tensors: Output converter.
        num_envs: Number of environments.
        origins: Environment origins (num_envs, 3).
        clock: Simulated time in seconds now.
        gravity: Gravity of every environment (num_envs, 3), m/s².
        labels: Engine object label -> scene path (see :class:`simulo.engine.base.CameraFrames`).
        per_environment: For a sensor added to the scene: copied into every environment, or shared.
        frame: For a sensor added to the scene: the pose of the Transform above it (identity when none).
    """

    engine: Engine
    tensors: Tensors
    num_envs: int
    origins: np.ndarray
    clock: Callable[[], float]
    gravity: Callable[[], np.ndarray]
    labels: dict[int, str]
    per_environment: bool = True
    frame: tuple[float, ...] = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)


@runtime_checkable
class SimulationSensor(Protocol):
    """A sensor the simulation gives its :class:`SensorContext` once the scene is built (every simulo sensor, on a
    robot body or in the scene)."""

    path: str | None

    @property
    def scene_mountable(self) -> bool:
        """Whether the sensor can be added to the scene itself (not only to a robot body)."""
        ...

    def runtime_attach(self, context: SensorContext) -> None:
        """Take the simulation's context."""
        ...

    def runtime_detach(self) -> None:
        """Forget the simulation (it is closing)."""
        ...


# -- actuators ---------------------------------------------------------------------------------------------
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


def connect_actuators(actuators: Iterable[Any], context: ActuatorContext) -> list[SteppedActuator]:
    """Connect each of ``actuators`` that has a ``runtime_connect`` hook; returns those the simulation steps (the
    ones with a ``runtime_step`` hook), in order."""
    stepped: list[SteppedActuator] = []
    for actuator in actuators:
        connect = getattr(actuator, "runtime_connect", None)
        if connect is not None:
            connect(context)
        if isinstance(actuator, SteppedActuator):
            stepped.append(actuator)
    return stepped


def reset_each(actuators: Iterable[Any], env_ids: np.ndarray) -> None:
    """Call the ``runtime_reset(env_ids)`` hook of each of ``actuators`` that has one, in order (a surface
    gripper lets go in those environments)."""
    for actuator in actuators:
        reset = getattr(actuator, "runtime_reset", None)
        if reset is not None:
            reset(env_ids)
