"""One single-body rigid object per Warp world.

As on the MuJoCo engine (:mod:`simulo.engine.mujoco.rigid`), a dynamic shape is a body with a free joint
(``qpos`` is the shape centre's pose) and a static one (mass 0) a mocap body, posed per world. Per-copy properties
are edits of the environments' models (:mod:`simulo.engine.mujoco_warp.worlds`); rescaling and switching copies
off are not supported yet (:mod:`simulo.engine.mujoco_warp.unsupported`).
"""

from __future__ import annotations

import mujoco
import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.mujoco.rigid import set_restitution
from simulo.engine.mujoco_warp.bodies import push, read_pose, write_pose, write_velocity
from simulo.engine.mujoco_warp.unsupported import unsupported
from simulo.engine.mujoco_warp.worlds import WarpWorlds


class WarpRigidBatch:
    """One single-body rigid object per Warp world (implements :class:`simulo.engine.base.RigidBatch`).

    Args:
        worlds: The engine's worlds.
        name: The body (and geom, and free joint) name in the model.
        mass: Mass in kg (0: static).
    """

    def __init__(self, worlds: WarpWorlds, name: str, mass: float) -> None:
        self._worlds = worlds
        self._name = name
        self._mass = np.full(worlds.num_envs, float(mass))
        worlds.bind(self._bind)

    def _bind(self, model: mujoco.MjModel) -> None:
        """Look up the body's indices in a freshly compiled model."""
        self.body_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, self._name)
        self.geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, self._name)
        self.mocap = int(model.body_mocapid[self.body_id])
        joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, self._name)
        self.qadr = int(model.jnt_qposadr[joint]) if joint >= 0 else -1
        self.dofadr = int(model.jnt_dofadr[joint]) if joint >= 0 else -1

    @property
    def num_envs(self) -> int:
        """Number of copies."""
        return self._worlds.num_envs

    def read(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray) -> None:
        """Write the current poses (shape centres) and velocities into the arrays in place."""
        read_pose(self._worlds, self.qadr, self.dofadr, self.mocap, pose, lin_vel, ang_vel)

    def write_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport the objects of ``env_ids`` to ``poses`` (len(env_ids), 7)."""
        write_pose(self._worlds, env_ids, poses, self.qadr, self.mocap)

    def write_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set the velocities ``[vx, vy, vz, wx, wy, wz]`` of the objects of ``env_ids`` (a static one stays)."""
        if self.qadr >= 0:
            write_velocity(self._worlds, env_ids, velocities, self.qadr, self.dofadr)

    def set_friction(self, friction: float) -> None:
        """Set the sliding friction coefficient of every copy."""
        geom = self.geom
        self._worlds.edit_all(lambda m: m.geom_friction.__setitem__((geom, 0), friction))

    def masses(self) -> np.ndarray:
        """Mass of every copy (num_envs,) in kg (0: static)."""
        return self._mass if self.qadr >= 0 else np.zeros(self.num_envs)

    def set_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the masses of the copies of ``env_ids`` (inertia scaled with it)."""
        ids = [int(i) for i in env_ids]
        values = np.array(masses, dtype=float)
        body = self.body_id

        def edit(m: mujoco.MjModel, k: int) -> None:
            old = float(m.body_mass[body])
            if old > 0:
                m.body_inertia[body] *= values[k] / old
            m.body_mass[body] = values[k]
        self._worlds.edit_envs(ids, edit)
        self._mass[ids] = values

    def set_surface(self, env_ids: EnvIds, friction: np.ndarray | None, restitution: np.ndarray | None) -> None:
        """Set the friction and/or restitution of the copies of ``env_ids``."""
        fr = None if friction is None else np.array(friction, dtype=float)
        rs = None if restitution is None else np.array(restitution, dtype=float)
        geom = self.geom

        def edit(m: mujoco.MjModel, k: int) -> None:
            if fr is not None:
                m.geom_friction[geom, 0] = fr[k]
            if rs is not None:
                set_restitution(m, geom, float(rs[k]))
        self._worlds.edit_envs(env_ids, edit)

    def set_center_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        """Move the centre of mass to ``offsets`` (len(env_ids), 3) in the body frame."""
        values, body = np.array(offsets, dtype=float), self.body_id
        self._worlds.edit_envs(env_ids, lambda m, k: m.body_ipos.__setitem__(body, values[k]))

    def apply_force(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the coming step, push the copies of ``env_ids`` at their centres of mass (world frame)."""
        push(self._worlds, env_ids, np.array([self.body_id]), forces, torques)

    # -- not supported yet (see :mod:`.unsupported`) -----------------------------------------------------
    def set_scale(self, env_ids: EnvIds, scales: np.ndarray) -> None:
        """Not supported yet."""
        unsupported("scale")

    def set_enabled(self, env_ids: EnvIds, enabled: bool) -> None:
        """Not supported yet."""
        unsupported("prop_enabled")
