"""What every sensor shares: identity, where it is mounted, and the hooks the runtime calls.

A sensor is mounted in one of three ways:

* on a robot body: ``robot.add_sensor(sensor, attach_to="body_name")`` (the robot binds it to its data);
* in every environment: ``scene.add(sensor, at="/World/...")`` (poses relative to each environment's origin);
* once, shared: ``scene.add(sensor, at=..., per_environment=False)`` (poses in world coordinates).

The simulation hands each sensor a :class:`~simulo.sim.hooks.SensorContext` once the scene is built
(``runtime_attach``). This module imports numpy only inside methods, so that naming ``simulo.Camera`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simulo.errors import NotAttachedError, SimuloValueError
from simulo.sim.hooks import SensorContext
from simulo.sim.sensors.offset import SensorOffset

if TYPE_CHECKING:
    import numpy as np

    from simulo.sim.robot_data import RobotData


def check_period(value: Any) -> float:
    """``update_period`` as a float >= 0 s."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        raise SimuloValueError(f"update_period must be a finite number of seconds >= 0, got {value!r}")
    return float(value)


class Sensor:
    """Base of simulo's sensors (the SDK's ``SensorProtocol``): identity, mount and runtime hooks.

    Args:
        path: Scene path (set by the scene or the robot when the sensor is added).
        update_period: Seconds between updates (0: every physics step).
        offset: Where the sensor sits in the frame it is attached to (identity when ``None``).
        enabled: Whether the sensor is active; reading a disabled sensor raises.
        debug_vis: Accepted for compatibility; nothing is drawn.
    """

    #: Whether the sensor can be added to the scene itself (not only to a robot body).
    scene_mountable = True

    def __init__(self, path: str | None = None, update_period: float = 0.0, offset: SensorOffset | None = None,
                 enabled: bool = True, debug_vis: bool = False) -> None:
        if offset is not None and not isinstance(offset, SensorOffset):
            raise SimuloValueError(f"offset must be a simulo.SensorOffset or None, got {offset!r}")
        self.path = path
        self.update_period = check_period(update_period)
        self.offset = offset
        self.enabled = bool(enabled)
        self.debug_vis = bool(debug_vis)
        self._data: RobotData | None = None
        self._body = -1
        self._ctx: SensorContext | None = None
        #: world poses of a sensor added to the scene, which never move (keyed by ``camera`` and the offset)
        self._fixed_poses: dict[tuple[bool, SensorOffset | None], np.ndarray] = {}

    @property
    def name(self) -> str | None:
        """The last component of the sensor's path (set when it is added to a scene or robot)."""
        return self.path.rstrip("/").rsplit("/", 1)[-1] if self.path else None

    @property
    def body(self) -> int:
        """Index of the robot body the sensor is mounted on (-1 when it is not on a robot)."""
        return self._body

    def _offset(self) -> SensorOffset:
        return self.offset if self.offset is not None else SensorOffset()

    # -- runtime hooks --------------------------------------------------------------------------------
    @property
    def runtime_attached(self) -> bool:
        """Whether a simulation has attached the sensor (runtime hook)."""
        return self._ctx is not None

    def runtime_set_path(self, path: str) -> None:
        """Take the scene path the sensor was added at (runtime hook)."""
        self.path = path

    def runtime_bind(self, data: RobotData, attach_to: str) -> None:
        """Mount on the one body ``attach_to`` names (runtime hook: the robot calls it).

        Raises:
            NameNotFoundError: ``attach_to`` matches no body. SimuloValueError: it matches several.
        """
        bodies = data.find_bodies(attach_to)
        if len(bodies) != 1:
            raise SimuloValueError(f"{type(self).__name__} {self.name!r} mounts on one body; attach_to={attach_to!r} "
                                   f"matches {[data.body_names[b] for b in bodies]}")
        self._data, self._body = data, bodies[0]

    def runtime_attach(self, context: SensorContext) -> None:
        """Take the simulation's context (runtime hook: the simulation calls it once the scene is built)."""
        self._ctx = context
        self._fixed_poses = {}

    def runtime_detach(self) -> None:
        """Forget the simulation (runtime hook)."""
        self._ctx = None
        self._data = None

    def _require(self) -> SensorContext:
        if not self.enabled:
            raise SimuloValueError(f"{type(self).__name__} {self.name!r} is disabled (enabled=False)")
        if self._ctx is None:
            raise NotAttachedError(f"{type(self).__name__} {self.name!r} is read after a simulation has built its "
                                   "scene (from on_start onward / after simulo.Simulation(scene))")
        return self._ctx

    @property
    def count(self) -> int:
        """Rows of a reading: num_envs, or 1 for a shared sensor."""
        ctx = self._require()
        return ctx.num_envs if self._data is not None or ctx.per_environment else 1

    def mount_poses(self) -> np.ndarray:
        """World pose of the frame the sensor is attached to, (count, 7) ``[x, y, z, qw, qx, qy, qz]``."""
        import numpy as np

        ctx = self._require()
        if self._data is not None:
            data = self._data
            if self._body == 0:
                return np.asarray(data.pose, dtype=np.float64).copy()
            poses, _ = data.batch.read_bodies([self._body], range(data.num_envs), False)
            return poses[:, 0]
        frame = np.tile(np.asarray(ctx.frame, dtype=np.float64), (self.count, 1))
        if ctx.per_environment:
            frame[:, :3] += ctx.origins
        return frame

    def mount_velocities(self) -> np.ndarray:
        """World velocity ``[vx, vy, vz, wx, wy, wz]`` of the attachment frame's origin (count, 6); zero off a robot."""
        import numpy as np

        if self._data is None:
            return np.zeros((self.count, 6))
        data = self._data
        if self._body == 0:
            return np.concatenate([np.asarray(data.lin_vel, np.float64), np.asarray(data.ang_vel, np.float64)], 1)
        _, vel = data.batch.read_bodies([self._body], range(data.num_envs), True)
        assert vel is not None
        return vel[:, 0]

    def sensor_poses(self, camera: bool = False) -> np.ndarray:
        """World pose of the sensor frame (count, 7): the mount composed with :attr:`offset`; a new array."""
        import numpy as np

        from simulo.math.batched import pose_mul

        key = (camera, self.offset)
        fixed = self._fixed_poses.get(key) if self._data is None else None
        if fixed is not None:
            return fixed.copy()
        mount = self.mount_poses()
        local = np.tile(np.asarray(self._offset().pose(camera), dtype=np.float64), (len(mount), 1))
        poses = pose_mul(mount, local)
        if self._data is None:
            self._fixed_poses[key] = poses.copy()
        return poses

    def update(self, dt: float) -> None:
        """Refresh after a physics step of ``dt`` s (the runtime calls it); sensors that compute on read do nothing."""

    def reset(self) -> None:
        """Clear the sensor's internal state."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(path={self.path!r}, attached={self._ctx is not None})"
