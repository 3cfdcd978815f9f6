"""Jacobians, mass matrices and gravity torques of MuJoCo articulations, at any joint positions.

Each query runs on a scratch ``MjData`` (one per batch) holding an environment's state with the joint columns
set to the asked positions, so the environments' own data are never disturbed: ``mj_jacBody`` for Jacobians of
a body frame's origin (world axes), ``mj_makeM``/``mj_fullM`` for mass matrices, ``mj_rne`` at zero velocity for
the efforts that hold the robot against gravity. Only the joint columns are returned (a floating base's six
free-joint columns are dropped).
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np


class Dynamics:
    """The dynamics queries of one batch.

    Args:
        template: The compiled model (any environment's model has its sizes).
        dofs: DOF address of each joint column.
        qadr: qpos address of each joint column.
    """

    def __init__(self, template: mujoco.MjModel, dofs: np.ndarray, qadr: np.ndarray) -> None:
        self._scratch = mujoco.MjData(template)
        self._dofs, self._qadr = dofs, qadr
        nv = template.nv
        self._jacp, self._jacr = np.zeros((3, nv)), np.zeros((3, nv))
        self._full = np.zeros((nv, nv))
        self._bias = np.zeros(nv)

    def _load(self, model: mujoco.MjModel, data: mujoco.MjData, q: np.ndarray) -> mujoco.MjData:
        s = self._scratch
        s.qpos[:] = data.qpos
        s.qpos[self._qadr] = q
        s.qvel[:] = 0.0
        s.mocap_pos[:] = data.mocap_pos
        s.mocap_quat[:] = data.mocap_quat
        mujoco.mj_kinematics(model, s)
        mujoco.mj_comPos(model, s)
        return s

    def jacobians(self, models: Sequence[mujoco.MjModel], datas: Sequence[mujoco.MjData], body_ids: Sequence[int],
                  q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(body_ids), 6, J) of the bodies' frame origins; body id -1: zero (the root)."""
        out = np.zeros((len(datas), len(body_ids), 6, len(self._dofs)))
        for i, (m, d) in enumerate(zip(models, datas)):
            s = self._load(m, d, q[i])
            for k, body in enumerate(body_ids):
                if body < 0:
                    continue
                mujoco.mj_jacBody(m, s, self._jacp, self._jacr, body)
                out[i, k, :3] = self._jacp[:, self._dofs]
                out[i, k, 3:] = self._jacr[:, self._dofs]
        return out

    def mass_matrices(self, models: Sequence[mujoco.MjModel], datas: Sequence[mujoco.MjData],
                      q: np.ndarray) -> np.ndarray:
        """Joint-space mass matrices (num_envs, J, J), armature included."""
        out = np.empty((len(datas), len(self._dofs), len(self._dofs)))
        index = np.ix_(self._dofs, self._dofs)
        for i, (m, d) in enumerate(zip(models, datas)):
            s = self._load(m, d, q[i])
            mujoco.mj_makeM(m, s)
            mujoco.mj_fullM(m, s, self._full)
            out[i] = self._full[index]
        return out

    def gravity_torques(self, models: Sequence[mujoco.MjModel], datas: Sequence[mujoco.MjData],
                        q: np.ndarray) -> np.ndarray:
        """Joint efforts (num_envs, J) that hold the robot still against its environment's gravity at ``q``."""
        out = np.empty((len(datas), len(self._dofs)))
        for i, (m, d) in enumerate(zip(models, datas)):
            s = self._load(m, d, q[i])
            mujoco.mj_comVel(m, s)
            mujoco.mj_rne(m, s, 0, self._bias)
            out[i] = self._bias[self._dofs]
        return out
