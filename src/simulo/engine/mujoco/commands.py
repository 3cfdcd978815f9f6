"""Joint commands of one MuJoCo articulation batch: the engine motor, solved with MuJoCo's constraints.

MuJoCo's own actuators have fixed gains per model; simulo's motor has per-joint, per-environment solver gains
(PyBullet's ``positionGain``/``velocityGain``) and a force limit. So the motor is computed here, between
``mj_step1`` (which leaves the mass matrix, bias and passive forces and the constraints of the current state in
``MjData``) and ``mj_step2`` (which integrates), and applied through ``qfrc_applied``. It asks for the joint
velocity PyBullet's motor constraint aims at,

    v* = qd + kv * (v_target - qd) + kp * (q_target - q) / dt      (kp = 0 for a velocity motor),

and, like that constraint, pushes with whatever effort reaches it given the contacts, limits and equalities of
the step, up to its force limit. With ``W`` the motor joints' block of ``inv(M)`` and ``v(tau)`` the joint
velocity after the step under effort ``tau`` (``mj_fwdAcceleration`` and MuJoCo's constraint solver
``mj_fwdConstraint``), it iterates

    tau <- clip(tau + inv(W) (v* - v(tau)) / dt, -limit, limit)

from the last step's answer (the clip is :func:`box_solve`'s: the joints that do not saturate are solved again
with the saturated ones held at their limits), at most :data:`MOTOR_ITERATIONS` times: a projected Jacobi
iteration on the motor rows, as PyBullet's solver runs them beside its contacts. Without constraint rows the
first update is exact and no solve is run. A blocked motor so pushes with its force limit, and a contact
force that the motor itself causes (a finger squeezing a held cube against the other finger) is never mistaken
for a load to push against: a command that changes drops the squeeze at once. ``TORQUE`` joints get their
torque; a passive joint gets nothing. The efforts applied are kept in :attr:`MotorLaw.effort`.

The law runs for every environment of a step at once (:meth:`MotorLaw.drive_envs`): MuJoCo's calls stay per
environment, and the arithmetic, the box solve included, is batched over the environments that share a row of
modes.
"""

from __future__ import annotations

from typing import NamedTuple

import mujoco
import numpy as np

from simulo.engine.base import ControlMode

_POSITION = int(ControlMode.POSITION_MOTOR)
_VELOCITY = int(ControlMode.VELOCITY_MOTOR)
_TORQUE = int(ControlMode.TORQUE)

#: Most constraint solves per step that the motor effort is corrected with (see the module docstring).
MOTOR_ITERATIONS = 32

#: The iteration stops once no motor effort changes by more than this, N or N·m.
MOTOR_TOLERANCE = 1e-3


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x = b`` for a batch of square ``a`` (batch, k, k) and right-hand sides ``b`` (batch, k)."""
    # np.linalg.solve is numpy's one public call of LAPACK's gesv. Its type checks and error-state context cost
    # 5.8 us a call for one 7x7 problem (numpy 2.4, timeit), against 1.4 us for the private gufunc it ends in
    # (numpy.linalg._umath_linalg.solve, the same bytes). `simulo pick-place --engine mujoco` makes some 9,000
    # of these calls: its process takes 1.05 s of CPU with this call, 1.00 s with the private one (median of
    # 10 alternating runs on a 2-core machine).
    out: np.ndarray = np.linalg.solve(a, b[..., None])[..., 0]
    return out


def box_solve(block: np.ndarray, rhs: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Efforts ``tau`` within ``+/- limit`` that meet ``(block @ tau)[j] == rhs[j]`` for every joint ``j`` not at
    its limit, the joints at a limit wanting more than it (the box-constrained problem PyBullet's solver solves
    for its motor rows, ``min 1/2 tau' W tau - rhs' tau``), for a batch of problems at once.

    An active-set method, run on every problem in step: the joint that exceeds its limit most is held there and
    the others solved again; a held joint that no longer wants its limit is let go. A held joint's row becomes a
    unit row and its column moves to the right-hand side, so one batched solve serves problems holding
    different joints. A problem leaves the batch once it is solved.

    Args:
        block: Symmetric positive definite matrices (batch, k, k).
        rhs: Right-hand sides (batch, k).
        limit: Effort limits, >= 0 (batch, k).

    Returns:
        The efforts (batch, k).
    """
    tau = _solve(block, rhs)
    over_any = (np.abs(tau) > limit).any(axis=1)
    if not over_any.any():  # no joint at its limit (the common case): the unconstrained solutions
        return tau
    left = np.flatnonzero(over_any)  # the problems not solved yet, as rows of tau
    w, r, bound, t = block[left], rhs[left], limit[left], tau[left]
    k = r.shape[1]
    sign = np.zeros(r.shape)  # +1 / -1: held at +limit / -limit; 0: free
    unit = np.eye(k)
    for _ in range(4 * k):
        over = np.where(sign == 0.0, np.abs(t) - bound, -np.inf)
        hold = over.max(axis=1) > 0.0
        j = over.argmax(axis=1)  # the first of equals
        at = np.flatnonzero(hold)
        sign[at, j[at]] = np.where(t[at, j[at]] > 0.0, 1.0, -1.0)
        rest = np.flatnonzero(~hold)  # no free joint exceeds: let go of the held one that would rather push less
        if rest.size:                 # most, if any; else the problem is solved
            wants = sign[rest] * (np.matmul(w[rest], t[rest, :, None])[..., 0] - r[rest])
            jj = wants.argmax(axis=1)
            wanting = wants[np.arange(rest.size), jj] > 0.0
            sign[rest[wanting], jj[wanting]] = 0.0
            solved = rest[~wanting]
            if solved.size:
                tau[left[solved]] = np.clip(t[solved], -bound[solved], bound[solved])
                keep = np.ones(len(left), dtype=bool)
                keep[solved] = False
                left, w, r, bound, t, sign = left[keep], w[keep], r[keep], bound[keep], t[keep], sign[keep]
                if not left.size:
                    return tau
        held = sign != 0.0
        fixed = sign * bound
        system = np.where(held[:, :, None] | held[:, None, :], unit, w)
        t = _solve(system, np.where(held, fixed, r - np.matmul(w, fixed[..., None])[..., 0]))
    tau[left] = np.clip(t, -bound, bound)
    return tau


