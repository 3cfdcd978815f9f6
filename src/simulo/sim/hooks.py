"""Runtime hooks: how the scene, the simulation, robots, sensors and actuators call each other.

These Protocols name the members the runtime calls; apps never need them. Members named ``runtime_*``
are documented as runtime hooks on every class that has them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData


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
