"""Welds on PyBullet: a ``JOINT_FIXED`` constraint between a robot link and a rigid object (a suction cup's grip).

PyBullet places a constraint's frames in each body's centre-of-mass frame, so the held object's current pose is
expressed in the link's inertial frame when the weld is made: the weld holds the two where they are. Its force
is ``getConstraintState``'s first three values, which PyBullet reports in world axes as the load on the weld
(the held object's pull); :meth:`PyBulletWeldBatch.forces` turns it into the force on the held object.
"""

from __future__ import annotations

import numpy as np

from simulo.engine.base import EnvIds, RigidBatch
from simulo.engine.pybullet.articulation import PyBulletArticulationBatch
from simulo.engine.pybullet.rigid import PyBulletRigidBatch
from simulo.errors import SimuloValueError

#: Largest force a weld may apply, N: far above any grip limit, so that only the gripper's limits break a grip.
MAX_WELD_FORCE = 1e7


class PyBulletWeldBatch:
    """One weld per environment from one body of a robot to a rigid object (implements
    :class:`simulo.engine.base.WeldBatch`).

    Args:
        articulation: The robot's batch.
        body: The robot body (simulo body index) the welds start from.
    """

    def __init__(self, articulation: PyBulletArticulationBatch, body: int) -> None:
        self._robot = articulation
        self._link = articulation.body_links[body]
        #: each environment's constraint id, -1 while off
        self._ids = np.full(articulation.num_envs, -1, dtype=np.int64)

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return len(self._ids)

    def attach(self, env_ids: EnvIds, other: RigidBatch) -> None:
        """Weld the link to ``other``'s copy in each of ``env_ids`` where they are now.

        Raises:
            SimuloValueError: ``other`` does not come from the PyBullet engine.
        """
        if not isinstance(other, PyBulletRigidBatch):
            raise SimuloValueError(f"a PyBullet weld holds a PyBullet rigid batch, got {type(other).__name__}")
        self.detach(env_ids)
        for env in [int(i) for i in env_ids]:
            world, robot = self._robot.handles[env]
            held_world, held = other.handles[env]
            if held_world is not world:
                raise SimuloValueError(f"environment {env}'s robot and object live in different PyBullet worlds")
            self._ids[env] = world.welds.weld(robot, self._link, held, MAX_WELD_FORCE)

    def detach(self, env_ids: EnvIds) -> None:
        """Remove the constraints of ``env_ids`` (those already off are skipped)."""
        for env in [int(i) for i in env_ids]:
            uid = int(self._ids[env])
            if uid >= 0:
                self._robot.handles[env][0].welds.unweld(uid)
                self._ids[env] = -1

    def forces(self) -> np.ndarray:
        """Force (num_envs, 3) each weld applied to its held object in the last step, world axes, N."""
        out = np.zeros((self.num_envs, 3))
        for env in np.flatnonzero(self._ids >= 0).tolist():
            out[env] = self._robot.handles[env][0].welds.weld_load(int(self._ids[env]))
        return out
