"""One copy of an articulated robot per Warp world.

Joint columns, bodies and the root link follow the MuJoCo engine's conventions
(:mod:`simulo.engine.mujoco.articulation`): a fixed root link is a mocap body posed per world, a floating one has
a free joint whose angular velocity, in body axes in MuJoCo, is rotated into world axes here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from simulo.engine.base import EnvIds, RigidBatch
from simulo.engine.mujoco.articulation import ArticulationBase
from simulo.engine.mujoco.spec import ModelLayout
from simulo.engine.mujoco_warp import sensing
from simulo.engine.mujoco_warp.bodies import BODY_WRITES, push, read_pose
from simulo.engine.mujoco_warp.motors import WarpMotors
from simulo.engine.mujoco_warp.rigid import WarpRigidBatch
from simulo.engine.mujoco_warp.unsupported import unsupported
from simulo.engine.mujoco_warp.worlds import WarpWorlds, body_state
from simulo.errors import SimuloValueError


class _HostState(NamedTuple):
    """One world's state as :class:`~simulo.engine.mujoco.dynamics.Dynamics` reads it from an ``MjData``."""

    qpos: np.ndarray
    mocap_pos: np.ndarray
    mocap_quat: np.ndarray


class WarpArticulationBatch(ArticulationBase[WarpWorlds]):
    """One copy of an articulated robot per Warp world (implements
    :class:`simulo.engine.base.ArticulationBatch`); its indices, root writes, command setters and model edits are
    the MuJoCo engine's (:class:`~simulo.engine.mujoco.articulation.ArticulationBase`).

    Args:
        worlds: The engine's worlds.
        prefix: The name prefix the robot was attached under.
        layout: Joints and bodies in simulo's order.
        fixed_base: Whether the root link is bolted to the world (a mocap body).
        dt: Time step, s.
    """

    def __init__(self, worlds: WarpWorlds, prefix: str, layout: ModelLayout, fixed_base: bool, dt: float) -> None:
        super().__init__(worlds, prefix, layout, fixed_base, dt, BODY_WRITES)
        self.motors = WarpMotors(self.law)
        worlds.bind(self.bind)

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

    def apply(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
              position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        """Keep one step's joint commands (the MuJoCo engine's motor law, :mod:`.motors`)."""
        self.law.set(mode, position, velocity, force, position_gain, velocity_gain, torque)
        self.motors.modes_set()

    def cancel_gravity(self) -> None:
        """For the coming step, push every link up with m·g at its centre of mass, with each environment's own link
        masses and gravity."""
        lift = np.stack([-m.body_mass[self.body_ids, None] * m.opt.gravity for m in self._worlds.models])
        push(self._worlds, np.arange(self.num_envs), self.body_ids, lift, np.zeros_like(lift))

    # -- dynamics queries (on the host, with MuJoCo, from the worlds' state) -----------------------------
    def _states(self) -> list[_HostState]:
        w = self._worlds
        qpos, mocap_pos, mocap_quat = (np.asarray(w.host(n), dtype=np.float64)
                                       for n in ("qpos", "mocap_pos", "mocap_quat"))
        return [_HostState(qpos[i], mocap_pos[i], mocap_quat[i]) for i in range(self.num_envs)]

    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(bodies), 6, J) of the bodies' frame origins, world axes; the root's is zero."""
        ids = [-1 if b == 0 else int(self.body_ids[b]) for b in bodies]
        return self.dynamics.jacobians(self._worlds.models, self._states(), ids, q)

    def mass_matrices(self, q: np.ndarray) -> np.ndarray:
        """Joint-space mass matrices (num_envs, J, J) at ``q``."""
        return self.dynamics.mass_matrices(self._worlds.models, self._states(), q)

    def gravity_torques(self, q: np.ndarray) -> np.ndarray:
        """Joint efforts (num_envs, J) that hold the robot still against gravity at ``q``."""
        return self.dynamics.gravity_torques(self._worlds.models, self._states(), q)

    # -- gears and pushes (the model edits come from ArticulationBase) -----------------------------------
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
