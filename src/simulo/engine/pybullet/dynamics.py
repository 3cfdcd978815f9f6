"""The dynamics queries of a PyBullet articulation batch: Jacobians, mass matrices and gravity torques.

Columns follow the batch's joint order, which may differ from PyBullet's DOF order for a branching tree
(:mod:`simulo.engine.pybullet.articulation`); every query permutes both ways when it does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simulo.engine.pybullet.world import Handle, PyBulletWorld, multiply_transforms, rotation_matrix


class ArticulationDynamics:
    """Jacobians, mass matrices and gravity torques of one articulation batch; remembers whether PyBullet's
    inverse-dynamics tree was built, and whether a mass changed since.

    Args:
        handles: ``(world, body id)`` per environment.
        joint_indices: PyBullet joint index of each joint column.
        body_links: PyBullet link index of each body (-1: the root).
    """

    def __init__(self, handles: list[Handle], joint_indices: list[int], body_links: list[int]) -> None:
        self._handles = handles
        self._body_links = body_links
        self._num_joints = len(joint_indices)
        self._num_links = len(body_links) - 1
        #: whether the columns differ from PyBullet's DOF order; then ``_dof[c]`` is column c's PyBullet DOF
        #: and ``_col_of_dof`` its inverse (q in PyBullet's DOF order is ``q[_col_of_dof]``)
        self._reordered = joint_indices != sorted(joint_indices)
        self._dof = np.argsort(np.argsort(joint_indices))
        self._col_of_dof = np.argsort(joint_indices)
        self._zeros = [0.0] * self._num_joints
        # each link's centre of mass as PyBullet's calculateJacobian wants the point: from the link frame's
        # origin, in the axes of the link's inertial frame
        world, body = handles[0]
        self._com_points: list[list[float]] = []
        for link in range(self._num_links):
            pos, quat = world.inertial_offset(body, link)
            self._com_points.append((rotation_matrix(quat).T @ np.asarray(pos)).tolist())
        #: whether PyBullet has built (and cached) its inverse-dynamics tree, and whether a mass changed since
        self._tree_built = False
        self._masses_edited = False

    def masses_changed(self) -> None:
        """Note that link masses changed: once PyBullet's tree is built, mass matrices are summed from the links."""
        self._masses_edited = self._masses_edited or self._tree_built

    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(bodies), 6, num_joints) of the bodies' link-frame origins, world axes.

        Rows are ``[vx, vy, vz, wx, wy, wz]``; only the joint columns are returned (a floating base's six
        base columns are dropped). The root body has a zero Jacobian.

        PyBullet's ``calculateJacobian`` takes the point relative to the link (URDF) frame and answers in the
        axes of the base's centre-of-mass frame, so the result is rotated into world axes here.
        """
        self._tree_built = True
        n = self._num_joints
        out = np.zeros((len(self._handles), len(bodies), 6, n))
        zeros = self._zeros
        if self._reordered:
            q = q[:, self._col_of_dof]
        for i, (w, b) in enumerate(self._handles):
            qi = q[i].tolist()
            rot = rotation_matrix(w.base_pose(b)[1])
            for k, body in enumerate(bodies):
                if body == 0:
                    continue
                lin, ang = w.jacobian(b, self._body_links[body], [0.0, 0.0, 0.0], qi, zeros)
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
        n = self._num_joints
        out = np.empty((len(self._handles), n, n))
        if self._reordered:
            q = q[:, self._col_of_dof]
        for i, (w, b) in enumerate(self._handles):
            if self._masses_edited:
                out[i] = self._summed_mass_matrix(w, b, q[i].tolist())
            else:
                out[i] = w.mass_matrix(b, q[i].tolist())[-n:, -n:]
        if self._reordered:
            return out[:, self._dof][:, :, self._dof]
        return out

    def _summed_mass_matrix(self, w: PyBulletWorld, b: int, q: list[float]) -> np.ndarray:
        """The mass matrix summed over the links, rows and columns (and ``q``) in PyBullet's DOF order."""
        n = self._num_joints
        out = np.zeros((n, n))
        base_rot = rotation_matrix(w.base_pose(b)[1])
        frames = np.asarray(w.link_frames(b, list(range(self._num_links))) if self._num_links else []).reshape(-1, 7)
        for link in range(self._num_links):
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
        n = self._num_joints
        out = np.zeros((len(self._handles), n))
        zeros = self._zeros
        if self._reordered:
            q = q[:, self._col_of_dof]
        for i, (w, b) in enumerate(self._handles):
            qi = q[i].tolist()
            g_base = rotation_matrix(w.base_pose(b)[1]).T @ np.asarray(w.gravity)
            for link in range(self._num_links):
                mass = w.mass(b, link)
                if mass == 0.0:
                    continue
                lin, _ = w.jacobian(b, link, self._com_points[link], qi, zeros)
                out[i] -= mass * (lin[:, -n:].T @ g_base)
        if self._reordered:
            return out[:, self._dof]
        return out
