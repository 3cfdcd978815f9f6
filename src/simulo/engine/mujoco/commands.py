"""Joint commands of one MuJoCo articulation batch: the engine motor as an explicit law on ``qfrc_applied``.

MuJoCo's own actuators have fixed gains per model; simulo's motor has per-joint, per-environment solver gains
(PyBullet's ``positionGain``/``velocityGain``) and a force limit. So the motor is computed here, between
``mj_step1`` (which leaves the mass matrix, bias and passive forces of the current state in ``MjData``) and
``mj_step2`` (which integrates), and applied through ``qfrc_applied``. It asks for the joint velocity PyBullet's
motor constraint aims at,

    v* = qd + kv * (v_target - qd) + kp * (q_target - q) / dt      (kp = 0 for a velocity motor),

and applies the effort that reaches it in one step while the other joints move freely: with ``a_free`` the
accelerations without motors (``inv(M) (passive - bias)``) and ``W`` the motor joints' block of ``inv(M)``,
``tau = inv(W) ((v* - qd) / dt - a_free_s) + held``, clipped to +/- the force limit. ``held`` carries over
what contacts and constraints (solved by MuJoCo after this law) took of the last step's aim,
``held += inv(W) (v*_last - qd) / dt``, so a blocked motor pushes up to its force limit within a few steps, as
PyBullet's motor, a solver constraint, does at once. ``TORQUE`` joints get their torque; a passive joint gets
nothing. The efforts applied are kept in :attr:`MotorLaw.effort`.
"""

from __future__ import annotations

import mujoco
import numpy as np

from simulo.engine.base import ControlMode

_POSITION = int(ControlMode.POSITION_MOTOR)
_VELOCITY = int(ControlMode.VELOCITY_MOTOR)
_TORQUE = int(ControlMode.TORQUE)


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
        self.position = np.zeros(shape)
        self.velocity = np.zeros(shape)
        self.force = np.zeros(shape)
        self.kp = np.zeros(shape)
        self.kv = np.zeros(shape)
        self.torque = np.zeros(shape)
        self.effort = np.zeros(shape)
        #: per motor joint, the velocity it aimed at in the last step and the effort carried over for what
        #: contacts and constraints took of it (zero where the joint was not a motor)
        self._aim = np.zeros(shape)
        self._held = np.zeros(shape)
        self._torque_off = np.ones(shape, dtype=bool)  # where the mode is not TORQUE
        self._active = np.zeros(num_envs, dtype=bool)  # environments with any non-passive joint
        self._motors = np.zeros(num_envs, dtype=bool)  # environments with any motor joint
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
        if not np.array_equal(mode, self.mode):
            self._held[mode != self.mode] = 0.0
            self.mode[:] = mode
            self._torque_off = mode != _TORQUE
            self._active = (mode != 0).any(axis=1)
            self._motors = ((mode == _POSITION) | (mode == _VELOCITY)).any(axis=1)
        # entries a joint's mode does not use may be NaN: drive() reads the motor arrays at motor columns only
        for kept, given in ((self.position, position), (self.velocity, velocity), (self.force, force),
                            (self.kp, position_gain), (self.kv, velocity_gain), (self.torque, torque)):
            np.copyto(kept, given)
        self.torque[self._torque_off] = 0.0
        np.copyto(self.effort, self.torque)  # motor columns are filled in by drive()

    @property
    def motor_envs(self) -> np.ndarray:
        """Whether each environment's efforts depend on its current state (a motor runs), (num_envs,)."""
        return self._motors

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
        need = np.linalg.solve(block, (target - qd) / self.dt - free[0, dofs])
        # what contacts and constraints took of last step's aim is pushed against, up to the limit, as
        # PyBullet's motor constraint does inside its solver (a blocked finger squeezes with its force limit)
        held = self._held[env, cols] + np.linalg.solve(block, (self._aim[env, cols] - qd) / self.dt)
        limit = self.force[env, cols]
        tau[cols] = np.clip(need + held, -limit, limit)
        self._held[env, cols] = tau[cols] - need
        self._aim[env, cols] = target
        data.qfrc_applied[self.dofs] = tau
        self.effort[env] = tau
