"""``simulo.RayCaster`` and ``simulo.RayPattern``: straight rays cast from a sensor frame (height scans, lidar).

Isaac Lab's ``RayCaster``: the pattern gives ray starts and directions in the sensor frame; each reading casts
them from the sensor's current pose (only its yaw with ``attach_yaw_only``) with the engine's batched ray test
(PyBullet's ``rayTestBatch``, one call per world). A ray hits its own environment's objects and the shared
terrain (only the terrain with ``terrain_only``); a miss reads ``inf``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulo.errors import SimuloValueError
from simulo.math.batched import quat_rotate
from simulo.sim.sensors.base import Sensor
from simulo.sim.sensors.offset import SensorOffset


def _rows(value: Any, what: str) -> tuple[tuple[float, float, float], ...]:
    arr = np.asarray(value, dtype=np.float64) if not isinstance(value, str) else np.zeros(0)
    if arr.ndim != 2 or arr.shape[1] != 3 or not len(arr) or not np.isfinite(arr).all():
        raise SimuloValueError(f"RayPattern {what} must be a non-empty list of (x, y, z) finite numbers")
    return tuple((float(a), float(b), float(c)) for a, b, c in arr)


@dataclass(frozen=True)
class RayPattern:
    """Ray starts and unit directions in the sensor frame.

    Args:
        starts: Ray start points (R, 3), m.
        directions: Ray directions (R, 3); normalised.

    Raises:
        SimuloValueError: Bad shapes, non-finite values, unequal lengths or a zero direction.
    """

    starts: tuple[tuple[float, float, float], ...]
    directions: tuple[tuple[float, float, float], ...]

    def __post_init__(self) -> None:
        starts, directions = _rows(self.starts, "starts"), _rows(self.directions, "directions")
        if len(starts) != len(directions):
            raise SimuloValueError(f"RayPattern needs as many starts ({len(starts)}) as directions ({len(directions)})")
        d = np.asarray(directions)
        norm = np.linalg.norm(d, axis=1)
        if (norm < 1e-9).any():
            raise SimuloValueError("RayPattern directions must be non-zero")
        object.__setattr__(self, "starts", starts)
        object.__setattr__(self, "directions", _rows(d / norm[:, None], "directions"))

    @property
    def num_rays(self) -> int:
        """Number of rays."""
        return len(self.starts)

    @classmethod
    def grid(cls, resolution: float, size: Sequence[float], direction: Sequence[float] = (0.0, 0.0, -1.0)
             ) -> RayPattern:
        """Parallel rays from a grid in the sensor's x-y plane (a height scan): ``size`` ``(length, width)`` m,
        one ray every ``resolution`` m, ordered x fastest, the grid centred on the sensor."""
        if isinstance(resolution, bool) or not isinstance(resolution, (int, float)) or not 0 < resolution < math.inf:
            raise SimuloValueError(f"RayPattern.grid resolution must be a number > 0 m, got {resolution!r}")
        length, width = (float(v) for v in size)
        xs = np.arange(-length / 2, length / 2 + 1e-9, resolution)
        ys = np.arange(-width / 2, width / 2 + 1e-9, resolution)
        gx, gy = np.meshgrid(xs, ys, indexing="xy")
        starts = np.stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)], axis=1)
        directions = np.tile(np.asarray(direction, dtype=np.float64), (len(starts), 1))
        return cls(_rows(starts, "starts"), _rows(directions, "directions"))

    @classmethod
    def lidar(cls, channels: int, vertical_fov_range: Sequence[float], horizontal_fov_range: Sequence[float] = (
            -180.0, 180.0), horizontal_res: float = 10.0) -> RayPattern:
        """Rays from the sensor's origin: ``channels`` elevations over ``vertical_fov_range`` degrees and one
        azimuth every ``horizontal_res`` degrees over ``horizontal_fov_range`` (x forward, z up)."""
        if isinstance(channels, bool) or not isinstance(channels, int) or channels < 1:
            raise SimuloValueError(f"RayPattern.lidar channels must be an integer >= 1, got {channels!r}")
        lo, hi = (math.radians(float(v)) for v in vertical_fov_range)
        h_lo, h_hi = (float(v) for v in horizontal_fov_range)
        count = max(1, math.ceil((h_hi - h_lo) / float(horizontal_res) - 1e-9))
        if abs((h_hi - h_lo) - 360.0) > 1e-9:
            count += 1  # an open sweep includes both ends
        azimuths = np.radians(h_lo + np.arange(count) * float(horizontal_res))
        elevations = np.linspace(lo, hi, channels)
        el, az = np.meshgrid(elevations, azimuths, indexing="ij")
        dirs = np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], axis=-1).reshape(-1, 3)
        return cls(_rows(np.zeros_like(dirs), "starts"), _rows(dirs, "directions"))


class RayCaster(Sensor):
    """Distances and hit points of a :class:`RayPattern`, batched over environments.

    Mount it on a robot body (``robot.add_sensor(..., attach_to="base")``) or add it to the scene.

    Args:
        pattern: The rays in the sensor frame.
        path: Scene path (set when the sensor is added).
        offset: The sensor frame in the frame it is mounted in.
        max_distance: Length of every ray, m.
        attach_yaw_only: Follow only the mount's yaw (a height scanner that stays level).
        terrain_only: Hit only the terrain (ground planes and height fields), not robots or props.
        update_period: Seconds between updates (0: every physics step; rays are cast when read).
        enabled: Whether the sensor is active.
        debug_vis: Accepted for compatibility.
    """

    def __init__(self, pattern: RayPattern, path: str | None = None, offset: SensorOffset | None = None,
                 max_distance: float = 100.0, attach_yaw_only: bool = False, terrain_only: bool = False,
                 update_period: float = 0.0, enabled: bool = True, debug_vis: bool = False) -> None:
        super().__init__(path, update_period, offset, enabled, debug_vis)
        if not isinstance(pattern, RayPattern):
            raise SimuloValueError(f"RayCaster.pattern must be a simulo.RayPattern, got {pattern!r}")
        if isinstance(max_distance, bool) or not isinstance(max_distance, (int, float)) \
                or not 0 < max_distance < math.inf:
            raise SimuloValueError(f"RayCaster.max_distance must be a finite number > 0 m, got {max_distance!r}")
        self.pattern = pattern
        self.max_distance = float(max_distance)
        self.attach_yaw_only = bool(attach_yaw_only)
        self.terrain_only = bool(terrain_only)

    def _frame(self) -> np.ndarray:
        pose = self.sensor_poses()
        if self.attach_yaw_only:
            w, x, y, z = pose[:, 3], pose[:, 4], pose[:, 5], pose[:, 6]
            half = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) / 2
            pose[:, 3:] = np.stack([np.cos(half), np.zeros_like(half), np.zeros_like(half), np.sin(half)], axis=1)
        return pose

    def _cast(self) -> tuple[np.ndarray, np.ndarray]:
        ctx = self._require()
        pose = self._frame()
        n, r = len(pose), self.pattern.num_rays
        quat = np.repeat(pose[:, 3:], r, axis=0)
        starts = quat_rotate(quat, np.tile(np.asarray(self.pattern.starts), (n, 1))) + np.repeat(pose[:, :3], r, axis=0)
        dirs = quat_rotate(quat, np.tile(np.asarray(self.pattern.directions), (n, 1)))
        env_ids = np.repeat(np.arange(n) if n == ctx.num_envs else np.zeros(n, dtype=np.int64), r)
        hits = ctx.engine.cast_rays(env_ids, starts, starts + self.max_distance * dirs, self.terrain_only)
        return hits.position.reshape(n, r, 3), (hits.fraction * self.max_distance).reshape(n, r)

    def read_hits(self) -> Any:
        """World hit points (num_envs, num_rays, 3); ``inf`` where a ray hit nothing within ``max_distance``."""
        return self._require().tensors.out(self._cast()[0])

    def read_distances(self) -> Any:
        """Distance from each ray's start to its hit (num_envs, num_rays), m; ``inf`` for a miss."""
        return self._require().tensors.out(self._cast()[1])

    def read_pos_w(self) -> Any:
        """World position of the sensor frame (num_envs, 3)."""
        return self._require().tensors.out(np.ascontiguousarray(self._frame()[:, :3]))
