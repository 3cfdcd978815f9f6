"""Host copies of the Warp worlds' body poses, for what MuJoCo computes on the host: camera images and ray casts.

Cameras and rays depend only on the kinematics, so the MuJoCo Warp engine draws and casts them exactly as the
MuJoCo engine does (:mod:`simulo.engine.mujoco.camera`, :mod:`simulo.engine.mujoco.sensing`): each environment's
``qpos`` and mocap poses are copied from the worlds into a host ``MjData``, and MuJoCo computes its kinematics
(``mj_kinematics``, ``mj_comPos``, ``mj_camlight``) with that environment's own model. Making an ``MjData`` costs
about 0.6 ms, so the data are kept from call to call: a pool made from the compiled model (every environment's
model is a copy of it with the same sizes), made again only after a recompile.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import mujoco
import numpy as np

from simulo.engine.mujoco_warp.worlds import WarpWorlds


class PoseState(NamedTuple):
    """Every environment's state that sets its body poses, on the host (num_envs, ...)."""

    qpos: np.ndarray
    mocap_pos: np.ndarray
    mocap_quat: np.ndarray


class HostPoses:
    """Host ``MjData`` posed like the environments of a Warp engine's worlds.

    Args:
        worlds: The engine's worlds.
    """

    def __init__(self, worlds: WarpWorlds) -> None:
        self._worlds = worlds
        self._model: mujoco.MjModel | None = None  # the compiled model the pool was made for
        self._pool: list[mujoco.MjData] = []

    def state(self) -> PoseState:
        """Every environment's ``qpos`` and mocap poses now (a copy from the device on a GPU)."""
        w = self._worlds
        return PoseState(w.host("qpos"), w.host("mocap_pos"), w.host("mocap_quat"))

    def posed(self, env_ids: Sequence[int], state: PoseState) -> list[mujoco.MjData]:
        """One host data per entry of ``env_ids`` (distinct environments), at that environment's body poses in
        ``state``; valid until the next call."""
        w = self._worlds
        assert w.model is not None, "nothing was added to the scene"
        if self._model is not w.model:
            self._model, self._pool = w.model, []
        while len(self._pool) < len(env_ids):
            self._pool.append(mujoco.MjData(w.model))
        for env, data in zip(env_ids, self._pool):
            model = w.models[env]
            data.qpos[:] = state.qpos[env]
            data.mocap_pos[:] = state.mocap_pos[env]
            data.mocap_quat[:] = state.mocap_quat[env]
            mujoco.mj_kinematics(model, data)
            mujoco.mj_comPos(model, data)
            mujoco.mj_camlight(model, data)
        return self._pool[:len(env_ids)]
