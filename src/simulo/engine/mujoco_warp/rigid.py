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
from simulo.engine.mujoco.rigid import RigidBase
from simulo.engine.mujoco_warp.bodies import BODY_WRITES, push, read_pose
from simulo.engine.mujoco_warp.worlds import WarpWorlds

#: The geom margin of a copy switched off (m): so far below any distance between two geoms that ``mujoco_warp``
#: keeps none of its pairs (finite, and small enough for float32 arithmetic on it).
OFF_MARGIN = -1.0e9


class WarpRigidBatch(RigidBase[WarpWorlds]):
    """One single-body rigid object per Warp world (implements :class:`simulo.engine.base.RigidBatch`); its
    indices, state writes and per-copy properties are the MuJoCo engine's
    (:class:`~simulo.engine.mujoco.rigid.RigidBase`).

    Args:
        worlds: The engine's worlds.
        name: The body (and geom, and free joint) name in the model.
        kind: ``box``, ``sphere``, ``cylinder`` or ``cone``.
        mass: Mass in kg (0: static).
    """

    def __init__(self, worlds: WarpWorlds, name: str, kind: str, mass: float) -> None:
        super().__init__(worlds, name, kind, mass, BODY_WRITES)
        worlds.bind(self.bind)

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up the body's indices, and its geom's margin, in a freshly compiled model."""
        super().bind(model)
        self._margin = float(model.geom_margin[self.geom])

    def read(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray) -> None:
        """Write the current poses (shape centres) and velocities into the arrays in place."""
        read_pose(self._worlds, self.qadr, self.dofadr, self.mocap, pose, lin_vel, ang_vel)

    def apply_force(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the coming step, push the copies of ``env_ids`` at their centres of mass (world frame)."""
        push(self._worlds, env_ids, np.array([self.body_id]), forces, torques)

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
