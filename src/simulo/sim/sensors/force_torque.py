"""``simulo.ForceTorqueSensor``: the wrench a robot body receives through its joint from its parent.

It reads the engine's joint reaction forces (PyBullet's joint force-torque sensors, switched on when the
simulation attaches the sensor): the force and torque the parent exerts on the body, in the body's frame,
about the body frame's origin (the joint). A mass hanging at rest from a joint reads ``m·g`` upwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.errors import SimuloValueError
from simulo.sim.hooks import SensorContext
from simulo.sim.sensors.base import Sensor

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData


class ForceTorqueSensor(Sensor):
    """Force (N) and torque (N·m) through the joint of one robot body, batched over environments.

    Attach it with ``robot.add_sensor(simulo.ForceTorqueSensor(), attach_to="wrist_link")``; the root body has
    no joint and is refused. Readings are those of the last physics step.

    Args:
        path: Scene path (set when the sensor is added).
        update_period: Seconds between updates (0: every physics step).
        enabled: Whether the sensor is active.
        debug_vis: Accepted for compatibility.
    """

    scene_mountable = False

    def __init__(self, path: str | None = None, update_period: float = 0.0, enabled: bool = True,
                 debug_vis: bool = False) -> None:
        super().__init__(path, update_period, None, enabled, debug_vis)

    def runtime_bind(self, data: RobotData, attach_to: str) -> None:
        """Mount on the one non-root body ``attach_to`` names (runtime hook).

        Raises:
            SimuloValueError: It names the root body or several bodies. NameNotFoundError: none.
        """
        super().runtime_bind(data, attach_to)
        if self._body == 0:
            raise SimuloValueError(f"ForceTorqueSensor {self.name!r}: {attach_to!r} is the root body, which has no "
                                   "joint to measure; attach it to a child body")

    def runtime_attach(self, context: SensorContext) -> None:
        """Switch the engine's joint sensor on (runtime hook)."""
        super().runtime_attach(context)
        assert self._data is not None
        self._data.batch.joint_wrenches([self._body])

    def read_wrench(self) -> Any:
        """``[fx, fy, fz, tx, ty, tz]`` (num_envs, 6) in the body frame."""
        ctx = self._require()
        assert self._data is not None
        return ctx.tensors.out(np.ascontiguousarray(self._data.batch.joint_wrenches([self._body])[:, 0]))

    def read_force(self) -> Any:
        """Force (num_envs, 3) on the body through its joint, body frame, N."""
        ctx = self._require()
        assert self._data is not None
        return ctx.tensors.out(np.ascontiguousarray(self._data.batch.joint_wrenches([self._body])[:, 0, :3]))

    def read_torque(self) -> Any:
        """Torque (num_envs, 3) on the body through its joint about the joint, body frame, N·m."""
        ctx = self._require()
        assert self._data is not None
        return ctx.tensors.out(np.ascontiguousarray(self._data.batch.joint_wrenches([self._body])[:, 0, 3:]))
