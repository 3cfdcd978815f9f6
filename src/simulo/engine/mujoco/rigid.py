"""One single-body MuJoCo rigid object per environment.

A dynamic shape is a body with a free joint (``qpos`` is the shape centre's pose; MuJoCo keeps the angular
velocity in body axes, rotated by :mod:`simulo.engine.mujoco.free_bodies`); a static one (mass 0) is a mocap
body, posed per environment. A copy switched off keeps its place: its environment's model gets no collisions
for it, and each step cancels its weight and zeroes its velocity; it reports mass 0, as on PyBullet.

The body's indices, its state writes and its per-copy properties (:class:`RigidBase`) serve the MuJoCo Warp
engine's rigid batch too.
"""

from __future__ import annotations

from typing import Generic

import mujoco
import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.mujoco.free_bodies import read_free, read_mocap, write_pose, write_velocity
from simulo.engine.mujoco.spec import damping_ratio
from simulo.engine.mujoco.worlds import BodyWrites, EnvEdit, Worlds, WorldsT
from simulo.errors import SimuloValueError

#: How the MuJoCo engine writes the state of a body it moves as a whole (a free joint or a mocap body).
BODY_WRITES: BodyWrites[Worlds] = BodyWrites(write_pose, write_velocity)


def set_restitution(model: mujoco.MjModel, geoms: np.ndarray | int, restitution: float) -> None:
    """Give geoms the contact damping ratio whose bounce keeps ``restitution`` of the approach speed."""
    model.geom_solref[geoms, 1] = damping_ratio(restitution)


def _box_inertia(mass: float, kind: str, size: np.ndarray) -> np.ndarray:
    """Principal inertia of a solid primitive (MuJoCo sizes: box half extents; cylinder radius, half height)."""
    if kind == "box":
        a, b, c = (2 * size) ** 2
        return mass / 12 * np.array([b + c, a + c, a + b])
    if kind == "sphere":
        return np.full(3, 0.4 * mass * size[0] ** 2)
    r, h = size[0], 2 * size[1]
    side = mass * (3 * r ** 2 + h ** 2) / 12
    return np.array([side, side, 0.5 * mass * r ** 2])


def scale_edit(kind: str, built: np.ndarray, geom: int, body: int, scales: np.ndarray) -> EnvEdit:
    """The per-environment model edit that rescales a rigid shape to ``scales`` (len(env_ids), 3) times its built
    size: its geom's size, bounding box and bounding radius, and its body's inertia (for its mass). Shared by the
    MuJoCo engines.

    Args:
        kind: ``box``, ``sphere``, ``cylinder``, ``capsule`` or ``cone``.
        built: The geom's size as built (MuJoCo sizes).
        geom: The geom's index.
        body: The body's index.
        scales: Per environment of the edit, the x, y and z factors.

    Raises:
        SimuloValueError: A sphere scaled unevenly, a cylinder whose x and y factors differ, or a cone (a mesh,
            which MuJoCo cannot resize in a compiled model), checked before anything changes.
    """
    if kind == "cone":
        raise SimuloValueError(f"MuJoCo builds a cone as a mesh and cannot rescale it (asked for "
                               f"{np.asarray(scales).tolist()!r}); give the cone its final size instead")
    uneven = scales[:, 0] != scales[:, 1]
    if kind == "sphere":
        uneven |= scales[:, 1] != scales[:, 2]
    if kind != "box" and uneven.any():
        row = int(np.flatnonzero(uneven)[0])
        rule = "all three factors equal" if kind == "sphere" else "equal x and y factors"
        raise SimuloValueError(f"a {kind} keeps its shape when scaled: it needs {rule}, got "
                               f"{scales[row].tolist()} at row {row}")
    factors = {"box": lambda s: s, "sphere": lambda s: np.array([s[0], 1.0, 1.0])}.get(
        kind, lambda s: np.array([s[0], s[2], 1.0]))
    values = np.array(scales, dtype=float)

    def edit(m: mujoco.MjModel, k: int) -> None:
        size = built * factors(values[k])
        m.geom_size[geom] = size
        half = {"box": size, "sphere": np.full(3, size[0])}.get(kind, np.array([size[0], size[0], size[1]]))
        m.geom_aabb[geom, 3:] = half
        m.geom_rbound[geom] = float(np.linalg.norm(half)) if kind != "sphere" else size[0]
        if m.body_mass[body] > 0:
            m.body_inertia[body] = _box_inertia(float(m.body_mass[body]), kind, size)
    return edit


