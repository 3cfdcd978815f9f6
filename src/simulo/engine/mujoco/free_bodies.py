"""Poses and velocities of the bodies a MuJoCo engine moves as a whole: free joints and mocap bodies.

A floating robot root and a dynamic prop are bodies with a free joint (``qpos`` holds the frame's pose, ``qvel``
its origin's linear velocity and, in MuJoCo, its angular velocity in body axes, rotated here); a fixed robot root
and a static prop are mocap bodies, posed per environment. Articulations and rigid batches read and teleport
them through these functions: while the engine's block holds the state, on its arrays for every environment at
once, else environment by environment on each one's data.
"""

from __future__ import annotations

import mujoco
import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.mujoco.worlds import Worlds


def rotate(quat: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """``vec`` rotated by the w-first quaternion ``quat`` (body axes to world axes)."""
    out = np.zeros(3)
    mujoco.mju_rotVecQuat(out, np.ascontiguousarray(vec, dtype=float), np.ascontiguousarray(quat, dtype=float))
    return out


def rotate_back(quat: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """``vec`` rotated by the inverse of ``quat`` (world axes to body axes)."""
    inverse = np.zeros(4)
    mujoco.mju_negQuat(inverse, np.ascontiguousarray(quat, dtype=float))
    return rotate(inverse, vec)


def rotate_rows(quats: np.ndarray, vecs: np.ndarray) -> np.ndarray:
    """Each row of ``vecs`` (n, 3) rotated by the w-first quaternion in the same row of ``quats`` (n, 4): the
    arithmetic of ``mju_rotVecQuat``, row by row in numpy (the same bytes)."""
    w, x, y, z = quats[:, 0], quats[:, 1], quats[:, 2], quats[:, 3]
    v0, v1, v2 = vecs[:, 0], vecs[:, 1], vecs[:, 2]
    t0 = w * v0 + y * v2 - z * v1
    t1 = w * v1 + z * v0 - x * v2
    t2 = w * v2 + x * v1 - y * v0
    out = np.stack((v0 + 2 * (y * t2 - z * t1), v1 + 2 * (z * t0 - x * t2), v2 + 2 * (x * t1 - y * t0)), axis=1)
    identity = (w == 1.0) & (x == 0.0) & (y == 0.0) & (z == 0.0)  # mju_rotVecQuat copies the vector then
    if identity.any():
        out[identity] = vecs[identity]
    return out


def rotate_back_rows(quats: np.ndarray, vecs: np.ndarray) -> np.ndarray:
    """Each row of ``vecs`` rotated by the inverse of the quaternion in the same row of ``quats`` (as
    :func:`rotate_back`, row by row)."""
    inverse = quats * np.array([1.0, -1.0, -1.0, -1.0])
    return rotate_rows(inverse, vecs)


def read_free(worlds: Worlds, qadr: int, dofadr: int, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
              env_ids: EnvIds | None = None) -> None:
    """Write the pose and world-axes velocities of the free joint at ``qadr``/``dofadr`` into the rows of
    ``env_ids`` (every environment when ``None``) of the (num_envs, ...) arrays, in place."""
    if worlds.blocked:  # every environment's state in two arrays: no Python per environment
        index = slice(None) if env_ids is None else np.asarray(env_ids, dtype=np.int64)
        p, v = worlds.qpos_matrix()[index], worlds.qvel_matrix()[index]
        pose[index] = p[:, qadr:qadr + 7]
        lin_vel[index] = v[:, dofadr:dofadr + 3]
        ang_vel[index] = rotate_rows(p[:, qadr + 3:qadr + 7], v[:, dofadr + 3:dofadr + 6])  # body to world axes
        return
    qpos, qvel = worlds.qpos, worlds.qvel
    spin = np.empty(3)
    for i in range(worlds.num_envs) if env_ids is None else env_ids:
        p, v = qpos[i], qvel[i]
        pose[i] = p[qadr:qadr + 7]
        lin_vel[i] = v[dofadr:dofadr + 3]
        mujoco.mju_rotVecQuat(spin, v[dofadr + 3:dofadr + 6], p[qadr + 3:qadr + 7])  # body axes to world axes
        ang_vel[i] = spin


def read_mocap(worlds: Worlds, mocap: int, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
               env_ids: EnvIds | None = None) -> None:
    """Write the pose of mocap body ``mocap`` and zero velocities into the rows of ``env_ids`` (every environment
    when ``None``) of the (num_envs, ...) arrays, in place."""
    mocap_pos, mocap_quat = worlds.mocap_pos, worlds.mocap_quat
    for i in range(worlds.num_envs) if env_ids is None else env_ids:
        pose[i, :3] = mocap_pos[i][mocap]
        pose[i, 3:] = mocap_quat[i][mocap]
        lin_vel[i] = 0.0
        ang_vel[i] = 0.0


def write_pose(worlds: Worlds, env_ids: EnvIds, poses: np.ndarray, qadr: int, mocap: int) -> None:
    """Teleport a body in each of ``env_ids`` to ``poses`` (len(env_ids), 7), its quaternion normalised: the free
    joint at ``qadr``, or mocap body ``mocap`` when ``qadr`` is negative."""
    if worlds.blocked:  # every environment's state in arrays: no Python per environment
        ids = np.asarray(env_ids, dtype=np.int64)
        given = np.asarray(poses, dtype=float)
        quats = given[:, 3:] / np.linalg.norm(given[:, 3:], axis=1, keepdims=True)
        if qadr < 0:
            block = worlds.block
            assert block is not None
            block.mocap_pos[ids, mocap] = given[:, :3]
            block.mocap_quat[ids, mocap] = quats
        else:
            matrix = worlds.qpos_matrix()
            matrix[ids, qadr:qadr + 3] = given[:, :3]
            matrix[ids, qadr + 3:qadr + 7] = quats
        worlds.mark_stale(ids)
        return
    qpos, mocap_pos, mocap_quat = worlds.qpos, worlds.mocap_pos, worlds.mocap_quat
    for k, i in enumerate(env_ids):
        quat = poses[k, 3:] / np.linalg.norm(poses[k, 3:])
        if qadr < 0:
            mocap_pos[i][mocap] = poses[k, :3]
            mocap_quat[i][mocap] = quat
        else:
            qpos[i][qadr:qadr + 3] = poses[k, :3]
            qpos[i][qadr + 3:qadr + 7] = quat
        worlds.fresh[i] = 0


def write_velocity(worlds: Worlds, env_ids: EnvIds, velocities: np.ndarray, qadr: int, dofadr: int) -> None:
    """Set the velocities ``[vx, vy, vz, wx, wy, wz]`` (world axes) of the free joint at ``qadr``/``dofadr`` in
    each of ``env_ids`` (len(env_ids), 6)."""
    if worlds.blocked:  # every environment's state in two arrays: no Python per environment
        ids = np.asarray(env_ids, dtype=np.int64)
        given = np.asarray(velocities, dtype=float)
        qvel = worlds.qvel_matrix()
        qvel[ids, dofadr:dofadr + 3] = given[:, :3]
        qvel[ids, dofadr + 3:dofadr + 6] = rotate_back_rows(worlds.qpos_matrix()[ids, qadr + 3:qadr + 7],
                                                            given[:, 3:])
        worlds.mark_stale(ids)
        return
    qpos, qvel_rows = worlds.qpos, worlds.qvel
    for k, i in enumerate(env_ids):
        qvel_rows[i][dofadr:dofadr + 3] = velocities[k, :3]
        qvel_rows[i][dofadr + 3:dofadr + 6] = rotate_back(qpos[i][qadr + 3:qadr + 7], velocities[k, 3:])
        worlds.fresh[i] = 0
