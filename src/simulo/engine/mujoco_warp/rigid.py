"""One single-body rigid object per Warp world.

As on the MuJoCo engine (:mod:`simulo.engine.mujoco.rigid`), a dynamic shape is a body with a free joint
(``qpos`` is the shape centre's pose) and a static one (mass 0) a mocap body, posed per world. Per-copy properties
are edits of the environments' models (:mod:`simulo.engine.mujoco_warp.worlds`), rescaling included (the geom's
size, bounding box and radius and the body's inertia are per-world fields of ``mujoco_warp.Model``).

A copy switched off keeps its place, as on the MuJoCo engine: it collides with nothing, and each step cancels its
weight and zeroes its velocity; it reports mass 0. MuJoCo switches its collisions off with ``geom_contype`` and
``geom_conaffinity``, which ``mujoco_warp`` shares between worlds (its collision pairs are fixed when the model is
put on the device); here the copy's geom gets the margin :data:`OFF_MARGIN` in its world instead, a per-world field.
``mujoco_warp`` adds the two geoms' margins for a pair, and its broadphase drops a pair (and its narrowphase a
contact) unless the geoms are closer than that sum: with this margin no pair of the copy is ever kept.
"""

from __future__ import annotations

import mujoco
import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.mujoco.rigid import scale_edit, set_restitution
from simulo.engine.mujoco_warp.bodies import push, read_pose, write_pose, write_velocity
from simulo.engine.mujoco_warp.worlds import WarpWorlds

#: The geom margin of a copy switched off (m): so far below any distance between two geoms that ``mujoco_warp``
#: keeps none of its pairs (finite, and small enough for float32 arithmetic on it).
OFF_MARGIN = -1.0e9


class WarpRigidBatch:
    """One single-body rigid object per Warp world (implements :class:`simulo.engine.base.RigidBatch`).

    Args:
        worlds: The engine's worlds.
        name: The body (and geom, and free joint) name in the model.
        kind: ``box``, ``sphere``, ``cylinder`` or ``cone``.
        mass: Mass in kg (0: static).
    """

    def __init__(self, worlds: WarpWorlds, name: str, kind: str, mass: float) -> None:
        self._worlds = worlds
        self._name = name
        self._kind = kind
        self._mass = np.full(worlds.num_envs, float(mass))
        self._enabled = np.ones(worlds.num_envs, dtype=bool)
        worlds.bind(self._bind)

    def _bind(self, model: mujoco.MjModel) -> None:
        """Look up the body's indices in a freshly compiled model."""
        self.body_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, self._name)
        self.geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, self._name)
        self.mocap = int(model.body_mocapid[self.body_id])
        joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, self._name)
        self.qadr = int(model.jnt_qposadr[joint]) if joint >= 0 else -1
        self.dofadr = int(model.jnt_dofadr[joint]) if joint >= 0 else -1
        self._margin = float(model.geom_margin[self.geom])

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
        """Set the velocities ``[vx, vy, vz, wx, wy, wz]`` of the objects of ``env_ids`` (a static one stays, a
        copy switched off too)."""
        if self.qadr < 0:
            return
        ids = np.asarray(env_ids, dtype=np.int64)
        on = self._enabled[ids]
        write_velocity(self._worlds, ids[on], np.asarray(velocities)[on], self.qadr, self.dofadr)

    def set_friction(self, friction: float) -> None:
        """Set the sliding friction coefficient of every copy."""
        geom = self.geom
        self._worlds.edit_all(lambda m: m.geom_friction.__setitem__((geom, 0), friction))

    def masses(self) -> np.ndarray:
        """Mass of every copy (num_envs,) in kg (0: static, or switched off)."""
        return np.where(self._enabled & (self.qadr >= 0), self._mass, 0.0)

    def set_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the masses of the copies of ``env_ids`` (inertia scaled with it; a copy switched off takes it
        when switched on)."""
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

    def set_scale(self, env_ids: EnvIds, scales: np.ndarray) -> None:
        """Rescale the shapes of ``env_ids`` to ``scales`` (len(env_ids), 3) times their built size, as on the
        MuJoCo engine (:func:`simulo.engine.mujoco.rigid.scale_edit`).

        Raises:
            SimuloValueError: A sphere scaled unevenly, a cylinder whose x and y factors differ, or a cone (a
                mesh, which MuJoCo cannot resize in a compiled model), checked before anything changes.
        """
        model = self._worlds.model
        assert model is not None
        edit = scale_edit(self._kind, model.geom_size[self.geom].copy(), self.geom, self.body_id, scales)
        self._worlds.edit_envs(env_ids, edit)

    def set_enabled(self, env_ids: EnvIds, enabled: bool) -> None:
        """Switch copies on (collisions and mass back) or off (no collisions, held in place, mass 0)."""
        ids = [int(i) for i in env_ids]
        geom, margin = self.geom, self._margin if enabled else OFF_MARGIN
        self._worlds.edit_envs(ids, lambda m, k: m.geom_margin.__setitem__(geom, margin))
        self._enabled[ids] = enabled
        if self.qadr >= 0:
            qvel = self._worlds.host("qvel")
            qvel[ids, self.dofadr:self.dofadr + 6] = 0.0
            self._worlds.commit("qvel", qvel)

    def hold(self) -> None:
        """Keep the copies switched off in place for the coming step: their weight is cancelled (a push on them
        is dropped), their velocity zero."""
        if self.qadr < 0 or self._enabled.all():
            return
        worlds, body = self._worlds, self.body_id
        off = np.flatnonzero(~self._enabled)
        qvel = worlds.host("qvel")
        qvel[off, self.dofadr:self.dofadr + 6] = 0.0
        worlds.commit("qvel", qvel)
        gravity = np.array([worlds.models[env].opt.gravity for env in off.tolist()])
        xfrc = worlds.host("xfrc_applied")
        xfrc[off, body, :3] = -self._mass[off, None] * gravity
        xfrc[off, body, 3:] = 0.0
        worlds.commit("xfrc_applied", xfrc)
        worlds.pushed = True
