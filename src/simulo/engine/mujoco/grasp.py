"""Welds on MuJoCo: a weld equality per robot body, switched with ``mjData.eq_active`` (a suction cup's grip).

The equality is added to the specification while the scene is built, from the robot body to the world and off
(MuJoCo cannot add a constraint to a compiled model). Attaching it in one environment points its second body at
the held object and sets the relative pose to the current one (``eq_data``: anchor at the object's origin,
``relpose`` of that anchor and of the object's orientation in the robot body's frame, torque scale 1, and a zero
``eq_data[11]`` so that ``mj_setConst`` keeps the pose), in that environment's own model copy; then
``eq_active`` switches it on in that environment's data. The weld's force is the first three rows of its
``efc_force``, which MuJoCo reports in world axes as the load on the constraint; :meth:`MuJoCoWeldBatch.forces`
turns it into the force on the held object. The weld is as stiff as contacts (time constant ``2 dt``).
"""

from __future__ import annotations

import mujoco
import numpy as np

from simulo.engine.base import EnvIds, RigidBatch
from simulo.engine.mujoco.articulation import MuJoCoArticulationBatch
from simulo.engine.mujoco.rigid import MuJoCoRigidBatch
from simulo.engine.mujoco.worlds import Worlds
from simulo.errors import SimuloValueError

_EQUALITY = int(mujoco.mjtConstraint.mjCNSTR_EQUALITY)


def weld_data(body_pos: np.ndarray, body_quat: np.ndarray, held_pos: np.ndarray,
              held_quat: np.ndarray) -> np.ndarray:
    """The ``eq_data`` row of a weld from a body to a held object that keeps their current relative pose: anchor
    at the object's origin, the object's position and orientation in the body's frame, torque scale 1, and a zero
    last entry (``mj_setConst`` then keeps the pose). Shared by the MuJoCo engines.

    Args:
        body_pos: The body's world position (3,).
        body_quat: The body's world orientation (4,), w first.
        held_pos: The held object's world position (3,).
        held_quat: The held object's world orientation (4,), w first.
    """
    inverse = np.zeros(4)
    mujoco.mju_negQuat(inverse, np.asarray(body_quat, dtype=np.float64))
    offset = np.zeros(3)
    mujoco.mju_rotVecQuat(offset, np.asarray(held_pos, dtype=np.float64) - np.asarray(body_pos, dtype=np.float64),
                          inverse)
    turn = np.zeros(4)
    mujoco.mju_mulQuat(turn, inverse, np.asarray(held_quat, dtype=np.float64))
    return np.array([0.0, 0.0, 0.0, *offset, *turn, 1.0, 0.0])


def weld_force(types: np.ndarray, ids: np.ndarray, forces: np.ndarray, eq: int) -> np.ndarray:
    """Force (3,) the weld equality ``eq`` applied to its held object, world axes, N, from one environment's
    constraint rows (``efc_type``, ``efc_id``, ``efc_force`` of its active rows): the negated first three rows of
    the weld (MuJoCo reports the load on the constraint); zero when the weld has no rows. Shared by the MuJoCo
    engines."""
    rows = np.flatnonzero((types == _EQUALITY) & (ids == eq))
    if rows.size < 3:
        return np.zeros(3)
    return -np.asarray(forces[rows[:3]], dtype=np.float64)


class MuJoCoWeldBatch:
    """One weld per environment from one body of a robot to a rigid object (implements
    :class:`simulo.engine.base.WeldBatch`).

    Args:
        worlds: The engine's environments.
        articulation: The robot's batch.
        body: The robot body (simulo body index) the welds start from.
        name: A name for the equality, unique in the scene.
    """

    def __init__(self, worlds: Worlds, articulation: MuJoCoArticulationBatch, body: int, name: str) -> None:
        self._worlds = worlds
        self._name = name
        assert worlds.template is not None
        self._body_name = worlds.template.body(int(articulation.body_ids[body])).name
        worlds.scene.add_weld(name, self._body_name, "")
        self._on = np.zeros(worlds.num_envs, dtype=bool)
        worlds.recompile()
        worlds.bind(self)

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up the equality and the robot body in a freshly compiled model."""
        self.eq = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_EQUALITY, self._name)
        self.body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, self._body_name)

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return self._worlds.num_envs

    def attach(self, env_ids: EnvIds, other: RigidBatch) -> None:
        """Weld the robot body to ``other``'s copy in each of ``env_ids`` where they are now (a weld made before the
        first step makes the scene final).

        Raises:
            SimuloValueError: ``other`` does not come from the MuJoCo engine, or is static.
        """
        if not isinstance(other, MuJoCoRigidBatch):
            raise SimuloValueError(f"a MuJoCo weld holds a MuJoCo rigid batch, got {type(other).__name__}")
        if other.mocap >= 0:
            raise SimuloValueError("a MuJoCo weld holds a dynamic object; this one is static (mass 0)")
        ids = [int(i) for i in env_ids]
        self._worlds.finalize()
        self._worlds.current(ids, velocities=False)
        held = int(other.body_id)
        for env in ids:
            model, data = self._worlds.own(env), self._worlds.datas[env]
            model.eq_obj2id[self.eq] = held
            model.eq_data[self.eq] = weld_data(data.xpos[self.body], data.xquat[self.body], data.xpos[held],
                                               data.xquat[held])
            data.eq_active[self.eq] = 1
            self._on[env] = True

    def detach(self, env_ids: EnvIds) -> None:
        """Switch the welds of ``env_ids`` off."""
        for env in [int(i) for i in env_ids]:
            self._worlds.datas[env].eq_active[self.eq] = 0
            self._on[env] = False

    def forces(self) -> np.ndarray:
        """Force (num_envs, 3) each weld applied to its held object in the last step, world axes, N."""
        out = np.zeros((self.num_envs, 3))
        self._worlds.step_data()
        for env in np.flatnonzero(self._on).tolist():
            data = self._worlds.datas[env]
            n = data.nefc
            out[env] = weld_force(data.efc_type[:n], data.efc_id[:n], data.efc_force[:n], self.eq)
        return out
