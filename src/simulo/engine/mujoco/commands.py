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
"""

from __future__ import annotations

from typing import NamedTuple

import mujoco
import numpy as np
from numpy.linalg import _umath_linalg

from simulo.engine.base import ControlMode

_POSITION = int(ControlMode.POSITION_MOTOR)
_VELOCITY = int(ControlMode.VELOCITY_MOTOR)
_TORQUE = int(ControlMode.TORQUE)

#: Most constraint solves per step that the motor effort is corrected with (see the module docstring).
MOTOR_ITERATIONS = 32

#: The iteration stops once no motor effort changes by more than this, N or N·m.
MOTOR_TOLERANCE = 1e-3


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.linalg.solve(a, b)`` for a square ``a`` and a vector ``b``: the same LAPACK call (the same bytes),
    without the wrapper's type checks and error-state context (``a`` is positive definite here)."""
    return _umath_linalg.solve1(a, b, signature="dd->d")


def box_solve(block: np.ndarray, rhs: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Efforts ``tau`` within ``+/- limit`` that meet ``(block @ tau)[j] == rhs[j]`` for every joint ``j`` not at
    its limit, the joints at a limit wanting more than it (the box-constrained problem PyBullet's solver solves
    for its motor rows, ``min 1/2 tau' W tau - rhs' tau``).

    An active-set method: the joint that exceeds its limit most is held there and the others solved again; a
    held joint that no longer wants its limit is let go. ``block`` is symmetric positive definite.
    """
    tau = _solve(block, rhs)
    if (np.abs(tau) <= limit).all():  # no joint at its limit (the common case): the unconstrained solution
        return tau
    n = len(rhs)
    bound = limit.tolist()
    sign = [0.0] * n  # +1 / -1: held at +limit / -limit; 0: free (the choices are made on Python floats)
    for _ in range(4 * n):
        values = tau.tolist()
        over = [abs(v) - b if s == 0.0 else -np.inf for v, b, s in zip(values, bound, sign)]
        worst = max(over)
        if worst > 0.0:  # hold the joint that exceeds its limit most (the first of equals)
            j = over.index(worst)
            sign[j] = 1.0 if values[j] > 0.0 else -1.0
        else:  # let go of the held joint that would rather push less than its limit most, if any
            residual = (block @ tau - rhs).tolist()
            wants = [s * r for s, r in zip(sign, residual)]
            most = max(wants)
            if most <= 0.0:
                break
            sign[wants.index(most)] = 0.0
        held = np.array([j for j in range(n) if sign[j] != 0.0], dtype=np.intp)
        free = np.array([j for j in range(n) if sign[j] == 0.0], dtype=np.intp)
        tau[held] = [sign[j] * bound[j] for j in held.tolist()]
        if len(free):
            rows = free[:, None]
            tau[free] = _solve(block[rows, free], rhs[free] - block[rows, held] @ tau[held])
    return np.clip(tau, -limit, limit)


def columns(indices: np.ndarray) -> slice | np.ndarray:
    """The indices as a slice when they are consecutive and ascending (indexing with a slice takes a view,
    without an index array)."""
    if len(indices) and np.array_equal(indices, np.arange(indices[0], indices[0] + len(indices))):
        return slice(int(indices[0]), int(indices[0]) + len(indices))
    return indices


class _Motors(NamedTuple):
    """One environment's motor joints, found once per set of modes, and its scratch arrays for the law."""

    cols: slice | np.ndarray  # the motor joint columns
    dofs: np.ndarray  # their DOF addresses
    qadr: np.ndarray  # their qpos addresses
    position: np.ndarray | None  # which of them are position motors (None: all are)
    unit: np.ndarray  # (motors, nv): a one per motor DOF, for the motor block of inv(M)
    inverse: np.ndarray  # (motors, nv): inv(M) rows of the motor DOFs
    bias: np.ndarray  # (1, nv): passive minus bias forces
    free: np.ndarray  # (1, nv): the joint accelerations without motors


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
        self._plans: dict[int, _Motors] = {}  # per environment with a motor, its motor joints (made when first driven)
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
        self._plans = {}

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
            self._plans = {}
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

    def _motor_joints(self, env: int) -> _Motors:
        mode = self.mode[env]
        cols = np.flatnonzero((mode == _POSITION) | (mode == _VELOCITY))
        dofs = self.dofs[cols]
        position = mode[cols] == _POSITION
        unit = np.zeros((len(dofs), self._nv))
        unit[np.arange(len(dofs)), dofs] = 1.0
        plan = _Motors(columns(cols), dofs, self.qadr[cols], None if position.all() else position, unit,
                       np.empty_like(unit), np.empty((1, self._nv)), np.empty((1, self._nv)))
        self._plans[env] = plan
        return plan

    def drive(self, env: int, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Write environment ``env``'s joint efforts into ``data.qfrc_applied`` (after ``mj_step1``)."""
        if not self._active[env]:
            return
        if not self._motors[env]:  # torques only (qfrc_applied is zero before a step; robots own disjoint DOFs)
            data.qfrc_applied[self._dof_columns] = self.torque[env]
            return
        motors = self._plans.get(env) or self._motor_joints(env)
        cols, dofs, dt = motors.cols, motors.dofs, self.dt
        tau = self.torque[env].copy()
        qd = data.qvel[dofs]
        pull = self.kp[env, cols] * (self.position[env, cols] - data.qpos[motors.qadr])
        if motors.position is not None:  # velocity motors pull nothing (their position targets may be NaN)
            pull = np.where(motors.position, pull, 0.0)
        target = qd + self.kv[env, cols] * (self.velocity[env, cols] - qd) + pull / dt
        # the joint accelerations without motors, and the motor block of M^-1 (the other joints move freely)
        np.subtract(data.qfrc_passive, data.qfrc_bias, out=motors.bias[0])
        mujoco.mj_solveM(model, data, motors.free, motors.bias)
        mujoco.mj_solveM(model, data, motors.inverse, motors.unit)
        block = motors.inverse[:, dofs]
        limit = self.force[env, cols]
        if data.nefc == 0:  # no contact, limit or equality: the free motion is the motion
            tau[cols] = box_solve(block, (target - qd) / dt - motors.free[0, dofs], limit)
        else:
            tau[cols] = self._solve(model, data, tau, motors, target, block, limit, env)
        self._last[env, cols] = tau[cols]
        data.qfrc_applied[self._dof_columns] = tau
        self.effort[env] = tau

    def _solve(self, model: mujoco.MjModel, data: mujoco.MjData, tau: np.ndarray, motors: _Motors,
               target: np.ndarray, block: np.ndarray, limit: np.ndarray, env: int) -> np.ndarray:
        """The motor efforts that reach ``target`` through this step's constraints, within ``limit``."""
        cols, dofs, dt = motors.cols, motors.dofs, self.dt
        effort = np.clip(self._last[env, cols], -limit, limit)
        qd = data.qvel[dofs]
        tau[cols] = effort
        qfrc = data.qfrc_applied
        qfrc[self._dof_columns] = tau  # then each iteration changes the motor DOFs alone
        for _ in range(MOTOR_ITERATIONS):
            qfrc[dofs] = effort
            mujoco.mj_fwdAcceleration(model, data)
            mujoco.mj_fwdConstraint(model, data)
            reached = qd + data.qacc[dofs] * dt
            update = box_solve(block, (target - reached) / dt + block @ effort, limit)
            done = np.abs(update - effort).max() <= MOTOR_TOLERANCE
            effort = update
            if done:
                break
        return effort