def motor_update(effort: np.ndarray, going: np.ndarray, reached: np.ndarray, qd: np.ndarray, target: np.ndarray,
                 block: np.ndarray, limit: np.ndarray, dt: float) -> np.ndarray:
    """One pass of the motor iteration for the environments ``going`` (indices into the rows): from the joint
    accelerations ``reached`` that the current ``effort`` gave through the step's constraints, the box-limited
    efforts that reach ``target``, written into ``effort`` in place. Shared by both MuJoCo engines.

    Returns:
        The entries of ``going`` whose efforts still changed by more than :data:`MOTOR_TOLERANCE`.
    """
    w, now = block[going], effort[going]
    reach = qd[going] + reached[going] * dt
    update = box_solve(w, (target[going] - reach) / dt + np.matmul(w, now[..., None])[..., 0], limit[going])
    done = np.abs(update - now).max(axis=1) <= MOTOR_TOLERANCE
    effort[going] = update
    result: np.ndarray = going[~done]
    return result


def columns(indices: np.ndarray) -> slice | np.ndarray:
    """The indices as a slice when they are consecutive and ascending (indexing with a slice takes a view,
    without an index array)."""
    if len(indices) and np.array_equal(indices, np.arange(indices[0], indices[0] + len(indices))):
        return slice(int(indices[0]), int(indices[0]) + len(indices))
    return indices


class _Motors(NamedTuple):
    """The motor joints of the environments that share one row of modes, found once per set of modes."""

    cols: np.ndarray  # the motor joint columns
    dofs: np.ndarray  # their DOF addresses
    qadr: np.ndarray  # their qpos addresses
    position: np.ndarray | None  # which of them are position motors (None: all are)
    rows: np.ndarray  # (motors + 1, nv): a zero row (for the passive and bias forces) and a one per motor DOF
    envs: np.ndarray  # the environments with this row of modes, ascending


