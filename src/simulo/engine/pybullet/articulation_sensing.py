"""Contact forces and joint wrenches of a PyBullet articulation batch (the PyBullet calls stay in
:mod:`.world_sensing`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simulo.engine.base import RigidBatch
from simulo.engine.pybullet.rigid import PyBulletRigidBatch
from simulo.engine.pybullet.world import Handle, rotation_matrix
from simulo.errors import SimuloValueError


class ArticulationSensing:
    """Contact forces and joint wrenches of one articulation batch; remembers which joints' force sensors are on.

    Args:
        handles: ``(world, body id)`` per environment.
        body_links: PyBullet link index of each body (-1: the root).
    """

    def __init__(self, handles: list[Handle], body_links: list[int]) -> None:
        self._handles = handles
        self._body_links = body_links
        self._ft_enabled: set[int] = set()

    def contact_forces(self, bodies: Sequence[int], other: RigidBatch | None) -> np.ndarray:
        """Net world-frame contact force on each body (num_envs, len(bodies), 3), from ``other`` or anything.

        Raises:
            SimuloValueError: ``other`` does not come from the PyBullet engine.
        """
        if other is not None and not isinstance(other, PyBulletRigidBatch):
            raise SimuloValueError("contact forces are taken against a PyBullet rigid batch, got "
                                   f"{type(other).__name__}")
        out = np.zeros((len(self._handles), len(bodies), 3))
        for i, (w, b) in enumerate(self._handles):
            other_body = None if other is None else other.handles[i][1]
            for m, k in enumerate(bodies):
                out[i, m] = w.sensing.contact_force(b, self._body_links[k], other_body)
        return out

    def joint_wrenches(self, bodies: Sequence[int]) -> np.ndarray:
        """The parent-to-body joint wrench of each non-root body (num_envs, len(bodies), 6), body frame.

        Raises:
            SimuloValueError: A body is the root, which has no joint.
        """
        if any(k == 0 for k in bodies):
            raise SimuloValueError("the root body has no joint to measure; attach the force-torque sensor to a child "
                                   "body")
        joints = [self._body_links[k] for k in bodies]
        for j in joints:
            if j not in self._ft_enabled:
                for w, b in self._handles:
                    w.sensing.enable_force_torque(b, j)
                self._ft_enabled.add(j)
        out = np.empty((len(self._handles), len(bodies), 6))
        for i, (w, b) in enumerate(self._handles):
            for m, (j, state) in enumerate(zip(joints, w.joint_states(b, joints))):
                # PyBullet reports the wrench at the link's centre of mass, in its inertial frame
                com, quat = w.inertial_offset(b, j)
                rot = rotation_matrix(quat)
                force = rot @ np.asarray(state[2][:3])
                out[i, m, :3] = force
                out[i, m, 3:] = rot @ np.asarray(state[2][3:]) + np.cross(np.asarray(com), force)
        return out
