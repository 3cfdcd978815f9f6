"""An ideal PD law computed every physics step (:class:`~simulo.ActuatorGainsConfig`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simulo.engine.base import ControlMode
from simulo.sim.drives import JointCommands, Saturation

if TYPE_CHECKING:
    from simulo.sim.drives import DriveData, DriveInputs

_TORQUE = int(ControlMode.TORQUE)
#: Effective inertias below this (kg·m² or kg) count as this: a massless joint needs (almost) no torque.
_MIN_INERTIA = 1e-12


class IdealPDDrive:
    """Joints driven by a PD law solved implicitly each physics step, as the joint drives the SDK's gains set.

    The SDK's :class:`~simulo.ActuatorGainsConfig` configures a physics-engine joint drive, which the solver
    integrates implicitly; an explicit PD torque with the same gains is unstable as soon as
    ``damping * dt / inertia > 2`` (a light link with firm gains: the SDK's byo-urdf-arm, stiffness 40 and damping
    5 on about 1e-3 kg·m², would need dt < 0.5 ms). So the torque is the one that makes the spring and damper act
    on the *next* state, backward Euler with the joint's own effective inertia ``m`` at the current posture (the
    inertia its own torque meets, the other joints free: ``1 / (M⁻¹)_jj`` of the joint-space mass matrix ``M``)::

        torque = (stiffness * (q_target - q - dt * qd) + damping * (qd_target - qd))
                 / (1 + dt * (damping + dt * stiffness) / m)
                 + effort target

    with the stiffness term only where a position target is set, the damping term where a position or a
    velocity target is set (``qd_target`` 0 if unset), saturated at the joint's effort limit and sent as a torque;
    a joint with no target at all is passive. As ``dt`` goes to 0 this is the explicit law
    ``stiffness * (q_target - q) + damping * (qd_target - qd)``; at any ``dt`` it is stable.

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
        self._saturate = Saturation(self._limit)

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

    def configure(self, data: DriveData) -> None:
        """Take the joints' effort limits (runtime hook); the engine motor tables are not used."""
        self._limit = data.effort_limit[self._cols].copy()
        self._saturate = Saturation(self._limit)

    def compute(self, data: DriveData, inputs: DriveInputs) -> JointCommands:
        """This step's PD torques from the targets and the current joint state (runtime hook)."""
        c = self._cols
        pos_set, vel_set, eff_set = inputs.pos_set[:, c], inputs.vel_set[:, c], inputs.eff_set[:, c]
        driven = pos_set | vel_set
        mode = (_TORQUE * (driven | eff_set)).astype(np.int8)
        pos_t = np.where(pos_set, data.pos_t[:, c], 0.0)
        effort = np.where(eff_set, data.eff_t[:, c], 0.0)
        q, qd = data.q[:, c], data.qd[:, c]
        stiffness = self.stiffness * pos_set
        damping = self.damping * driven
        torque = stiffness * (pos_t - q - data.physics_dt * qd) + damping * (inputs.velocity[:, c] - qd)
        if driven.any():
            inertia = 1.0 / np.diagonal(np.linalg.inv(data.batch.mass_matrices(data.q)), axis1=1, axis2=2)[:, c]
            dt = data.physics_dt
            torque /= 1.0 + dt * (damping + dt * stiffness) / np.maximum(inertia, _MIN_INERTIA)
        torque += effort
        self._saturate(torque, out=torque)
        return JointCommands(c, mode, torque)
