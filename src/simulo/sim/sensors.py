"""Sensors attached to robots with ``robot.add_sensor(sensor, attach_to=...)``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.errors import NotAttachedError, SimuloValueError

if TYPE_CHECKING:
    from simulo.sim.prop import Prop
    from simulo.sim.robot import Robot


class ContactSensor:
    """Counts contact points between some bodies of a robot and a prop.

    Attach it with ``robot.add_sensor(ContactSensor(other=cube), attach_to="finger_.*")``: ``attach_to``
    is a body name or regex. :meth:`read` gives the total count per environment, :meth:`read_per_body`
    one column per matched body (in body order).

    Args:
        other: The prop whose contacts are counted.
        name: Sensor name.
    """

    def __init__(self, other: "Prop", name: str = "contacts") -> None:
        from simulo.sim.prop import Prop

        if not isinstance(other, Prop):
            raise SimuloValueError(f"ContactSensor.other must be a simulo.Prop, got {other!r}")
        self.other = other
        self._name = name
        self.path: str | None = None
        self.update_period = 0.0  # contacts are queried when read
        self.enabled = True
        self.debug_vis = False
        self._robot: Robot | None = None
        self._bodies: list[int] = []

    @property
    def name(self) -> str | None:
        """Sensor name."""
        return self._name

    @property
    def bodies(self) -> list[int]:
        """Indices of the robot bodies this sensor watches."""
        return list(self._bodies)

    def _bind(self, robot: "Robot", attach_to: str) -> None:
        self._robot = robot
        self._bodies = robot.find_bodies(attach_to)

    def _require(self) -> "Robot":
        if not self.enabled:
            raise SimuloValueError(f"contact sensor {self._name!r} is disabled (enabled=False)")
        if self._robot is None or self._robot._rt is None or self.other._rt is None:
            raise NotAttachedError("ContactSensor is read after the simulation has attached its robot and prop")
        return self._robot

    def read_per_body(self) -> Any:
        """Contact points per watched body (num_envs, len(bodies))."""
        robot = self._require()
        rt = robot._rt
        assert rt is not None and self.other._rt is not None
        counts = rt.batch.contact_counts(self.other._rt.batch, [b - 1 for b in self._bodies])
        return rt.tensors.out(counts.astype(np.int64))

    def read(self) -> Any:
        """Total contact points with the prop per environment (num_envs,)."""
        robot = self._require()
        rt = robot._rt
        assert rt is not None and self.other._rt is not None
        if len(self._bodies) == len(rt.body_names):
            counts = rt.batch.contact_counts(self.other._rt.batch, None)
        else:
            counts = rt.batch.contact_counts(self.other._rt.batch, [b - 1 for b in self._bodies]).sum(axis=1)
        return rt.tensors.out(np.asarray(counts, dtype=np.int64))

    def update(self, dt: float) -> None:
        """Contacts are queried on read; nothing to refresh."""

    def reset(self) -> None:
        """A contact sensor has no internal state to clear."""
