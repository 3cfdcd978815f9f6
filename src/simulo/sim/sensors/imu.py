"""``simulo.IMU``: an inertial measurement unit on a robot body (Isaac Lab's ``Imu`` semantics).

After every physics step it takes the world velocity of its own point (the body frame's origin moved by the
offset) and differentiates it over the step. The linear acceleration it reports is that derivative plus
``gravity_bias`` (by default the upward 9.81 m/s² an accelerometer at rest feels), rotated into the sensor
frame; the angular velocity is the body's, in the sensor frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulo.errors import SimuloValueError
from simulo.math.batched import quat_rotate, quat_rotate_inverse
from simulo.sim.sensors.base import Sensor
from simulo.sim.sensors.offset import SensorOffset


class IMU(Sensor):
    """Linear acceleration and angular velocity of a point on a robot body, in the sensor frame.

    Attach it with ``robot.add_sensor(simulo.IMU(), attach_to="base")``.

    Args:
        path: Scene path (set when the sensor is added).
        update_period: Seconds between published readings (0: every physics step).
        offset: The sensor frame in the body frame.
        gravity_bias: World-frame acceleration added to the measured one, m/s² (Isaac Lab's default).
        enabled: Whether the sensor is active.
        debug_vis: Accepted for compatibility.

    Raises:
        SimuloValueError: ``gravity_bias`` is not three finite numbers.
    """

    scene_mountable = False

    def __init__(self, path: str | None = None, update_period: float = 0.0, offset: SensorOffset | None = None,
                 gravity_bias: tuple[float, float, float] = (0.0, 0.0, 9.81), enabled: bool = True,
                 debug_vis: bool = False) -> None:
        super().__init__(path, update_period, offset, enabled, debug_vis)
        bias = np.asarray(gravity_bias, dtype=np.float64) if isinstance(gravity_bias, (tuple, list)) else np.zeros(0)
        if bias.shape != (3,) or not np.isfinite(bias).all():
            raise SimuloValueError(f"IMU.gravity_bias must be three finite numbers (m/s²), got {gravity_bias!r}")
        self.gravity_bias = tuple(float(b) for b in bias)
        self._prev: np.ndarray | None = None
        self._acc_w: np.ndarray | None = None
        self._reading: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._since = 0.0
        self._restarted: np.ndarray | None = None  # rows reset since the last step: no difference across a teleport

    def _point_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sensor pose (N, 7), linear velocity of its point (N, 3) and angular velocity (N, 3), world frame."""
        mount = self.mount_poses()
        vel = self.mount_velocities()
        lever = quat_rotate(mount[:, 3:], np.tile(np.asarray(self._offset().pos), (len(mount), 1)))
        return self.sensor_poses(), vel[:, :3] + np.cross(vel[:, 3:], lever), vel[:, 3:]

    def update(self, dt: float) -> None:
        """Differentiate the point's velocity over the step just taken (the robot calls it)."""
        if self._ctx is None or not self.enabled:
            return
        pose, lin, ang = self._point_state()
        acc = np.zeros_like(lin) if self._prev is None else (lin - self._prev) / dt
        if self._restarted is not None:
            acc[self._restarted] = 0.0
            self._restarted = None
        self._prev = lin
        self._since += dt
        if self._reading is None or self._since >= self.update_period - 1e-12:
            self._since = 0.0
            self._reading = (pose, lin, ang, acc + np.asarray(self.gravity_bias))

    def _read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        self._require()
        if self._reading is None:  # no step yet: at rest as far as the sensor knows
            pose, lin, ang = self._point_state()
            self._reading = (pose, lin, ang, np.tile(np.asarray(self.gravity_bias), (len(pose), 1)))
        return self._reading

    def _out(self, value: np.ndarray) -> Any:
        return self._require().tensors.out(np.ascontiguousarray(value))

    def read_linear_acceleration(self) -> Any:
        """Linear acceleration plus ``gravity_bias`` in the sensor frame (num_envs, 3), m/s²."""
        pose, _, _, acc = self._read()
        return self._out(quat_rotate_inverse(pose[:, 3:], acc))

    def read_angular_velocity(self) -> Any:
        """Angular velocity in the sensor frame (num_envs, 3), rad/s."""
        pose, _, ang, _ = self._read()
        return self._out(quat_rotate_inverse(pose[:, 3:], ang))

    def read_linear_velocity(self) -> Any:
        """Linear velocity of the sensor's point in the sensor frame (num_envs, 3), m/s."""
        pose, lin, _, _ = self._read()
        return self._out(quat_rotate_inverse(pose[:, 3:], lin))

    def read_orientation(self) -> Any:
        """World orientation of the sensor frame (num_envs, 4), w-first."""
        return self._out(self._read()[0][:, 3:].copy())

    def read_projected_gravity(self) -> Any:
        """The unit gravity direction in the sensor frame (num_envs, 3)."""
        pose = self._read()[0]
        g = self._require().gravity()
        norm = np.linalg.norm(g, axis=1, keepdims=True)
        return self._out(quat_rotate_inverse(pose[:, 3:], g / np.where(norm > 0, norm, 1.0)))

    def runtime_restart(self, env_ids: Any) -> None:
        """These environments were reset (teleported): their next step's acceleration reads as zero plus the bias
        instead of a jump (runtime hook)."""
        if self._prev is not None:
            rows = np.zeros(len(self._prev), dtype=bool)
            rows[np.asarray(env_ids, dtype=np.int64)] = True
            self._restarted = rows if self._restarted is None else self._restarted | rows

    def reset(self) -> None:
        """Forget the previous velocity: the next step's acceleration reads as zero plus the bias."""
        self._prev = None
        self._reading = None
        self._since = 0.0
        self._restarted = None
