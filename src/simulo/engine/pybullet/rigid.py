"""One single-body PyBullet rigid object per environment."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.pybullet.world import PyBulletWorld
from simulo.errors import SimuloValueError


class PyBulletRigidBatch:
    """One single-body rigid object per environment (implements :class:`simulo.engine.base.RigidBatch`).

    Args:
        handles: ``(world, body id)`` of each environment's copy, in environment order.
    """

    def __init__(self, handles: list[tuple[PyBulletWorld, int]], kind: str = "box", dims: Sequence[float] = (),
                 color: Sequence[float] | None = None, isolate: Callable[[int, int], None] | None = None) -> None:
        self.handles = handles
        self._kind, self._dims, self._color, self._isolate = kind, tuple(dims), color, isolate
        self._mass = np.array([w.mass(b, -1) for w, b in handles])
        self._enabled = np.ones(len(handles), dtype=bool)

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

    def masses(self) -> np.ndarray:
        """Mass of every copy (num_envs,) in kg, as PyBullet reports it (0 for a copy switched off)."""
        return np.array([w.mass(b, -1) for w, b in self.handles])

    def set_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the masses of the copies of ``env_ids`` (a copy switched off takes it when switched on)."""
        for k, i in enumerate(env_ids):
            self._mass[i] = float(masses[k])
            if self._enabled[i]:
                w, b = self.handles[i]
                w.set_dynamics(b, -1, mass=self._mass[i])

    def set_surface(self, env_ids: EnvIds, friction: np.ndarray | None, restitution: np.ndarray | None) -> None:
        """Set the lateral friction and/or restitution of the copies of ``env_ids``."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            w.set_dynamics(b, -1, friction=None if friction is None else float(friction[k]),
                           restitution=None if restitution is None else float(restitution[k]))

    def set_center_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        """Refused: PyBullet fixes a body's inertial frame when it is created (``changeDynamics`` has no
        centre-of-mass argument)."""
        raise SimuloValueError(f"the PyBullet engine cannot move a built body's centre of mass (asked for "
                               f"{offsets.tolist()!r}); give the shape its final geometry instead")

    def set_scale(self, env_ids: EnvIds, scales: np.ndarray) -> None:
        """Rebuild the copies of ``env_ids`` at ``scales`` (len(env_ids), 3) times their built size, keeping pose,
        velocity, mass, surface and collision filter. PyBullet cannot resize a shape in place.

        Raises:
            SimuloValueError: A sphere scaled unevenly, or a cylinder or cone whose x and y factors differ
                (checked before anything changes).
        """
        uneven = scales[:, 0] != scales[:, 1]
        if self._kind == "sphere":
            uneven |= scales[:, 1] != scales[:, 2]
        if self._kind != "box" and uneven.any():
            row = int(np.flatnonzero(uneven)[0])
            rule = "all three factors equal" if self._kind == "sphere" else "equal x and y factors"
            raise SimuloValueError(f"a {self._kind} keeps its shape when scaled: it needs {rule}, got "
                                   f"{scales[row].tolist()} at row {row}")
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            pos, quat = w.base_pose(b)
            lin, ang = w.base_velocity(b)
            friction, restitution = w.surface(b, -1)
            s = scales[k]
            dims = {"box": [d * f for d, f in zip(self._dims, s)], "sphere": [self._dims[0] * s[0]]}.get(
                self._kind, [self._dims[0] * s[0], self._dims[1] * s[2]])
            w.remove_body(b)
            body = w.add_shape(self._kind, dims, float(self._mass[i]) if self._enabled[i] else 0.0, pos, quat,
                               self._color)
            w.set_dynamics(body, -1, friction=friction, restitution=restitution)
            w.reset_base_velocity(body, lin, ang)
            if self._isolate is not None:
                self._isolate(i, body)
            self.handles[i] = (w, body)

    def apply_force(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the next step, push the copies of ``env_ids`` at their centres of mass (world frame)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            w.push(b, -1, forces[k].tolist(), torques[k].tolist())

    def set_enabled(self, env_ids: EnvIds, enabled: bool) -> None:
        """Switch copies on (their mass back: dynamic) or off (mass 0: static, so they touch no other static
        body and stay where they are put)."""
        for i in env_ids:
            w, b = self.handles[i]
            self._enabled[i] = enabled
            w.set_dynamics(b, -1, mass=float(self._mass[i]) if enabled else 0.0)
            w.reset_base_velocity(b, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])

    def contact_count(self, env: int, other_body: int, link: int | None = None) -> int:
        """Contact points between this object and body ``other_body`` (optionally one of its PyBullet links)
        of the same world, in one environment."""
        w, b = self.handles[env]
        return w.contact_count(other_body, b, link)
