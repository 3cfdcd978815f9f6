"""One copy of an articulated robot per Warp world.

Joint columns, bodies and the root link follow the MuJoCo engine's conventions
(:mod:`simulo.engine.mujoco.articulation`): a fixed root link is a mocap body posed per world, a floating one has
a free joint whose angular velocity, in body axes in MuJoCo, is rotated into world axes here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import mujoco
import numpy as np

from simulo.engine.base import EnvIds, JointInfo, RigidBatch
from simulo.engine.mujoco.commands import MotorLaw
from simulo.engine.mujoco.dynamics import Dynamics
from simulo.engine.mujoco.rigid import set_restitution
from simulo.engine.mujoco.spec import ModelLayout
from simulo.engine.mujoco_warp import sensing
from simulo.engine.mujoco_warp.bodies import push, read_pose, write_pose, write_velocity
from simulo.engine.mujoco_warp.motors import WarpMotors
from simulo.engine.mujoco_warp.rigid import WarpRigidBatch
from simulo.engine.mujoco_warp.unsupported import unsupported
from simulo.engine.mujoco_warp.worlds import WarpWorlds, body_state
from simulo.errors import SimuloValueError

_BODY = mujoco.mjtObj.mjOBJ_BODY
_JOINT = mujoco.mjtObj.mjOBJ_JOINT


class _HostState(NamedTuple):
    """One world's state as :class:`~simulo.engine.mujoco.dynamics.Dynamics` reads it from an ``MjData``."""

    qpos: np.ndarray
    mocap_pos: np.ndarray
    mocap_quat: np.ndarray


def _ids(model: mujoco.MjModel, kind: mujoco.mjtObj, names: Sequence[str]) -> np.ndarray:
    ids = np.array([mujoco.mj_name2id(model, kind, name) for name in names], dtype=np.int64)
    assert (ids >= 0).all(), f"names missing from the compiled model: {names}"
    return ids


