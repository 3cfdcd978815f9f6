"""One copy of an articulated robot per environment, on MuJoCo.

Joint columns are the model's hinges and slides in document order, bodies the root link followed by every other
link in document order; MuJoCo numbers bodies depth-first, so each column and body keeps its MuJoCo index here
(looked up by name after every compile). A fixed root link is a mocap body whose pose is per environment; a
floating one has a free joint whose ``qpos`` is the link frame's pose, as simulo's (only the free joint's
angular velocity, in body axes in MuJoCo, is rotated into world axes).

The indices, the root link's state writes, the command setters and the model edits (:class:`ArticulationBase`)
serve the MuJoCo Warp engine's articulation batch too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mujoco
import numpy as np

from simulo.engine.base import EnvIds, JointInfo, RigidBatch
from simulo.engine.mujoco import sensing
from simulo.engine.mujoco.commands import MotorLaw, columns
from simulo.engine.mujoco.dynamics import Dynamics
from simulo.engine.mujoco.edits import ArticulationEdits
from simulo.engine.mujoco.free_bodies import read_free, read_mocap
from simulo.engine.mujoco.rigid import BODY_WRITES, MuJoCoRigidBatch
from simulo.engine.mujoco.spec import ModelLayout
from simulo.engine.mujoco.worlds import POSED, BodyWrites, Worlds, WorldsT
from simulo.errors import SimuloValueError

_BODY = mujoco.mjtObj.mjOBJ_BODY
_JOINT = mujoco.mjtObj.mjOBJ_JOINT


def _ids(model: mujoco.MjModel, kind: mujoco.mjtObj, names: Sequence[str]) -> np.ndarray:
    ids = np.array([mujoco.mj_name2id(model, kind, name) for name in names], dtype=np.int64)
    assert (ids >= 0).all(), f"names missing from the compiled model: {names}"
    return ids


def _row_reader(row: np.ndarray, cols: slice | np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """How :meth:`MuJoCoArticulationBatch.read_joints` reads joint columns ``cols`` of a data's ``row``: through a
    view at consecutive columns (and None), else by a gather of the columns from the row."""
    return (row[cols], None) if isinstance(cols, slice) else (row, cols)


class ArticulationBase(ArticulationEdits[WorldsT]):
    """What the articulation batches of both MuJoCo engines share: the joints and bodies and their indices, the
    root link's state writes, the command setters and the model edits (a base class: the engine's batch reads the
    state, drives the joints, pushes the links and senses contacts).

    Args:
        worlds: The engine's environments.
        prefix: The name prefix the robot was attached under.
        layout: Joints and bodies in simulo's order.
        fixed_base: Whether the root link is bolted to the world (a mocap body).
        dt: Time step, s.
        writes: How the engine writes the root link's state.
    """

    def __init__(self, worlds: WorldsT, prefix: str, layout: ModelLayout, fixed_base: bool, dt: float,
                 writes: BodyWrites[WorldsT]) -> None:
        self._worlds = worlds
        self._prefix = prefix
        self._joints = list(layout.joints)
        self._body_names = list(layout.body_names)
        self._fixed_base = fixed_base
        self._writes = writes
        self.law = MotorLaw(worlds.num_envs, len(self._joints), dt)
        self._max_velocity = np.full(len(self._joints), np.inf)
        self._velocity_limited = False
        #: the last step's parent-on-body wrenches of every body, once :meth:`joint_wrenches` switched them on
        self.wrenches: np.ndarray | None = None

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up joint, body and geom indices in a freshly compiled model."""
        p = self._prefix
        jids = _ids(model, _JOINT, [p + j.name for j in self._joints])
        self.dofs = model.jnt_dofadr[jids].astype(np.int64)
        self.qadr = model.jnt_qposadr[jids].astype(np.int64)
        self.body_ids = _ids(model, _BODY, [p + name for name in self._body_names])
        root = int(self.body_ids[0])
        self.mocap = int(model.body_mocapid[root])
        free = -1 if self._fixed_base else mujoco.mj_name2id(model, _JOINT, p + "root")
        self.free_q = int(model.jnt_qposadr[free]) if free >= 0 else -1
        self.free_v = int(model.jnt_dofadr[free]) if free >= 0 else -1
        self.body_geoms = [np.flatnonzero(model.geom_bodyid == b) for b in self.body_ids]
        self.geoms = np.concatenate(self.body_geoms) if self.body_geoms else np.zeros(0, dtype=np.int64)
        self._model = model
        self.law.bind(model, self.dofs, self.qadr)
        self.dynamics = Dynamics(model, self.dofs, self.qadr)

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
        """True: the motor law's efforts are every joint's, the applied torques included (zero for a passive
        joint), so the caller writes nothing after a joint read."""
        return True

    @property
    def joints(self) -> list[JointInfo]:
        """The non-fixed joints, in column order."""
        return self._joints

    @property
    def body_names(self) -> list[str]:
        """Body names: the root link, then every other link in document order."""
        return self._body_names

    @property
    def velocity_limited(self) -> bool:
        """Whether any joint velocity limit is set (the engine clips the velocities after each step)."""
        return self._velocity_limited

    def write_base_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport the root links of ``env_ids`` to link-frame ``poses`` (len(env_ids), 7)."""
        self._writes.pose(self._worlds, env_ids, poses, self.free_q, self.mocap)

    def write_base_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set root velocities ``[vx, vy, vz, wx, wy, wz]`` of the link-frame origin (a fixed root stays still)."""
        if self.free_v >= 0:
            self._writes.velocity(self._worlds, env_ids, velocities, self.free_q, self.free_v)

    def apply_positions(self, position: np.ndarray) -> None:
        """Keep new position targets; every other command stays as the last :meth:`apply` set it."""
        self.law.set_positions(position)

    def apply_efforts(self, effort: np.ndarray) -> None:
        """Keep new torques of the ``TORQUE`` joints; every other command stays as the last :meth:`apply` set it."""
        self.law.set_torques(effort)


