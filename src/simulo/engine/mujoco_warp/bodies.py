"""Poses, velocities and pushes of the bodies a MuJoCo Warp engine moves as a whole: free joints (a floating robot
root, a dynamic prop) and mocap bodies (a fixed robot root, a static prop), in every world at once.

As on the MuJoCo engine (:mod:`simulo.engine.mujoco.free_bodies`), a free joint's ``qpos`` is the frame's pose and
its angular velocity is kept in body axes, rotated here into world axes and back.
"""

from __future__ import annotations

import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.mujoco.free_bodies import rotate_back_rows, rotate_rows
from simulo.engine.mujoco.worlds import BodyWrites
from simulo.engine.mujoco_warp.worlds import WarpWorlds


def read_pose(worlds: WarpWorlds, qadr: int, dofadr: int, mocap: int, pose: np.ndarray, lin_vel: np.ndarray,
              ang_vel: np.ndarray, env_ids: EnvIds | None = None) -> None:
    """Write the pose and world-axes velocities of the free joint at ``qadr``/``dofadr`` (or, when ``qadr`` < 0,
    of mocap body ``mocap``, which stands still) into rows ``env_ids`` (all when ``None``) of the arrays."""
    rows = slice(None) if env_ids is None else np.asarray(env_ids, dtype=np.int64)
    if qadr < 0:
        pose[rows, :3] = worlds.host("mocap_pos")[rows, mocap]
        pose[rows, 3:] = worlds.host("mocap_quat")[rows, mocap]
        lin_vel[rows] = 0.0
        ang_vel[rows] = 0.0
        return
    qpos = np.asarray(worlds.host("qpos")[rows], dtype=np.float64)
    qvel = np.asarray(worlds.host("qvel")[rows], dtype=np.float64)
    pose[rows] = qpos[:, qadr:qadr + 7]
    lin_vel[rows] = qvel[:, dofadr:dofadr + 3]
    ang_vel[rows] = rotate_rows(qpos[:, qadr + 3:qadr + 7], qvel[:, dofadr + 3:dofadr + 6])


def write_pose(worlds: WarpWorlds, env_ids: EnvIds, poses: np.ndarray, qadr: int, mocap: int) -> None:
    """Teleport the free joint at ``qadr`` (or, when ``qadr`` < 0, mocap body ``mocap``) of ``env_ids`` to
    ``poses`` (len(env_ids), 7), the quaternions normalised."""
    ids = np.asarray(env_ids, dtype=np.int64)
    given = np.asarray(poses, dtype=np.float64)
    quats = given[:, 3:] / np.linalg.norm(given[:, 3:], axis=1, keepdims=True)
    if qadr < 0:
        position, orientation = worlds.host("mocap_pos"), worlds.host("mocap_quat")
        position[ids, mocap] = given[:, :3]
        orientation[ids, mocap] = quats
        worlds.commit("mocap_pos", position)
        worlds.commit("mocap_quat", orientation)
        return
    qpos = worlds.host("qpos")
    qpos[ids, qadr:qadr + 3] = given[:, :3]
    qpos[ids, qadr + 3:qadr + 7] = quats
    worlds.commit("qpos", qpos)


def write_velocity(worlds: WarpWorlds, env_ids: EnvIds, velocities: np.ndarray, qadr: int, dofadr: int) -> None:
    """Set the velocities ``[vx, vy, vz, wx, wy, wz]`` (world axes, len(env_ids), 6) of the free joint at
    ``qadr``/``dofadr`` in each of ``env_ids``."""
    ids = np.asarray(env_ids, dtype=np.int64)
    given = np.asarray(velocities, dtype=np.float64)
    qpos, qvel = worlds.host("qpos"), worlds.host("qvel")
    quats = np.asarray(qpos[ids, qadr + 3:qadr + 7], dtype=np.float64)
    qvel[ids, dofadr:dofadr + 3] = given[:, :3]
    qvel[ids, dofadr + 3:dofadr + 6] = rotate_back_rows(quats, given[:, 3:])
    worlds.commit("qvel", qvel)


#: How the MuJoCo Warp engine writes the state of a body it moves as a whole, for the batch code it shares with the
#: MuJoCo engine.
BODY_WRITES: BodyWrites[WarpWorlds] = BodyWrites(write_pose, write_velocity)


def push(worlds: WarpWorlds, env_ids: EnvIds, bodies: np.ndarray, forces: np.ndarray, torques: np.ndarray) -> None:
    """For the coming step only, add world-frame ``forces`` and ``torques`` at the centres of mass of ``bodies``
    in each of ``env_ids`` (each (len(env_ids), 3), or (len(env_ids), len(bodies), 3))."""
    ids = np.asarray(env_ids, dtype=np.int64)
    xfrc = worlds.host("xfrc_applied")
    index = np.ix_(ids, bodies)
    f, t = np.asarray(forces, dtype=np.float64), np.asarray(torques, dtype=np.float64)
    xfrc[index + (slice(0, 3),)] += f if f.ndim == 3 else f[:, None, :]
    xfrc[index + (slice(3, 6),)] += t if t.ndim == 3 else t[:, None, :]
    worlds.commit("xfrc_applied", xfrc)
    worlds.pushed = True
