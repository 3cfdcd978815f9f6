"""The dynamics queries of a PyBullet articulation batch: Jacobians, mass matrices and gravity torques.

Columns follow the batch's joint order, which may differ from PyBullet's DOF order for a branching tree
(:mod:`simulo.engine.pybullet.articulation`); every query permutes both ways when it does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simulo.engine.base import JointInfo
from simulo.engine.pybullet.world import PyBulletWorld, multiply_transforms, rotation_matrix


class ArticulationDynamics:
    """Jacobians, mass matrices and gravity torques (the dynamics half of
    :class:`~simulo.engine.pybullet.articulation.PyBulletArticulationBatch`, which sets these attributes)."""

    handles: list[tuple[PyBulletWorld, int]]
    body_links: list[int]
    num_links: int
    _joints: list[JointInfo]
    _reordered: bool
    _dof: np.ndarray
    _col_of_dof: np.ndarray
    _zeros: list[float]
    _com_points: list[list[float]]
    _tree_built: bool
    _masses_edited: bool

    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(bodies), 6, num_joints) of the bodies' link-frame origins, world axes.

        Rows are ``[vx, vy, vz, wx, wy, wz]``; only the joint columns are returned (a floating base's six
        base columns are dropped). The root body has a zero Jacobian.

        PyBullet's ``calculateJacobian`` takes the point relative to the link (URDF) frame and answers in the
        axes of the base's centre-of-mass frame, so the result is rotated into world axes here.
        """
        self._tree_built = True
        n = len(self._joints)
        out = np.zeros((len(self.handles), len(bodies), 6, n))
        zeros = self._zeros
        if self._reordered:
            q = q[:, self._col_of_dof]
        for i, (w, b) in enumerate(self.handles):
            qi = q[i].tolist()
            rot = rotation_matrix(w.base_pose(b)[1])
            for k, body in enumerate(bodies):
                if body == 0:
                    continue
                lin, ang = w.jacobian(b, self.body_links[body], [0.0, 0.0, 0.0], qi, zeros)
                out[i, k, :3] = rot @ lin[:, -n:]
                out[i, k, 3:] = rot @ ang[:, -n:]
        if self._reordered:
            return out[..., self._dof]
        return out

    def mass_matrices(self, q: np.ndarray) -> np.ndarray:
        """Joint-space mass matrices (num_envs, num_joints, num_joints).

        PyBullet's ``calculateMassMatrix`` keeps the masses its inverse-dynamics tree was built with (the tree is
        built at the first dynamics query and cached), so once a mass has changed after that the matrix is
        summed from the links instead: ``sum(m Jv^T Jv + Jw^T I Jw)`` over the centre-of-mass Jacobians.
        """
        self._tree_built = True
        n = len(self._joints)
        out = np.empty((len(self.handles), n, n))
        if self._reordered:
            q = q[:, self._col_of_dof]
        for i, (w, b) in enumerate(self.handles):
            if self._masses_edited:
                out[i] = self._summed_mass_matrix(w, b, q[i].tolist())
            else:
                out[i] = w.mass_matrix(b, q[i].tolist())[-n:, -n:]
        if self._reordered:
            return out[:, self._dof][:, :, self._dof]
        return out

    def _summed_mass_matrix(self, w: PyBulletWorld, b: int, q: list[float]) -> np.ndarray:
        """The mass matrix summed over the links, rows and columns (and ``q``) in PyBullet's DOF order."""
        n = len(self._joints)
        out = np.zeros((n, n))
        base_rot = rotation_matrix(w.base_pose(b)[1])
        frames = np.asarray(w.link_frames(b, list(range(self.num_links))) if self.num_links else []).reshape(-1, 7)
        for link in range(self.num_links):
            mass = w.mass(b, link)
            lin, ang = w.jacobian(b, link, self._com_points[link], q, self._zeros)
            jv, jw = lin[:, -n:], ang[:, -n:]
            _, inertial_quat = w.inertial_offset(b, link)
            _, world_quat = multiply_transforms([0.0, 0.0, 0.0], frames[link][3:], [0.0, 0.0, 0.0], inertial_quat)
            rot = base_rot.T @ rotation_matrix(world_quat)  # inertial axes in the base axes of the Jacobian
            inertia = rot @ np.diag(w.inertia_diagonal(b, link)) @ rot.T
            out += mass * jv.T @ jv + jw.T @ inertia @ jw
        return out

    def gravity_torques(self, q: np.ndarray) -> np.ndarray:
        """Joint efforts that hold the robot still against gravity at ``q`` (num_envs, num_joints).

        Computed as ``-sum(m_l * J_l^T g)`` over the links' centre-of-mass Jacobians, with gravity in the axes
        of the base's current orientation: PyBullet's ``calculateInverseDynamics`` ignores the orientation of
        a fixed base and refuses a floating base given joint positions only.
        """
        self._tree_built = True
        n = len(self._joints)
        out = np.zeros((len(self.handles), n))
        zeros = self._zeros
        if self._reordered:
            q = q[:, self._col_of_dof]
        for i, (w, b) in enumerate(self.handles):
            qi = q[i].tolist()
            g_base = rotation_matrix(w.base_pose(b)[1]).T @ np.asarray(w.gravity)
            for link in range(self.num_links):
                mass = w.mass(b, link)
                if mass == 0.0:
                    continue
                lin, _ = w.jacobian(b, link, self._com_points[link], qi, zeros)
                out[i] -= mass * (lin[:, -n:].T @ g_base)
        if self._reordered:
            return out[:, self._dof]
        return out
