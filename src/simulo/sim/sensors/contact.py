"""``simulo.ContactSensor``: contact points between some bodies of a robot and a prop."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.errors import NotAttachedError, SimuloValueError
from simulo.sim.prop import Prop
from simulo.sim.variants import VariantBatch

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData


class ContactSensor:
    """Counts contact points between some bodies of a robot and a prop.

    Attach it with ``robot.add_sensor(ContactSensor(other=cube), attach_to="finger_.*")``: ``attach_to``
    is a body name or regex. :meth:`read` gives the total count per environment, :meth:`read_per_body`
    one column per matched body (in body order), :meth:`read_net_forces` the contact force on each body.

    Args:
        other: The prop whose contacts are counted.
        name: Sensor name.

    Raises:
        SimuloValueError: ``other`` is not a :class:`simulo.Prop`.
    """

    def __init__(self, other: Prop, name: str = "contacts") -> None:
        if not isinstance(other, Prop):
            raise SimuloValueError(f"ContactSensor.other must be a simulo.Prop, got {other!r}")
        self.other = other
        self._name = name
        self.path: str | None = None
        self.update_period = 0.0  # contacts are queried when read
        self.enabled = True
        self.debug_vis = False
        self._data: RobotData | None = None
        self._bodies: list[int] = []

    @property
    def name(self) -> str | None:
        """Sensor name."""
        return self._name

    @property
    def bodies(self) -> list[int]:
        """Indices of the robot bodies this sensor watches."""
        return list(self._bodies)

    def runtime_bind(self, data: RobotData, attach_to: str) -> None:
        """Find the watched bodies (runtime hook: the robot calls it when it is attached).

        Raises:
            NameNotFoundError: ``attach_to`` matches no body.
        """
        self._bodies = data.find_bodies(attach_to)
        self._data = data

    def _require(self) -> RobotData:
        if not self.enabled:
            raise SimuloValueError(f"contact sensor {self._name!r} is disabled (enabled=False)")
        if self._data is None or not self._data.attached or not self.other.runtime_attached:
            raise NotAttachedError("ContactSensor is read after the simulation has attached its robot and prop")
        return self._data

    def _contacts(self, data: RobotData, bodies: list[int] | None) -> np.ndarray:
        """Contact counts with the other prop; a prop with variants sums its options (parked ones touch nothing)."""
        other = self.other.data.batch
        options = other.batches if isinstance(other, VariantBatch) else [other]
        return np.sum([data.batch.contact_counts(o, bodies) for o in options], axis=0)

    def read_per_body(self) -> Any:
        """Contact points per watched body (num_envs, len(bodies))."""
        data = self._require()
        counts = self._contacts(data, self._bodies)
        return data.tensors.out(counts.astype(np.int64))

    def read(self) -> Any:
        """Total contact points with the prop per environment (num_envs,)."""
        data = self._require()
        if len(self._bodies) == len(data.body_names):
            counts = self._contacts(data, None)
        else:
            counts = self._contacts(data, self._bodies).sum(axis=1)
        return data.tensors.out(np.asarray(counts, dtype=np.int64))

    def read_net_forces(self) -> Any:
        """Net contact force (normal and friction) the prop exerts on each watched body in the last physics step:
        (num_envs, len(bodies), 3), world frame, N (Isaac Lab's ``net_forces_w``, filtered to the prop)."""
        data = self._require()
        other = self.other.data.batch
        options = other.batches if isinstance(other, VariantBatch) else [other]
        forces = np.sum([data.batch.contact_forces(self._bodies, o) for o in options], axis=0)
        return data.tensors.out(np.ascontiguousarray(forces))

    def update(self, dt: float) -> None:
        """Contacts are queried on read; nothing to refresh."""

    def reset(self) -> None:
        """A contact sensor has no internal state to clear."""