class MuJoCoArticulationBatch(ArticulationBase[Worlds]):
    """One copy of an articulated robot per environment (implements :class:`simulo.engine.base.ArticulationBatch`).

    Args:
        worlds: The engine's environments.
        prefix: The name prefix the robot was attached under.
        layout: Joints and bodies in simulo's order.
        fixed_base: Whether the root link is bolted to the world (a mocap body).
        dt: Time step, s.
    """

    def __init__(self, worlds: Worlds, prefix: str, layout: ModelLayout, fixed_base: bool, dt: float) -> None:
        super().__init__(worlds, prefix, layout, fixed_base, dt, BODY_WRITES)
        worlds.bind(self)

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up joint, body and geom indices, and the joint columns' reads, in a freshly compiled model."""
        super().bind(model)
        self._q_columns, self._v_columns = columns(self.qadr), columns(self.dofs)
        #: with one environment and the scene final, its joint positions and velocities read from its data (see
        #: :meth:`read_joints`): per array a view at the consecutive columns and None, or the whole row and the
        #: scattered columns
        self._rows: tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray | None] | None = None
        #: likewise for a floating base (see :meth:`read_base`): views of its pose, linear velocity, angular
        #: velocity in body axes and orientation, and the angular velocity's scratch array in world axes
        self._base_rows: tuple[np.ndarray, ...] | None = None

    # -- stepping (called by the engine) ---------------------------------------------------------------
    def drive(self, envs: list[int]) -> None:
        """Write the joint efforts of environments ``envs`` (ascending), each after its ``mj_step1``."""
        self.law.drive_envs(envs, self._worlds.models, self._worlds.datas)

    def limit_velocities(self, env: int) -> None:
        """Clip joint velocities to the limits set with :meth:`set_joint_properties` (after a step)."""
        qvel = self._worlds.datas[env].qvel
        qvel[self.dofs] = np.clip(qvel[self.dofs], -self._max_velocity, self._max_velocity)

    def _velocity_limits_changed(self) -> None:
        """A velocity limit was set: the engine's step plan, which clips the velocities, changes."""
        self._worlds.revision += 1

    def record_wrenches(self, env: int) -> None:
        """Keep environment ``env``'s joint wrenches of the step just taken (after ``mj_rnePostConstraint``)."""
        assert self.wrenches is not None
        self.wrenches[env] = sensing.joint_wrenches(self._worlds.models[env], self._worlds.datas[env],
                                                    self.body_ids)

    # -- state -----------------------------------------------------------------------------------------
    def read_joints(self, q: np.ndarray, qd: np.ndarray, effort: np.ndarray) -> None:
        """Write joint positions, velocities and motor efforts of every copy into the arrays in place."""
        rows = self._rows
        if rows is not None:  # one environment: a copy of the view (by assignment: np.copyto's copy without its
            positions, q_index, velocities, v_index = rows  # argument parsing), or a gather from the row
            if q_index is None:
                q[...] = positions
            else:
                q[0] = positions[q_index]
            if v_index is None:
                qd[...] = velocities
            else:
                qd[0] = velocities[v_index]
        elif self.num_envs == 1:
            qpos, qvel = self._worlds.qpos[0], self._worlds.qvel[0]
            qc, vc = self._q_columns, self._v_columns
            if self._worlds.final:  # views that hold from now on: the data are final
                self._rows = (*_row_reader(qpos, qc), *_row_reader(qvel, vc))
            q[0] = qpos[qc]  # (scattered columns, as the humanoid's: a row read costs less than a gather)
            qd[0] = qvel[vc]
        else:
            q[:] = self._worlds.qpos_matrix()[:, self._q_columns]
            qd[:] = self._worlds.qvel_matrix()[:, self._v_columns]
        effort[...] = self.law.effort

    def read_base(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
                  env_ids: EnvIds | None = None) -> None:
        """Write the root link's frame pose and its origin's velocity into the arrays in place."""
        base = self._base_rows
        if base is not None and env_ids is None:  # one environment, a floating base, the scene final: kept views
            position, velocity, body_spin, quat, spin = base
            pose[...] = position
            lin_vel[...] = velocity
            mujoco.mju_rotVecQuat(spin, body_spin, quat)  # body axes to world axes
            ang_vel[...] = spin
            return
        if self.free_q < 0:
            read_mocap(self._worlds, self.mocap, pose, lin_vel, ang_vel, env_ids)
            return
        read_free(self._worlds, self.free_q, self.free_v, pose, lin_vel, ang_vel, env_ids)
        w = self._worlds
        if self.num_envs == 1 and w.final and not w.blocked:  # views that hold from now on: the data are final
            fq, fv = self.free_q, self.free_v
            p, v = w.qpos[0], w.qvel[0]
            self._base_rows = (p[fq:fq + 7], v[fv:fv + 3], v[fv + 3:fv + 6], p[fq + 3:fq + 7], np.empty(3))

    def body_pose_reader(self, body: int) -> Callable[[], np.ndarray]:
        """A call that reads one non-root body's frame pose in every environment (a new (num_envs, 7) array)."""
        bodies, envs = [body], range(self.num_envs)

        def read() -> np.ndarray:
            return self.read_bodies(bodies, envs, velocity=False)[0][:, 0]
        if self.num_envs != 1:
            return read
        worlds, first = self._worlds, [0]
        kept: list[tuple[np.ndarray, np.ndarray]] = []  # the body's xpos and xquat rows, once the scene is final

        def read_one() -> np.ndarray:  # one environment: through the kept rows once the scene is final
            if not kept:
                if not worlds.final:
                    return read()
                d = worlds.read_datas(first)[0]
                kept.append((d.xpos[int(self.body_ids[body])], d.xquat[int(self.body_ids[body])]))
            if worlds.fresh[0] < POSED:
                worlds.current(first, False)
            position, quat = kept[0]
            return np.concatenate((position, quat)).reshape(1, 7)
        return read_one

    def read_bodies(self, bodies: Sequence[int], env_ids: EnvIds, velocity: bool
                    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Link-frame poses (E, L, 7) and, if asked, velocities of the link origins (E, L, 6)."""
        ids = [int(i) for i in env_ids]
        self._worlds.current(ids, velocity)
        bids = self.body_ids[list(bodies)]
        poses = np.empty((len(ids), len(bids), 7))
        datas = self._worlds.read_datas(ids)
        if not velocity:
            for k, i in enumerate(ids):
                d = datas[i]
                poses[k, :, :3] = d.xpos[bids]
                poses[k, :, 3:] = d.xquat[bids]
            return poses, None
        vels = np.empty((len(ids), len(bids), 6))
        model = self._worlds.template
        assert model is not None
        roots = model.body_rootid[bids]
        for k, i in enumerate(ids):
            d = datas[i]
            poses[k, :, :3] = d.xpos[bids]
            poses[k, :, 3:] = d.xquat[bids]
            cvel = d.cvel[bids]
            ang = cvel[:, :3]
            vels[k, :, :3] = cvel[:, 3:] + np.cross(ang, d.xpos[bids] - d.subtree_com[roots])
            vels[k, :, 3:] = ang
        return poses, vels

    # -- writes ----------------------------------------------------------------------------------------
    def write_joints(self, env_ids: EnvIds, q: np.ndarray, qd: np.ndarray) -> None:
        """Teleport joints of ``env_ids`` to ``q``/``qd`` (len(env_ids), J)."""
        w = self._worlds
        if w.blocked:  # every environment's state in two arrays: no Python per environment
            ids = np.asarray(env_ids, dtype=np.int64)
            w.qpos_matrix()[ids[:, None], self.qadr] = q
            w.qvel_matrix()[ids[:, None], self.dofs] = qd
            w.mark_stale(ids)
            return
        qpos, qvel = w.qpos, w.qvel
        for k, i in enumerate(env_ids):
            qpos[i][self.qadr] = q[k]
            qvel[i][self.dofs] = qd[k]
            w.fresh[i] = 0

    def apply(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
              position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        """Keep one step's joint commands; see :mod:`simulo.engine.mujoco.commands` for the motor law."""
        if self.law.set(mode, position, velocity, force, position_gain, velocity_gain, torque):
            self._worlds.revision += 1

    def cancel_gravity(self) -> None:
        """For the coming step, push every link up with m·g at its centre of mass."""
        self._worlds.pushed = True
        for m, xfrc in zip(self._worlds.models, self._worlds.xfrc):
            xfrc[self.body_ids, :3] -= m.body_mass[self.body_ids, None] * m.opt.gravity

    # -- dynamics queries ------------------------------------------------------------------------------
    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(bodies), 6, J) of the bodies' frame origins, world axes; the root's is zero."""
        ids = [-1 if b == 0 else int(self.body_ids[b]) for b in bodies]
        return self.dynamics.jacobians(self._worlds.models, self._worlds.read_datas(range(self.num_envs)), ids, q)

    def mass_matrices(self, q: np.ndarray) -> np.ndarray:
        """Joint-space mass matrices (num_envs, J, J) at ``q``."""
        return self.dynamics.mass_matrices(self._worlds.models, self._worlds.read_datas(range(self.num_envs)), q)

    def gravity_torques(self, q: np.ndarray) -> np.ndarray:
        """Joint efforts (num_envs, J) that hold the robot still against gravity at ``q``."""
        return self.dynamics.gravity_torques(self._worlds.models, self._worlds.read_datas(range(self.num_envs)), q)

    # -- pushes, gears and contacts (the model edits come from ArticulationEdits) ------------------------
    def apply_link_forces(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the coming step, push each body at its centre of mass (world-frame forces and torques)."""
        self._worlds.pushed = True
        for k, i in enumerate(env_ids):
            xfrc = self._worlds.xfrc[i]
            xfrc[self.body_ids, :3] += forces[k]
            xfrc[self.body_ids, 3:] += torques[k]

    def add_gear(self, joint_a: int, joint_b: int, ratio: float, erp: float, max_force: float) -> None:
        """Couple two joint columns in every copy with a joint equality constraint (``max_force`` unused:
        MuJoCo's equalities are soft constraints without a force limit)."""
        names = [self._prefix + self._joints[c].name for c in (joint_a, joint_b)]
        assert self._worlds.template is not None
        self._worlds.scene.add_gear(names[0], names[1], ratio, erp, float(self._worlds.template.opt.timestep))
        self._worlds.recompile()

    def contact_counts(self, other: RigidBatch, bodies: Sequence[int] | None) -> np.ndarray:
        """Contact points with ``other`` per environment: (num_envs,) or (num_envs, len(bodies)).

        Raises:
            SimuloValueError: ``other`` does not come from the MuJoCo engine.
        """
        if not isinstance(other, MuJoCoRigidBatch):
            raise SimuloValueError(f"contacts are counted against a MuJoCo rigid batch, got {type(other).__name__}")
        groups = [self.body_ids] if bodies is None else [self.body_ids[[b]] for b in bodies]
        assert self._worlds.template is not None
        self._worlds.step_data()
        out = sensing.contact_counts(self._worlds.template, self._worlds.datas, groups, other.body_id)
        return out[:, 0] if bodies is None else out

    def contact_forces(self, bodies: Sequence[int], other: RigidBatch | None) -> np.ndarray:
        """Net contact force (num_envs, len(bodies), 3), world axes, N, from the last step's contacts with
        ``other`` (anything when ``None``).

        Raises:
            SimuloValueError: ``other`` does not come from the MuJoCo engine.
        """
        if other is not None and not isinstance(other, MuJoCoRigidBatch):
            raise SimuloValueError(f"contact forces are taken against a MuJoCo rigid batch, got "
                                   f"{type(other).__name__}")
        ids = self.body_ids[list(bodies)]
        against = None if other is None else other.body_id
        self._worlds.step_data()
        forces = [sensing.contact_forces(m, d, ids, against) for m, d in zip(self._worlds.models, self._worlds.datas)]
        return np.array(forces).reshape(self.num_envs, len(ids), 3)

    def joint_wrenches(self, bodies: Sequence[int]) -> np.ndarray:
        """Parent-on-body wrenches (num_envs, len(bodies), 6) ``[force, torque]`` in body axes about the origin,
        from the last step; the first call switches them on (zeros until the next step)."""
        if self.wrenches is None:
            self.wrenches = np.zeros((self.num_envs, len(self.body_ids), 6))
            self._worlds.revision += 1
        return self.wrenches[:, list(bodies)].copy()