class RigidBase(Generic[WorldsT]):
    """What the rigid batches of both MuJoCo engines share: the body's indices, its pose and velocity writes and
    its per-copy properties, which are model edits (a base class: the engine's batch reads the bodies, pushes them
    and switches copies on and off).

    Args:
        worlds: The engine's environments.
        name: The body (and geom, and free joint) name in the model.
        kind: ``box``, ``sphere``, ``cylinder`` or ``cone``.
        mass: Mass in kg (0: static).
        writes: How the engine writes the body's state.
    """

    def __init__(self, worlds: WorldsT, name: str, kind: str, mass: float, writes: BodyWrites[WorldsT]) -> None:
        self._worlds = worlds
        self._name = name
        self._kind = kind
        self._writes = writes
        self._mass = np.full(worlds.num_envs, float(mass))
        self._enabled = np.ones(worlds.num_envs, dtype=bool)

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up the body's indices in a freshly compiled model."""
        self._model = model
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

    def write_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport the objects of ``env_ids`` to ``poses`` (len(env_ids), 7)."""
        self._writes.pose(self._worlds, env_ids, poses, self.qadr, self.mocap)

    def write_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set the velocities ``[vx, vy, vz, wx, wy, wz]`` of the objects of ``env_ids`` (a static one stays, a
        copy switched off too)."""
        if self.qadr < 0:
            return
        ids = np.asarray(env_ids, dtype=np.int64)
        on = self._enabled[ids]
        self._writes.velocity(self._worlds, ids[on], np.asarray(velocities)[on], self.qadr, self.dofadr)

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

    def set_scale(self, env_ids: EnvIds, scales: np.ndarray) -> None:
        """Rescale the shapes of ``env_ids`` to ``scales`` (len(env_ids), 3) times their built size
        (:func:`scale_edit`).

        Raises:
            SimuloValueError: A sphere scaled unevenly, a cylinder whose x and y factors differ, or a cone (a
                mesh, which MuJoCo cannot resize in a compiled model), checked before anything changes.
        """
        edit = scale_edit(self._kind, self._model.geom_size[self.geom].copy(), self.geom, self.body_id, scales)
        self._worlds.edit_envs(env_ids, edit)


class MuJoCoRigidBatch(RigidBase[Worlds]):
    """One single-body rigid object per environment (implements :class:`simulo.engine.base.RigidBatch`).

    Args:
        worlds: The engine's environments.
        name: The body (and geom, and free joint) name in the model.
        kind: ``box``, ``sphere``, ``cylinder`` or ``cone``.
        mass: Mass in kg (0: static).
    """

    def __init__(self, worlds: Worlds, name: str, kind: str, mass: float) -> None:
        super().__init__(worlds, name, kind, mass, BODY_WRITES)
        self._any_disabled = False
        worlds.bind(self)

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up the body's indices, and its geom's collision masks, in a freshly compiled model."""
        super().bind(model)
        self._contype = int(model.geom_contype[self.geom])
        self._conaffinity = int(model.geom_conaffinity[self.geom])

    def read(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray) -> None:
        """Write the current poses (shape centres) and velocities into the arrays in place."""
        if self.qadr < 0:
            read_mocap(self._worlds, self.mocap, pose, lin_vel, ang_vel)
        else:
            read_free(self._worlds, self.qadr, self.dofadr, pose, lin_vel, ang_vel)

    def apply_force(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the coming step, push the copies of ``env_ids`` at their centres of mass (world frame)."""
        self._worlds.pushed = True
        for k, i in enumerate(env_ids):
            xfrc = self._worlds.xfrc[i]
            xfrc[self.body_id, :3] += forces[k]
            xfrc[self.body_id, 3:] += torques[k]

    def set_enabled(self, env_ids: EnvIds, enabled: bool) -> None:
        """Switch copies on (collisions and mass back) or off (no collisions, held in place, mass 0)."""
        ids = [int(i) for i in env_ids]
        geom = self.geom
        contype, conaffinity = (self._contype, self._conaffinity) if enabled else (0, 0)

        def edit(m: mujoco.MjModel, k: int) -> None:
            m.geom_contype[geom] = contype
            m.geom_conaffinity[geom] = conaffinity
        self._worlds.edit_envs(ids, edit)
        self._enabled[ids] = enabled
        self._any_disabled = not bool(self._enabled.all())
        self._worlds.revision += 1
        if self.qadr >= 0:
            qvel = self._worlds.qvel
            for i in ids:
                qvel[i][self.dofadr:self.dofadr + 6] = 0.0

    def hold(self, env: int) -> None:
        """Keep a copy switched off in place for the coming step: its weight is cancelled, its velocity zero."""
        if not self._enabled[env] and self.qadr >= 0:
            m, xfrc = self._worlds.models[env], self._worlds.xfrc[env]
            self._worlds.qvel[env][self.dofadr:self.dofadr + 6] = 0.0
            xfrc[self.body_id, :3] = -m.body_mass[self.body_id] * m.opt.gravity
            xfrc[self.body_id, 3:] = 0.0
            self._worlds.pushed = True

    @property
    def any_disabled(self) -> bool:
        """Whether any copy is switched off."""
        return self._any_disabled

