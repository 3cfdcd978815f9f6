"""The engine's own joint motor as a drive law (:class:`~simulo.MotorGainsConfig`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.engine.base import ControlMode
from simulo.sim.drives import JointCommands, Saturation

if TYPE_CHECKING:
    from simulo.sim.drives import DriveData, DriveInputs

_PASSIVE = int(ControlMode.PASSIVE)
_POSITION = int(ControlMode.POSITION_MOTOR)
_VELOCITY = int(ControlMode.VELOCITY_MOTOR)
_TORQUE = int(ControlMode.TORQUE)


class EngineMotorDrive:
    """Joints driven by the engine's built-in motor, the default drive.

    Per joint and environment: a position target runs the engine's position motor, else a velocity target
    its velocity motor (both with the solver gains and force limit below, which are not stiffness in
    N·m/rad); else an effort target is applied as a raw torque, saturated at the joint's effort limit; a
    joint with no target is passive. The engine solves the motor inside its step, so :meth:`compute` only
    chooses modes and clips the raw efforts.

    Args:
        cols: Joint columns of this drive.
        num_joints: Number of joints of the robot.
        position_gain: Solver position gain per column (PyBullet ``positionGains``).
        velocity_gain: Solver velocity gain per column.
        max_force: Motor force limit per column, N·m or N.
    """

    explicit = False

    def __init__(self, cols: np.ndarray, num_joints: int, position_gain: np.ndarray, velocity_gain: np.ndarray,
                 max_force: np.ndarray) -> None:
        self._cols = np.asarray(cols, dtype=np.int64)
        self._all = bool(np.array_equal(self._cols, np.arange(num_joints)))
        self._index: Any = slice(None) if self._all else self._cols
        self.position_gain = np.asarray(position_gain, dtype=float)
        self.velocity_gain = np.asarray(velocity_gain, dtype=float)
        self.max_force = np.asarray(max_force, dtype=float)
        self._limit = np.full(len(self._cols), np.inf)
        self._saturate = Saturation(self._limit)

    @property
    def cols(self) -> np.ndarray:
        """The joint columns this drive drives."""
        return self._cols

    def configure(self, data: DriveData) -> None:
        """Write the motor gains and force limits into the robot's engine tables (runtime hook)."""
        c = self._index
        data.motor_pos_gain[:, c] = self.position_gain
        data.motor_vel_gain[:, c] = self.velocity_gain
        data.motor_force[:, c] = self.max_force
        self._limit = data.effort_limit[c].copy()
        self._saturate = Saturation(self._limit)

    def compute(self, data: DriveData, inputs: DriveInputs) -> JointCommands:
        """Each joint's mode: position over velocity over effort; raw efforts clipped (runtime hook)."""
        index = self._index
        if self._all:  # every joint: the masks as they are
            pos_set, vel_set, eff_set = inputs.pos_set, inputs.vel_set, inputs.eff_set
        else:
            c = self._cols
            pos_set, vel_set, eff_set = inputs.pos_set[:, c], inputs.vel_set[:, c], inputs.eff_set[:, c]
        mode = np.full(pos_set.shape, _PASSIVE, dtype=np.int8)
        if inputs.torques:
            mode[eff_set] = _TORQUE
            torque = np.where(eff_set, data.eff_t[:, index], 0.0)
            self._saturate(torque, out=torque)
        else:
            torque = np.zeros(pos_set.shape)
        mode[vel_set] = _VELOCITY
        mode[pos_set] = _POSITION
        return JointCommands(index, mode, torque)
