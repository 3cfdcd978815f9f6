"""Welds on MuJoCo Warp: one weld equality per (robot body, dynamic rigid object) pair, switched per world with
``eq_active`` (a suction cup's grip).

The MuJoCo engine (:mod:`simulo.engine.mujoco.grasp`) makes one equality per robot body and points its second
body at the held object in that environment's own model (``eq_obj2id``). ``mujoco_warp`` shares ``eq_obj2id``
between worlds (only ``eq_data``, ``eq_solref`` and ``eq_solimp`` may differ per world), so here the welds are
made while the scene is built, one from the robot body to every dynamic rigid object the scene holds then (the
simulation makes them once every prop is built, before the first step), all off. Attaching one in a world sets
that pair's relative pose to the current one in the world's own model (``eq_data``, the same row the MuJoCo
engine writes: :func:`~simulo.engine.mujoco.grasp.weld_data`), which is sent to the device as one row per world,
then switches it on in that world's ``eq_active`` and the robot body's other welds off. The weld's force is read
from the world's constraint rows as on the MuJoCo engine (:func:`~simulo.engine.mujoco.grasp.weld_force`).
"""

from __future__ import annotations

import mujoco
import numpy as np

from simulo.engine.base import EnvIds, RigidBatch
from simulo.engine.mujoco.grasp import weld_data, weld_force
from simulo.engine.mujoco_warp.articulation import WarpArticulationBatch
from simulo.engine.mujoco_warp.rigid import WarpRigidBatch
from simulo.engine.mujoco_warp.worlds import WarpWorlds, body_state
from simulo.errors import SimuloValueError


class WarpWeldBatch:
    """One weld per world from one body of a robot to one of the scene's dynamic rigid objects (implements
    :class:`simulo.engine.base.WeldBatch`).

    Args:
        worlds: The engine's worlds (the scene still being built).
        articulation: The robot's batch.
        body: The robot body (simulo body index) the welds start from.
        held: The rigid objects built so far; a weld is made to each dynamic one.
        name: A prefix for the equalities' names, unique in the scene.

    Raises:
        WarpUnsupportedError: The scene is final (a step was taken).
    """

    def __init__(self, worlds: WarpWorlds, articulation: WarpArticulationBatch, body: int,
                 held: list[WarpRigidBatch], name: str) -> None:
        self._worlds = worlds
        model = worlds.model
        assert model is not None
        self._body_name = model.body(int(articulation.body_ids[body])).name
        self._held = [rigid for rigid in held if rigid.qadr >= 0]
        self._names = [f"{name}/{model.body(rigid.body_id).name}" for rigid in self._held]
        for rigid, eq_name in zip(self._held, self._names):
            worlds.scene.add_weld(eq_name, self._body_name, model.body(rigid.body_id).name)
        #: per world, the equality switched on there (-1: none)
        self._held_eq = np.full(worlds.num_envs, -1, dtype=np.int64)
        if self._held:
            worlds.recompile()
        worlds.bind(self._bind)

    def _bind(self, model: mujoco.MjModel) -> None:
        """Look up the equalities and the robot body in a freshly compiled model."""
        self.eqs = np.array([mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_EQUALITY, n) for n in self._names],
                            dtype=np.int64)
        self.body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, self._body_name)

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return self._worlds.num_envs

    def attach(self, env_ids: EnvIds, other: RigidBatch) -> None:
        """Weld the robot body to ``other``'s copy in each of ``env_ids`` where they are now, replacing a weld
        attached there (a weld made before the first step makes the scene final).

        Raises:
            SimuloValueError: ``other`` does not come from the MuJoCo Warp engine, is static, or was built after
                the welds were made.
        """
        if not isinstance(other, WarpRigidBatch):
            raise SimuloValueError(f"a MuJoCo Warp weld holds a MuJoCo Warp rigid batch, got {type(other).__name__}")
        if other.qadr < 0:
            raise SimuloValueError("a MuJoCo Warp weld holds a dynamic object; this one is static (mass 0)")
        if other not in self._held:
            model = self._worlds.model
            assert model is not None
            raise SimuloValueError(f"this MuJoCo Warp weld cannot hold rigid object {model.body(other.body_id).name!r}"
                                   ": it was built after the welds were made; build every prop before the welds")
        ids = [int(i) for i in env_ids]
        eq = int(self.eqs[self._held.index(other)])
        self._worlds.finalize()
        state = body_state(self._worlds, ids)
        body, held = self.body, other.body_id
        rows = [weld_data(state["xpos"][k, body], state["xquat"][k, body], state["xpos"][k, held],
                          state["xquat"][k, held]) for k in range(len(ids))]
        self._worlds.edit_envs(ids, lambda m, k: m.eq_data.__setitem__(eq, rows[k]))
        active = self._worlds.host("eq_active")
        active[np.ix_(np.array(ids, dtype=np.int64), self.eqs)] = False
        active[ids, eq] = True
        self._worlds.commit("eq_active", active)
        self._held_eq[ids] = eq

    def detach(self, env_ids: EnvIds) -> None:
        """Switch the welds of ``env_ids`` off."""
        ids = np.asarray(env_ids, dtype=np.int64)
        if not (self._held_eq[ids] >= 0).any():  # none attached there (nor anywhere before the first step)
            return
        active = self._worlds.host("eq_active")
        active[np.ix_(ids, self.eqs)] = False
        self._worlds.commit("eq_active", active)
        self._held_eq[ids] = -1

    def forces(self) -> np.ndarray:
        """Force (num_envs, 3) each weld applied to its held object in the last step, world axes, N."""
        out = np.zeros((self.num_envs, 3))
        on = np.flatnonzero(self._held_eq >= 0)
        data = self._worlds.data
        if data is None or not on.size:
            return out
        count = data.nefc.numpy()
        types, ids, force = data.efc.type.numpy(), data.efc.id.numpy(), data.efc.force.numpy()
        for env in on.tolist():
            n = int(count[env])
            out[env] = weld_force(types[env, :n], ids[env, :n], force[env, :n], int(self._held_eq[env]))
        return out
