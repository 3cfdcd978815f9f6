"""The weld calls of a PyBullet world: fixed constraints between a robot link and a rigid body, and their loads.

Held by :class:`~simulo.engine.pybullet.world.PyBulletWorld` as its ``welds`` (together the one owner of every
PyBullet call).
"""

from __future__ import annotations

import pybullet as p


class WorldWelds:
    """Welds of one PyBullet client.

    Args:
        cid: The PyBullet client id.
    """

    def __init__(self, cid: int) -> None:
        self.cid = cid

    def inertial_frame(self, body: int, link: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Position and quaternion (x, y, z, w: PyBullet's order) of a link's centre-of-mass frame (``link`` -1:
        the base), forward kinematics recomputed."""
        if link < 0:
            pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=self.cid)
        else:
            state = p.getLinkState(body, link, computeForwardKinematics=1, physicsClientId=self.cid)
            pos, orn = state[0], state[1]
        return tuple(pos), tuple(orn)

    def weld(self, body: int, link: int, held: int, max_force: float) -> int:
        """Fix body ``held`` to ``body``'s link where both are now (a ``JOINT_FIXED`` constraint limited to
        ``max_force``); returns the constraint's id."""
        link_pos, link_orn = self.inertial_frame(body, link)
        held_pos, held_orn = p.getBasePositionAndOrientation(held, physicsClientId=self.cid)
        inv_pos, inv_orn = p.invertTransform(link_pos, link_orn)
        rel_pos, rel_orn = p.multiplyTransforms(inv_pos, inv_orn, held_pos, held_orn)
        uid = int(p.createConstraint(body, link, held, -1, p.JOINT_FIXED, [0.0, 0.0, 0.0], rel_pos,
                                     [0.0, 0.0, 0.0], rel_orn, [0.0, 0.0, 0.0, 1.0], physicsClientId=self.cid))
        p.changeConstraint(uid, maxForce=max_force, physicsClientId=self.cid)
        return uid

    def unweld(self, uid: int) -> None:
        """Remove the weld ``uid``."""
        p.removeConstraint(uid, physicsClientId=self.cid)

    def weld_load(self, uid: int) -> tuple[float, float, float]:
        """The force weld ``uid`` applied to its held body in the last step, world axes, N."""
        load = p.getConstraintState(uid, physicsClientId=self.cid)
        return -load[0], -load[1], -load[2]