class MotorLaw:
    """The commands of one batch and the efforts they applied.

    Args:
        num_envs: Number of copies.
        num_joints: Number of joint columns.
        dt: Time step, s.
    """

    def __init__(self, num_envs: int, num_joints: int, dt: float) -> None:
        shape = (num_envs, num_joints)
        self.dt = dt
        self.mode = np.zeros(shape, dtype=np.int8)
        self._mode_key = self.mode.tobytes()
        self.position = np.zeros(shape)
        self.velocity = np.zeros(shape)
        self.force = np.zeros(shape)
        self.kp = np.zeros(shape)
        self.kv = np.zeros(shape)
        self.torque = np.zeros(shape)  # zero wherever the mode is not TORQUE
        self._effort = np.zeros(shape)
        #: the efforts applied (the torques themselves while no motor runs: then they are the efforts)
        self.effort = self.torque
        #: per motor joint, the effort it applied in the last step, which the next step's iteration starts from
        self._last = np.zeros(shape)
        self._torque_on = np.zeros(shape, dtype=bool)  # where the mode is TORQUE
        self._all_on = False
        self._any_on = False
        self._active = np.zeros(num_envs, dtype=bool)  # environments with any non-passive joint
        self._motors = np.zeros(num_envs, dtype=bool)  # environments with any motor joint
        self._any_motor = False
        #: the environments with a motor, grouped by their row of modes (made when first driven)
        self._groups: list[_Motors] | None = None
        #: whether each environment has any non-passive joint, and those environments in order
        self.active: list[bool] = [False] * num_envs
        self.active_envs: list[int] = []
        self.dofs = np.zeros(num_joints, dtype=np.int64)
        self.qadr = np.zeros(num_joints, dtype=np.int64)
        self._dof_columns: slice | np.ndarray = self.dofs
        self._nv = 0

    def bind(self, model: mujoco.MjModel, dofs: np.ndarray, qadr: np.ndarray) -> None:
        """Take the joint columns' DOF and qpos addresses in a freshly compiled model."""
        self.dofs, self.qadr = dofs, qadr
        self._dof_columns = columns(dofs)
        self._nv = model.nv
        self._groups = None

    def set(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
            position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> bool:
        """Keep one step's commands (see :meth:`simulo.engine.base.ArticulationBatch.apply`).

        Returns:
            Whether the modes changed (then which environments a motor runs in may have changed).
        """
        changed = mode.tobytes() != self._mode_key  # (an int8 mode array, as the contract's, compares by its bytes)
        if changed:
            self._last[mode != self.mode] = 0.0
            self.mode[:] = mode
            self._mode_key = self.mode.tobytes()
            self._torque_on = mode == _TORQUE
            self._all_on = bool(self._torque_on.all())
            self._any_on = bool(self._torque_on.any())
            self._active = (mode != 0).any(axis=1)
            self._motors = ((mode == _POSITION) | (mode == _VELOCITY)).any(axis=1)
            self._any_motor = bool(self._motors.any())
            self._groups = None
            self.active = self._active.tolist()
            self.active_envs = np.flatnonzero(self._active).tolist()
            self.torque.fill(0.0)
            self.effort = self._effort if self._any_motor else self.torque
        # entries a joint's mode does not use may be NaN: drive() reads the motor arrays at motor columns only,
        # and only while a motor runs (then every call copies them)
        if self._any_motor:
            for kept, given in ((self.position, position), (self.velocity, velocity), (self.force, force),
                                (self.kp, position_gain), (self.kv, velocity_gain)):
                np.copyto(kept, given)
        self.set_torques(torque)  # (motor columns of the efforts are filled in by drive())
        return changed

    def set_positions(self, position: np.ndarray) -> None:
        """Keep new position targets (the modes and every other command unchanged since :meth:`set`)."""
        if self._any_motor:
            np.copyto(self.position, position)

    def set_torques(self, torque: np.ndarray) -> None:
        """Keep new torques of the ``TORQUE`` joints (:meth:`set` ends with it; alone, the modes and every other
        command are unchanged since :meth:`set`)."""
        if self._all_on:
            self.torque[...] = torque  # (a plain copy, as np.copyto's, without its argument parsing)
        elif self._any_on:
            np.copyto(self.torque, torque, where=self._torque_on)
        if self._any_motor:
            self._effort[...] = self.torque

    @property
    def motor_envs(self) -> np.ndarray:
        """Whether each environment's efforts depend on its current state (a motor runs), (num_envs,)."""
        return self._motors

    @property
    def any_motor(self) -> bool:
        """Whether a motor runs in any environment."""
        return self._any_motor

    @property
    def dof_columns(self) -> slice | np.ndarray:
        """The joint columns' DOF addresses (a slice when consecutive), where :attr:`torque` rows are written."""
        return self._dof_columns

    def _motor_groups(self) -> list[_Motors]:
        """The environments with a motor, grouped by their row of modes, with each group's motor joints."""
        groups = self._groups
        if groups is None:
            members: dict[bytes, list[int]] = {}
            for env in np.flatnonzero(self._motors).tolist():
                members.setdefault(self.mode[env].tobytes(), []).append(env)
            groups = []
            for envs in members.values():
                mode = self.mode[envs[0]]
                cols = np.flatnonzero((mode == _POSITION) | (mode == _VELOCITY))
                dofs = self.dofs[cols]
                position = mode[cols] == _POSITION
                rows = np.zeros((len(dofs) + 1, self._nv))
                rows[np.arange(1, len(dofs) + 1), dofs] = 1.0
                groups.append(_Motors(cols, dofs, self.qadr[cols], None if position.all() else position, rows,
                                      np.array(envs)))
            self._groups = groups
        return groups

    def drive_envs(self, envs: list[int], models: list[mujoco.MjModel], datas: list[mujoco.MjData]) -> None:
        """Write the joint efforts of environments ``envs`` (ascending) into their ``data.qfrc_applied``, each after
        its ``mj_step1``."""
        active, motors, torque, dof_columns = self.active, self._motors, self.torque, self._dof_columns
        for env in envs:
            if active[env] and not motors[env]:  # torques only (qfrc_applied is zero before a step; robots own
                datas[env].qfrc_applied[dof_columns] = torque[env]  # disjoint DOFs)
        if not self._any_motor:
            return
        chosen = np.zeros(len(motors), dtype=bool)
        chosen[envs] = True
        for group in self._motor_groups():
            members = group.envs[chosen[group.envs]]
            if members.size:
                self._drive_group(group, members, models, datas)

    def _drive_group(self, group: _Motors, envs: np.ndarray, models: list[mujoco.MjModel],
                     datas: list[mujoco.MjData]) -> None:
        """The motor law for environments ``envs`` of one group, batched over them."""
        cols, dofs, qadr, dt = group.cols, group.dofs, group.qadr, self.dt
        count, k = len(envs), len(dofs)
        qd, q = np.empty((count, k)), np.empty((count, k))
        given = np.repeat(group.rows[None], count, axis=0)
        solved = np.empty_like(given)
        unconstrained = np.empty(count, dtype=bool)
        for e, env in enumerate(envs.tolist()):
            d = datas[env]
            qd[e] = d.qvel[dofs]
            q[e] = d.qpos[qadr]
            np.subtract(d.qfrc_passive, d.qfrc_bias, out=given[e, 0])
            # the joint accelerations without motors, and the motor rows of M^-1 (the other joints move freely)
            mujoco.mj_solveM(models[env], d, solved[e], given[e])
            unconstrained[e] = d.nefc == 0
        block = solved[:, 1:, dofs]
        at = np.ix_(envs, cols)
        pull = self.kp[at] * (self.position[at] - q)
        if group.position is not None:  # velocity motors pull nothing (their position targets may be NaN)
            pull = np.where(group.position, pull, 0.0)
        target = qd + self.kv[at] * (self.velocity[at] - qd) + pull / dt
        limit = self.force[at]
        tau = self.torque[envs]
        efforts = np.empty((count, k))
        free = np.flatnonzero(unconstrained)  # no contact, limit or equality: the free motion is the motion
        if free.size:
            efforts[free] = box_solve(block[free], (target[free] - qd[free]) / dt - solved[free, 0][:, dofs],
                                      limit[free])
        bound = np.flatnonzero(~unconstrained)
        if bound.size:
            efforts[bound] = self._solve(models, datas, envs[bound], tau[bound], cols, dofs, target[bound],
                                         qd[bound], block[bound], limit[bound])
        tau[:, cols] = efforts
        self._last[at] = efforts
        dof_columns = self._dof_columns
        for e, env in enumerate(envs.tolist()):
            datas[env].qfrc_applied[dof_columns] = tau[e]
        self.effort[envs] = tau

    def _solve(self, models: list[mujoco.MjModel], datas: list[mujoco.MjData], envs: np.ndarray, tau: np.ndarray,
               cols: np.ndarray, dofs: np.ndarray, target: np.ndarray, qd: np.ndarray, block: np.ndarray,
               limit: np.ndarray) -> np.ndarray:
        """The motor efforts (len(envs), motors) that reach ``target`` through this step's constraints, within
        ``limit``; ``tau`` holds the environments' torques, and the motor columns are overwritten."""
        dt = self.dt
        effort = np.clip(self._last[np.ix_(envs, cols)], -limit, limit)
        tau[:, cols] = effort
        dof_columns = self._dof_columns
        pairs = [(models[env], datas[env]) for env in envs.tolist()]
        for (_, d), row in zip(pairs, tau):
            d.qfrc_applied[dof_columns] = row  # then each iteration changes the motor DOFs alone
        going = np.arange(len(envs))
        reached = np.empty_like(effort)
        for _ in range(MOTOR_ITERATIONS):
            for e in going.tolist():
                m, d = pairs[e]
                d.qfrc_applied[dofs] = effort[e]
                mujoco.mj_fwdAcceleration(m, d)
                mujoco.mj_fwdConstraint(m, d)
                reached[e] = d.qacc[dofs]
            going = motor_update(effort, going, reached, qd, target, block, limit, dt)
            if not going.size:
                break
        return effort
