"""One single-body PyBullet rigid object per environment."""

from __future__ import annotations

import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.pybullet.world import PyBulletWorld


class PyBulletRigidBatch:
    """One single-body rigid object per environment (implements :class:`simulo.engine.base.RigidBatch`).

    Args:
        handles: ``(world, body id)`` of each environment's copy, in environment order.
    """

    def __init__(self, handles: list[tuple[PyBulletWorld, int]]) -> None:
        self.handles = handles

    @property
    def num_envs(self) -> int:
        """Number of copies."""
        return len(self.handles)

    def read(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray) -> None:
        """Write the current pose (centre of the shape) and velocities into the given arrays in place."""
        for i, (w, b) in enumerate(self.handles):
            pos, quat = w.base_pose(b)
            pose[i, :3] = pos
            pose[i, 3:] = quat
            lin, ang = w.base_velocity(b)
            lin_vel[i] = lin
            ang_vel[i] = ang

    def write_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport the objects of ``env_ids`` to ``poses`` (len(env_ids), 7)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            w.reset_base_pose(b, poses[k, :3].tolist(), poses[k, 3:])

    def write_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set the velocities ``[vx, vy, vz, wx, wy, wz]`` of the objects of ``env_ids``."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            w.reset_base_velocity(b, velocities[k, :3].tolist(), velocities[k, 3:].tolist())

    def set_friction(self, friction: float) -> None:
        """Set the lateral friction coefficient of every copy."""
        for w, b in self.handles:
            w.set_dynamics(b, -1, friction=friction)

    def contact_count(self, env: int, other_body: int, link: int | None = None) -> int:
        """Contact points between this object and body ``other_body`` (optionally one of its PyBullet links)
        of the same world, in one environment."""
        w, b = self.handles[env]
        return w.contact_count(other_body, b, link)