class WarpArticulationBatch:
    """One copy of an articulated robot per Warp world (implements
    :class:`simulo.engine.base.ArticulationBatch`).

    Args:
        worlds: The engine's worlds.
        prefix: The name prefix the robot was attached under.
        layout: Joints and bodies in simulo's order.
        fixed_base: Whether the root link is bolted to the world (a mocap body).
        dt: Time step, s.
    """

    def __init__(self, worlds: WarpWorlds, prefix: str, layout: ModelLayout, fixed_base: bool, dt: float) -> None:
        self._worlds = worlds
        self._prefix = prefix
        self._joints = list(layout.joints)
        self._body_names = list(layout.body_names)
        self._fixed_base = fixed_base
        self.law = MotorLaw(worlds.num_envs, len(self._joints), dt)
        self._max_velocity = np.full(len(self._joints), np.inf)
        #: whether any joint velocity limit is set (the engine clips the velocities after each step)
        self.velocity_limited = False
        self.motors = WarpMotors(self.law)
        #: the last step's parent-on-body wrenches of every body, once :meth:`joint_wrenches` switched them on
        self.wrenches: np.ndarray | None = None
        worlds.bind(self._bind)

    def _bind(self, model: mujoco.MjModel) -> None:
        """Look up joint and body indices in a freshly compiled model."""
        p = self._prefix
        jids = _ids(model, _JOINT, [p + j.name for j in self._joints])
        self.dofs = model.jnt_dofadr[jids].astype(np.int64)
        self.qadr = model.jnt_qposadr[jids].astype(np.int64)
        self.body_ids = _ids(model, _BODY, [p + name for name in self._body_names])
        self.body_geoms = [np.flatnonzero(model.geom_bodyid == b) for b in self.body_ids]
        self.mocap = int(model.body_mocapid[int(self.body_ids[0])])
        free = -1 if self._fixed_base else mujoco.mj_name2id(model, _JOINT, p + "root")
        self.free_q = int(model.jnt_qposadr[free]) if free >= 0 else -1
        self.free_v = int(model.jnt_dofadr[free]) if free >= 0 else -1
        self._model = model
        self.law.bind(model, self.dofs, self.qadr)
        self._dynamics = Dynamics(model, self.dofs, self.qadr)

    @property
    def num_envs(self) -> int:
        """Number of copies."""
        return self._worlds.num_envs

    @property
    def fixed_base(self) -> bool:
        """Whether the root link is bolted to the world."""
        return self._fixed_base

    @property
    def reports_all_efforts(self) -> bool:
        """True: the motor law's efforts are every joint's (zero for a passive joint)."""
        return True

    @property
    def joints(self) -> list[JointInfo]:
        """The non-fixed joints, in column order."""
        return self._joints

    @property
    def body_names(self) -> list[str]:
        """Body names: the root link, then every other link in document order."""
        return self._body_names

    # -- stepping (called by the engine) -----------------------------------------------------------------
    def write_torques(self, applied: np.ndarray) -> None:
        """Write this step's joint torques into ``applied`` (num_envs, nv), zero where no joint is torque-driven."""
        applied[:, self.dofs] = self.law.torque

    def limit_velocities(self) -> None:
        """Clip joint velocities to the limits set with :meth:`set_joint_properties` (after a step)."""
        qvel = self._worlds.host("qvel")
        qvel[:, self.dofs] = np.clip(qvel[:, self.dofs], -self._max_velocity, self._max_velocity)
        self._worlds.commit("qvel", qvel)

    def record_wrenches(self) -> None:
        """Keep the joint wrenches of the step just taken (after :func:`.sensing.run_rne_postconstraint`)."""
        assert self.wrenches is not None
        self.wrenches[...] = sensing.joint_wrenches(self._worlds, self.body_ids)

    def drive(self, applied: np.ndarray) -> None:
        """Write the motor efforts of the worlds with a motor into ``applied``, after ``step1``."""
        self.motors.drive(self._worlds, self.dofs, self.qadr, applied)

    # -- state -------------------------------------------------------------------------------------------
    def read_joints(self, q: np.ndarray, qd: np.ndarray, effort: np.ndarray) -> None:
        """Write joint positions, velocities and motor efforts of every copy into the arrays in place."""
        q[...] = self._worlds.host("qpos")[:, self.qadr]
        qd[...] = self._worlds.host("qvel")[:, self.dofs]
        effort[...] = self.law.effort

    def read_base(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
                  env_ids: EnvIds | None = None) -> None:
        """Write the root link's frame pose and its origin's velocity into rows ``env_ids`` of the arrays."""
        read_pose(self._worlds, self.free_q, self.free_v, self.mocap, pose, lin_vel, ang_vel, env_ids)

    def read_bodies(self, bodies: Sequence[int], env_ids: EnvIds, velocity: bool
                    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Link-frame poses (E, L, 7) and, if asked, velocities of the link origins (E, L, 6)."""
        ids = [int(i) for i in env_ids]
        bids = self.body_ids[list(bodies)]
        state = body_state(self._worlds, ids)
        xpos = state["xpos"][:, bids]
        poses = np.concatenate((xpos, state["xquat"][:, bids]), axis=2)
        if not velocity:
            return poses, None
        roots = self._model.body_rootid[bids]
        cvel = state["cvel"][:, bids]
        ang = cvel[..., :3]
        lin = cvel[..., 3:] + np.cross(ang, xpos - state["subtree_com"][:, roots])
        return poses, np.concatenate((lin, ang), axis=2)

    def body_pose_reader(self, body: int) -> Callable[[], np.ndarray]:
        """A call that reads one non-root body's frame pose in every environment (a new (num_envs, 7) array)."""
        bodies, envs = [body], range(self.num_envs)

        def read() -> np.ndarray:
            return self.read_bodies(bodies, envs, velocity=False)[0][:, 0]
        return read

    # -- writes ------------------------------------------------------------------------------------------
    def write_joints(self, env_ids: EnvIds, q: np.ndarray, qd: np.ndarray) -> None:
        """Teleport joints of ``env_ids`` to ``q``/``qd`` (len(env_ids), J)."""
        ids = np.asarray(env_ids, dtype=np.int64)
        w = self._worlds
        qpos, qvel = w.host("qpos"), w.host("qvel")
        qpos[ids[:, None], self.qadr] = q
        qvel[ids[:, None], self.dofs] = qd
        w.commit("qpos", qpos)
        w.commit("qvel", qvel)

    def write_base_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport the root links of ``env_ids`` to link-frame ``poses`` (len(env_ids), 7)."""
        write_pose(self._worlds, env_ids, poses, self.free_q, self.mocap)

    def write_base_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set root velocities ``[vx, vy, vz, wx, wy, wz]`` of the link-frame origin (a fixed root stays still)."""
        if self.free_v >= 0:
            write_velocity(self._worlds, env_ids, velocities, self.free_q, self.free_v)

    def apply(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
              position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        """Keep one step's joint commands (the MuJoCo engine's motor law, :mod:`.motors`)."""
        self.law.set(mode, position, velocity, force, position_gain, velocity_gain, torque)
        self.motors.modes_set()

    def apply_positions(self, position: np.ndarray) -> None:
        """Keep new position targets; every other command stays as the last :meth:`apply` set it."""
        self.law.set_positions(position)

    def apply_efforts(self, effort: np.ndarray) -> None:
        """Keep new torques of the ``TORQUE`` joints; every other command stays as the last :meth:`apply` set it."""
        self.law.set_torques(effort)

    def cancel_gravity(self) -> None:
        """For the coming step, push every link up with m·g at its centre of mass."""
        lift = -self._model.body_mass[self.body_ids, None] * self._model.opt.gravity
        envs = np.arange(self.num_envs)
        push(self._worlds, envs, self.body_ids, np.broadcast_to(lift, (self.num_envs, *lift.shape)),
             np.zeros((self.num_envs, len(self.body_ids), 3)))

    # -- dynamics queries (on the host, with MuJoCo, from the worlds' state) -----------------------------
    def _states(self) -> list[_HostState]:
        w = self._worlds
        qpos, mocap_pos, mocap_quat = (np.asarray(w.host(n), dtype=np.float64)
                                       for n in ("qpos", "mocap_pos", "mocap_quat"))
        return [_HostState(qpos[i], mocap_pos[i], mocap_quat[i]) for i in range(self.num_envs)]

    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(bodies), 6, J) of the bodies' frame origins, world axes; the root's is zero."""
        ids = [-1 if b == 0 else int(self.body_ids[b]) for b in bodies]
        return self._dynamics.jacobians(self._worlds.models, self._states(), ids, q)

    def mass_matrices(self, q: np.ndarray) -> np.ndarray:
        """Joint-space mass matrices (num_envs, J, J) at ``q``."""
        return self._dynamics.mass_matrices(self._worlds.models, self._states(), q)

    def gravity_torques(self, q: np.ndarray) -> np.ndarray:
        """Joint efforts (num_envs, J) that hold the robot still against gravity at ``q``."""
        return self._dynamics.gravity_torques(self._worlds.models, self._states(), q)

    # -- model edits (as the MuJoCo engine's, :mod:`simulo.engine.mujoco.edits`) --------------------------
    def scale_masses(self, factor: float) -> None:
        """Multiply every link mass (and inertia) by ``factor`` (at 0 the joints keep a tiny armature so the mass
        matrix stays invertible)."""
        bids, dofs = self.body_ids, self.dofs

        def edit(m: mujoco.MjModel) -> None:
            m.body_mass[bids] *= factor
            m.body_inertia[bids] *= factor
            if factor == 0.0:
                m.dof_armature[dofs] = np.maximum(m.dof_armature[dofs], 1e-6)
        self._worlds.edit_all(edit)

    def set_joint_properties(self, joint: int, *, damping: float | None = None, max_velocity: float | None = None,
                             limits: tuple[float, float] | None = None) -> None:
        """Override damping, velocity limit (enforced by clipping after each step) and position limits."""
        dof = int(self.dofs[joint])
        jid = int(self._model.dof_jntid[dof])

        def edit(m: mujoco.MjModel) -> None:
            if damping is not None:
                m.dof_damping[dof] = damping
            if limits is not None:
                m.jnt_range[jid] = limits
                m.jnt_limited[jid] = limits[0] <= limits[1]
        self._worlds.edit_all(edit)
        if max_velocity is not None:
            self._max_velocity[joint] = max_velocity
            self.velocity_limited = bool(np.isfinite(self._max_velocity).any())

    def set_body_friction(self, body: int, friction: float) -> None:
        """Set the sliding friction of body ``body``'s shapes in every copy."""
        geoms = self.body_geoms[body]
        self._worlds.edit_all(lambda m: m.geom_friction.__setitem__((geoms, 0), friction))

    def disable_collisions(self) -> None:
        """Make every copy collide with nothing."""
        geoms = np.concatenate(self.body_geoms)

        def edit(m: mujoco.MjModel) -> None:
            m.geom_contype[geoms] = 0
            m.geom_conaffinity[geoms] = 0
        self._worlds.edit_all(edit)

    def add_gear(self, joint_a: int, joint_b: int, ratio: float, erp: float, max_force: float) -> None:
        """Couple two joint columns in every copy with a joint equality, as the MuJoCo engine does (``max_force``
        unused: MuJoCo's equalities have no force limit).

        Raises:
            WarpUnsupportedError: The scene is final (a joint equality changes the model's sizes).
        """
        if self._worlds.final:
            unsupported("grow_after_step")
        names = [self._prefix + self._joints[c].name for c in (joint_a, joint_b)]
        self._worlds.scene.add_gear(names[0], names[1], ratio, erp, float(self._model.opt.timestep))
        self._worlds.recompile()

    def link_masses(self) -> np.ndarray:
        """Mass of every body of every copy (num_envs, B) in kg."""
        return np.array([m.body_mass[self.body_ids] for m in self._worlds.models])

    def set_link_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the body masses (len(env_ids), B); inertias scale with them (the shapes keep their density)."""
        values, bids = np.array(masses, dtype=float), self.body_ids

        def edit(m: mujoco.MjModel, k: int) -> None:
            old = m.body_mass[bids]
            ratio = np.divide(values[k], old, out=np.ones_like(old), where=old > 0)
            m.body_inertia[bids] *= ratio[:, None]
            m.body_mass[bids] = values[k]
        self._worlds.edit_envs(env_ids, edit)

    def set_link_surface(self, env_ids: EnvIds, friction: np.ndarray | None,
                         restitution: np.ndarray | None) -> None:
        """Set each body's friction and/or restitution (len(env_ids), B) on all of its shapes."""
        fr = None if friction is None else np.array(friction, dtype=float)
        rs = None if restitution is None else np.array(restitution, dtype=float)
        body_geoms = self.body_geoms

        def edit(m: mujoco.MjModel, k: int) -> None:
            for b, geoms in enumerate(body_geoms):
                if fr is not None:
                    m.geom_friction[geoms, 0] = fr[k, b]
                if rs is not None:
                    set_restitution(m, geoms, float(rs[k, b]))
        self._worlds.edit_envs(env_ids, edit)

    def set_link_centers_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        """Move each body's centre of mass to ``offsets`` (len(env_ids), B, 3) in its body frame."""
        values, bids = np.array(offsets, dtype=float), self.body_ids
        self._worlds.edit_envs(env_ids, lambda m, k: m.body_ipos.__setitem__(bids, values[k]))

    def set_joint_armature(self, env_ids: EnvIds, armature: np.ndarray) -> None:
        """Set each joint's armature (len(env_ids), J)."""
        values, dofs = np.array(armature, dtype=float), self.dofs
        self._worlds.edit_envs(env_ids, lambda m, k: m.dof_armature.__setitem__(dofs, values[k]))

    def apply_link_forces(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the coming step, push each body at its centre of mass (world-frame forces and torques)."""
        push(self._worlds, env_ids, self.body_ids, forces, torques)

    # -- contacts and joint wrenches (:mod:`.sensing`) ----------------------------------------------------
    def contact_counts(self, other: RigidBatch, bodies: Sequence[int] | None) -> np.ndarray:
        """Contact points with ``other`` in the last step per environment: (num_envs,) or (num_envs, len(bodies));
        zeros before the first step.

        Raises:
            SimuloValueError: ``other`` does not come from the MuJoCo Warp engine.
        """
        if not isinstance(other, WarpRigidBatch):
            raise SimuloValueError(f"contacts are counted against a MuJoCo Warp rigid batch, got "
                                   f"{type(other).__name__}")
        groups = [self.body_ids] if bodies is None else [self.body_ids[[b]] for b in bodies]
        out = sensing.contact_counts(self._worlds, groups, other.body_id)
        return out[:, 0] if bodies is None else out

    def contact_forces(self, bodies: Sequence[int], other: RigidBatch | None) -> np.ndarray:
        """Net contact force (num_envs, len(bodies), 3), world axes, N, from the last step's contacts with
        ``other`` (anything when ``None``); zeros before the first step.

        Raises:
            SimuloValueError: ``other`` does not come from the MuJoCo Warp engine.
        """
        if other is not None and not isinstance(other, WarpRigidBatch):
            raise SimuloValueError(f"contact forces are taken against a MuJoCo Warp rigid batch, got "
                                   f"{type(other).__name__}")
        ids = self.body_ids[list(bodies)]
        against = None if other is None else other.body_id
        return sensing.contact_forces(self._worlds, ids, against)

    def joint_wrenches(self, bodies: Sequence[int]) -> np.ndarray:
        """Parent-on-body wrenches (num_envs, len(bodies), 6) ``[force, torque]`` in body axes about the origin,
        from the last step; the first call switches them on (zeros until the next step)."""
        if self.wrenches is None:
            self.wrenches = np.zeros((self.num_envs, len(self.body_ids), 6))
        return self.wrenches[:, list(bodies)].copy()
