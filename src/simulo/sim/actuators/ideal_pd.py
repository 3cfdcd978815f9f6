"""An ideal PD law computed every physics step (:class:`~simulo.ActuatorGainsConfig`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simulo.engine.base import ControlMode

if TYPE_CHECKING:
    from simulo.sim.robot_data import DriveInputs, RobotData

_TORQUE = int(ControlMode.TORQUE)


class IdealPDDrive:
    """Joints driven by an explicit PD torque, as Isaac Lab's ``IdealPDActuator``.

    Each physics step, per joint and environment::

        torque = stiffness * (q_target - q) [if a position target is set]
               + damping * (qd_target - qd) [if a position or velocity target is set; qd_target 0 if unset]
               + effort target              [if set]

    saturated at the joint's effort limit and sent as a torque; a joint with no target at all is passive.

    Args:
        cols: Joint columns of this drive.
        stiffness: Stiffness per column, N·m/rad or N/m.
        damping: Damping per column, N·m·s/rad or N·s/m.
    """

    explicit = True

    def __init__(self, cols: np.ndarray, stiffness: np.ndarray, damping: np.ndarray) -> None:
        self._cols = np.asarray(cols, dtype=np.int64)
        self.stiffness = np.asarray(stiffness, dtype=float)
        self.damping = np.asarray(damping, dtype=float)
        self._limit = np.full(len(self._cols), np.inf)

    @property
    def cols(self) -> np.ndarray:
        """The joint columns this drive drives."""
        return self._cols

    def set_gains(self, env_ids: np.ndarray, stiffness: np.ndarray, damping: np.ndarray, num_envs: int) -> None:
        """Set per-environment gains (len(env_ids), len(cols)); the others keep theirs."""
        if self.stiffness.ndim == 1:
            self.stiffness = np.tile(self.stiffness, (num_envs, 1))
            self.damping = np.tile(self.damping, (num_envs, 1))
        self.stiffness[env_ids] = stiffness
        self.damping[env_ids] = damping

    def configure(self, data: RobotData) -> None:
        """Take the joints' effort limits (runtime hook); the engine motor tables are not used."""
        self._limit = data.effort_limit[self._cols].copy()

    def compute(self, data: RobotData, inputs: DriveInputs) -> None:
        """Compute this step's PD torques from the targets and the current joint state (runtime hook)."""
        c = self._cols
        pos_set, vel_set, eff_set = inputs.pos_set[:, c], inputs.vel_set[:, c], inputs.eff_set[:, c]
        driven = pos_set | vel_set
        data.mode[:, c] = _TORQUE * (driven | eff_set)
        pos_t = np.where(pos_set, data.pos_t[:, c], 0.0)
        effort = np.where(eff_set, data.eff_t[:, c], 0.0)
        torque = (self.stiffness * (pos_t - data.q[:, c]) * pos_set
                  + self.damping * (inputs.velocity[:, c] - data.qd[:, c]) * driven + effort)
        np.clip(torque, -self._limit, self._limit, out=torque)
        data.torque[:, c] = torque
