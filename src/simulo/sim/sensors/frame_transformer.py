"""``simulo.FrameTransformer`` and ``simulo.FrameTransformerTarget``: poses of robot bodies relative to another.

Isaac Lab's ``FrameTransformer``: a source frame (the body the sensor is attached to, moved by
``source_offset``) and target frames (bodies of the same robot, each moved by its own offset). Readings are
the targets' positions and orientations in the source frame, and both in the world.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.errors import SimuloValueError
from simulo.math.batched import pose_inverse, pose_mul
from simulo.sim.sensors.base import Sensor
from simulo.sim.sensors.offset import SensorOffset

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData


@dataclass(frozen=True)
class FrameTransformerTarget:
    """One target frame of a :class:`FrameTransformer`.

    Args:
        body: Name (or full regex matching one) of a body of the robot the transformer is attached to.
        name: Name of the target in the readings (the body name when ``None``).
        offset: The target frame in the body's frame (identity when ``None``).
    """

    body: str
    name: str | None = None
    offset: SensorOffset | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.body, str) or not self.body:
            raise SimuloValueError(f"FrameTransformerTarget.body must be a body name, got {self.body!r}")
        if self.offset is not None and not isinstance(self.offset, SensorOffset):
            raise SimuloValueError(f"FrameTransformerTarget.offset must be a simulo.SensorOffset, got {self.offset!r}")


class FrameTransformer(Sensor):
    """Poses of target bodies in the frame of a source body, batched over environments.

    Attach it to the source body: ``robot.add_sensor(FrameTransformer([FrameTransformerTarget("hand")]),
    attach_to="base")``.

    Args:
        target_frames: The targets (at least one).
        path: Scene path (set when the sensor is added).
        source_offset: The source frame in the source body's frame.
        update_period: Seconds between updates (0: every physics step; poses are read when asked).
        enabled: Whether the sensor is active.
        debug_vis: Accepted for compatibility.

    Raises:
        SimuloValueError: No targets, a target that is not a FrameTransformerTarget, or duplicate target names.
    """

    scene_mountable = False

    def __init__(self, target_frames: list[FrameTransformerTarget], path: str | None = None,
                 source_offset: SensorOffset | None = None, update_period: float = 0.0, enabled: bool = True,
                 debug_vis: bool = False) -> None:
        super().__init__(path, update_period, source_offset, enabled, debug_vis)
        targets = list(target_frames) if isinstance(target_frames, (list, tuple)) else []
        if not targets or not all(isinstance(t, FrameTransformerTarget) for t in targets):
            raise SimuloValueError(f"FrameTransformer.target_frames must be a non-empty list of "
                                   f"simulo.FrameTransformerTarget, got {target_frames!r}")
        names = [t.name or t.body for t in targets]
        if len(set(names)) != len(names):
            raise SimuloValueError(f"FrameTransformer target names must be unique, got {names}")
        self.target_frames = targets
        self.target_names = names
        self._targets: list[int] = []

    def runtime_bind(self, data: RobotData, attach_to: str) -> None:
        """Find the source body and every target body (runtime hook).

        Raises:
            NameNotFoundError / SimuloValueError: A body name matches nothing or several bodies.
        """
        super().runtime_bind(data, attach_to)
        found = []
        for target in self.target_frames:
            bodies = data.find_bodies(target.body)
            if len(bodies) != 1:
                raise SimuloValueError(f"FrameTransformer target {target.body!r} must match one body, matches "
                                       f"{[data.body_names[b] for b in bodies]}")
            found.append(bodies[0])
        self._targets = found

    def _body_poses(self, bodies: list[int]) -> np.ndarray:
        assert self._data is not None
        data = self._data
        out = np.empty((data.num_envs, len(bodies), 7))
        rest = [k for k, b in enumerate(bodies) if b != 0]
        if rest:
            out[:, rest] = data.batch.read_bodies([bodies[k] for k in rest], range(data.num_envs), False)[0]
        for k, b in enumerate(bodies):
            if b == 0:
                out[:, k] = np.asarray(data.pose, dtype=np.float64)
        return out

    def _target_poses_w(self) -> np.ndarray:
        raw = self._body_poses(self._targets)
        local = np.array([(t.offset or SensorOffset()).pose() for t in self.target_frames], dtype=np.float64)
        return pose_mul(raw, np.broadcast_to(local, raw.shape))

    def _relative(self) -> np.ndarray:
        self._require()
        source = self.sensor_poses()[:, None, :]
        targets = self._target_poses_w()
        return pose_mul(np.broadcast_to(pose_inverse(source), targets.shape), targets)

    def _out(self, value: np.ndarray) -> Any:
        return self._require().tensors.out(np.ascontiguousarray(value))

    def read_target_pos_source(self) -> Any:
        """Target positions in the source frame (num_envs, num_targets, 3), m."""
        return self._out(self._relative()[..., :3])

    def read_target_quat_source(self) -> Any:
        """Target orientations in the source frame (num_envs, num_targets, 4), w-first."""
        return self._out(self._relative()[..., 3:])

    def read_target_pos_w(self) -> Any:
        """Target positions in the world (num_envs, num_targets, 3)."""
        self._require()
        return self._out(self._target_poses_w()[..., :3])

    def read_target_quat_w(self) -> Any:
        """Target orientations in the world (num_envs, num_targets, 4)."""
        self._require()
        return self._out(self._target_poses_w()[..., 3:])

    def read_source_pos_w(self) -> Any:
        """Source frame position in the world (num_envs, 3)."""
        return self._out(self.sensor_poses()[:, :3])

    def read_source_quat_w(self) -> Any:
        """Source frame orientation in the world (num_envs, 4)."""
        return self._out(self.sensor_poses()[:, 3:])
