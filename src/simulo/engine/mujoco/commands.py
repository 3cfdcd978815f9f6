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


def box_solve(block: np.ndarray, rhs: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Efforts ``tau`` within ``+/- limit`` that meet ``(block @ tau)[j] == rhs[j]`` for every joint ``j`` not at
    its limit, the joints at a limit wanting more than it (the box-constrained problem PyBullet's solver solves
    for its motor rows, ``min 1/2 tau' W tau - rhs' tau``).

    An active-set method: the joint that exceeds its limit most is held there and the others solved again; a
    held joint that no longer wants its limit is let go. ``block`` is symmetric positive definite.
    """
    n = len(rhs)
    tau = np.linalg.solve(block, rhs)
    sign = np.zeros(n)  # +1 / -1: held at +limit / -limit; 0: free
    for _ in range(4 * n):
        over = np.where(sign == 0, np.abs(tau) - limit, -np.inf)
        wants = sign * (block @ tau - rhs)  # > 0: a held joint would rather push less than its limit
        if over.max() <= 0.0 and (wants <= 0.0).all():
            break
        if over.max() > 0.0:
            j = int(np.argmax(over))
            sign[j] = np.sign(tau[j])
        else:
            sign[int(np.argmax(wants))] = 0.0
        held = sign != 0
        tau[held] = sign[held] * limit[held]
        free = ~held
        if free.any():
            tau[free] = np.linalg.solve(block[np.ix_(free, free)], rhs[free] - block[np.ix_(free, held)] @ tau[held])
    return np.clip(tau, -limit, limit)


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
        self.torque = np.zeros(shape)
        self.effort = np.zeros(shape)
        #: per motor joint, the effort it applied in the last step, which the next step's iteration starts from
        self._last = np.zeros(shape)
        self._torque_off = np.ones(shape, dtype=bool)  # where the mode is not TORQUE
        self._any_off = True
        self._active = np.zeros(num_envs, dtype=bool)  # environments with any non-passive joint
        self._motors = np.zeros(num_envs, dtype=bool)  # environments with any motor joint
        self._any_motor = False
        #: whether each environment has any non-passive joint, and those environments in order
        self.active: list[bool] = [False] * num_envs
        self.active_envs: list[int] = []
        self.dofs = np.zeros(num_joints, dtype=np.int64)
        self.qadr = np.zeros(num_joints, dtype=np.int64)
        self._nv = 0

    def bind(self, model: mujoco.MjModel, dofs: np.ndarray, qadr: np.ndarray) -> None:
        """Take the joint columns' DOF and qpos addresses in a freshly compiled model."""
        self.dofs, self.qadr = dofs, qadr
        self._nv = model.nv

    def set(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
            position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        """Keep one step's commands (see :meth:`simulo.engine.base.ArticulationBatch.apply`)."""
        if mode.tobytes() != self._mode_key:  # (an int8 mode array, as the contract's, compares by its bytes)
            self._last[mode != self.mode] = 0.0
            self.mode[:] = mode
            self._mode_key = self.mode.tobytes()
            self._torque_off = mode != _TORQUE
            self._any_off = bool(self._torque_off.any())
            self._active = (mode != 0).any(axis=1)
            self._motors = ((mode == _POSITION) | (mode == _VELOCITY)).any(axis=1)
            self._any_motor = bool(self._motors.any())
            self.active = self._active.tolist()
            self.active_envs = np.flatnonzero(self._active).tolist()
        # entries a joint's mode does not use may be NaN: drive() reads the motor arrays at motor columns only,
        # and only while a motor runs (then every call copies them)
        if self._any_motor:
            for kept, given in ((self.position, position), (self.velocity, velocity), (self.force, force),
                                (self.kp, position_gain), (self.kv, velocity_gain)):
                np.copyto(kept, given)
        np.copyto(self.torque, torque)
        if self._any_off:
            self.torque[self._torque_off] = 0.0
        np.copyto(self.effort, self.torque)  # motor columns are filled in by drive()

    def set_positions(self, position: np.ndarray) -> None:
        """Keep new position targets (the modes and every other command unchanged since :meth:`set`)."""
        if self._any_motor:
            np.copyto(self.position, position)

    @property
    def motor_envs(self) -> np.ndarray:
        """Whether each environment's efforts depend on its current state (a motor runs), (num_envs,)."""
        return self._motors

    @property
    def any_motor(self) -> bool:
        """Whether a motor runs in any environment."""
        return self._any_motor

    def push_torques(self, env: int, qfrc_applied: np.ndarray) -> None:
        """Write environment ``env``'s joint torques into its ``qfrc_applied`` (no motor runs in it)."""
        qfrc_applied[self.dofs] = self.torque[env]

    def drive(self, env: int, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Write environment ``env``'s joint efforts into ``data.qfrc_applied`` (after ``mj_step1``)."""
        if not self._active[env]:
            return
        if not self._motors[env]:  # torques only (qfrc_applied is zero before a step; robots own disjoint DOFs)
            data.qfrc_applied[self.dofs] = self.torque[env]
            return
        mode = self.mode[env]
        tau = self.torque[env].copy()
        cols = np.flatnonzero((mode == _POSITION) | (mode == _VELOCITY))
        dofs = self.dofs[cols]
        qd = data.qvel[dofs]
        q = data.qpos[self.qadr[cols]]
        pull = np.where(mode[cols] == _POSITION, self.kp[env, cols] * (self.position[env, cols] - q), 0.0)
        target = qd + self.kv[env, cols] * (self.velocity[env, cols] - qd) + pull / self.dt
        # the joint accelerations without motors, and the motor block of M^-1 (the other joints move freely)
        free = np.empty((1, self._nv))
        mujoco.mj_solveM(model, data, free, (data.qfrc_passive - data.qfrc_bias)[None])
        unit = np.zeros((len(dofs), self._nv))
        unit[np.arange(len(dofs)), dofs] = 1.0
        inverse = np.empty_like(unit)
        mujoco.mj_solveM(model, data, inverse, unit)
        block = inverse[:, dofs]
        limit = self.force[env, cols]
        if data.nefc == 0:  # no contact, limit or equality: the free motion is the motion
            tau[cols] = box_solve(block, (target - qd) / self.dt - free[0, dofs], limit)
        else:
            tau[cols] = self._solve(model, data, tau, cols, dofs, target, block, limit, env)
        self._last[env, cols] = tau[cols]
        data.qfrc_applied[self.dofs] = tau
        self.effort[env] = tau

    def _solve(self, model: mujoco.MjModel, data: mujoco.MjData, tau: np.ndarray, cols: np.ndarray,
               dofs: np.ndarray, target: np.ndarray, block: np.ndarray, limit: np.ndarray, env: int) -> np.ndarray:
        """The motor efforts that reach ``target`` through this step's constraints, within ``limit``."""
        effort = np.clip(self._last[env, cols], -limit, limit)
        qd = data.qvel[dofs]
        for _ in range(MOTOR_ITERATIONS):
            tau[cols] = effort
            data.qfrc_applied[self.dofs] = tau
            mujoco.mj_fwdAcceleration(model, data)
            mujoco.mj_fwdConstraint(model, data)
            reached = qd + data.qacc[dofs] * self.dt
            update = box_solve(block, (target - reached) / self.dt + block @ effort, limit)
            done = np.max(np.abs(update - effort)) <= MOTOR_TOLERANCE
            effort = update
            if done:
                break
        return effort
