"""What sensors read from a MuJoCo engine: ray casts, contact forces, joint wrenches and camera images.

Every environment is its own ``MjData``, so a ray of environment ``i`` sees only that environment's objects and
the shared terrain (as an isolated camera does; :mod:`simulo.engine.mujoco.camera` adds the other environments of
the world to a camera that is not isolated). Terrain geoms (planes, height fields) are in
geom group :data:`TERRAIN_GROUP`, which terrain-only rays select. An object's label is its place in build order
(1-based, as :class:`simulo.engine.base.CameraFrames` says); :func:`geom_labels` maps every geom to one.

Conventions converted here: MuJoCo's contact force (``mj_contactForce``, contact frame) is the force of the
contact's first geom on its second; ``cfrc_int`` is the parent's force on a body, ``[torque, force]`` about
the subtree's centre of mass in world axes, turned here into ``[force, torque]`` about the body's origin, in
body axes. The contact and wrench arithmetic takes plain arrays (every environment's contacts at once), which the
MuJoCo Warp engine shares.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np

from simulo.engine.base import RayHits
from simulo.engine.mujoco.spec import TERRAIN_GROUP

_TERRAIN_ONLY = np.array([1 if g == TERRAIN_GROUP else 0 for g in range(6)], dtype=np.uint8)


def geom_labels(model: mujoco.MjModel, objects: Sequence[tuple[str, str]]) -> np.ndarray:
    """Label of every geom (ngeom,): ``k`` for the ``k``-th object built, 0 for none.

    Args:
        model: The compiled model.
        objects: Per object in build order, ``("geom", name)`` (a plane, height field or rigid shape) or
            ``("robot", prefix)``.
    """
    labels = np.zeros(model.ngeom, dtype=np.int32)
    names = [model.body(int(model.geom_bodyid[g])).name for g in range(model.ngeom)]
    for k, (kind, name) in enumerate(objects, start=1):
        if kind == "geom":
            labels[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)] = k
        else:
            labels[[g for g, body in enumerate(names) if body.startswith(name)]] = k
    return labels


def cast_rays(models: Sequence[mujoco.MjModel], datas: Sequence[mujoco.MjData], labels: np.ndarray,
              env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, terrain_only: bool) -> RayHits:
    """``mj_ray`` for each ray in its environment's data (kinematics must be current)."""
    count = len(env_ids)
    fraction = np.full(count, np.inf)
    position = np.full((count, 3), np.inf)
    normal = np.zeros((count, 3))
    label = np.zeros(count, dtype=np.int32)
    geom = np.zeros(1, dtype=np.int32)
    hit_normal = np.zeros(3)
    group = _TERRAIN_ONLY if terrain_only else None
    for r in range(count):
        i = int(env_ids[r])
        start = np.ascontiguousarray(starts[r], dtype=float)
        vec = np.ascontiguousarray(ends[r] - starts[r], dtype=float)
        x = mujoco.mj_ray(models[i], datas[i], start, vec, group, 1, -1, geom, hit_normal)
        if 0.0 <= x <= 1.0 and geom[0] >= 0:
            fraction[r] = x
            position[r] = start + x * vec
            normal[r] = hit_normal
            label[r] = labels[geom[0]]
    return RayHits(fraction=fraction, position=position, normal=normal, label=label)


def touching(bodies: np.ndarray, body_ids: np.ndarray, other: int | None) -> np.ndarray:
    """Which contacts (C,) between the bodies ``bodies`` (C, 2) involve one of ``body_ids`` and, unless ``other``
    is ``None``, body ``other``."""
    mask = np.asarray(np.isin(bodies, body_ids).any(axis=1))
    if other is not None:
        mask &= (bodies == other).any(axis=1)
    return mask


def net_contact_forces(bodies: np.ndarray, envs: np.ndarray, forces: np.ndarray, num_envs: int,
                       body_ids: np.ndarray, other: int | None) -> np.ndarray:
    """Net contact force (num_envs, len(body_ids), 3) on each body per environment, world axes, from contacts
    with body ``other`` (any body when ``None``).

    Args:
        bodies: The bodies of each contact's two geoms (C, 2).
        envs: Each contact's environment (C,).
        forces: Each contact's force of its first geom on its second (C, 3), world axes.
        num_envs: Number of environments.
        body_ids: The bodies whose net force is summed.
        other: The only body whose contacts count, or ``None`` for any.
    """
    out = np.zeros((num_envs, len(body_ids), 3))
    keep = np.ones(len(bodies), dtype=bool) if other is None else (bodies == other).any(axis=1)
    for k, b in enumerate(body_ids):
        for sign, side in ((-1.0, 0), (1.0, 1)):
            on = keep & (bodies[:, side] == b)
            np.add.at(out[:, k], envs[on], sign * forces[on])
    return out


def contact_forces(model: mujoco.MjModel, data: mujoco.MjData, body_ids: np.ndarray, other: int | None
                   ) -> np.ndarray:
    """Net contact force (len(body_ids), 3) on each body, world axes, from contacts with body ``other``
    (any body when ``None``)."""
    bodies = model.geom_bodyid[data.contact.geom[:data.ncon]].reshape(-1, 2)
    rows = np.flatnonzero(touching(bodies, body_ids, other))
    forces = np.empty((len(rows), 3))
    result = np.zeros(6)
    for k, c in enumerate(rows.tolist()):
        mujoco.mj_contactForce(model, data, c, result)
        forces[k] = data.contact.frame[c].reshape(3, 3).T @ result[:3]  # the first geom's force on the second
    return net_contact_forces(bodies[rows], np.zeros(len(rows), dtype=np.int64), forces, 1, body_ids, other)[0]


def count_contacts(bodies: np.ndarray, envs: np.ndarray, num_envs: int, groups: Sequence[np.ndarray],
                   other: int) -> np.ndarray:
    """Contact points between body ``other`` and each group of bodies per environment (num_envs, len(groups)),
    from contacts between the bodies ``bodies`` (C, 2) in the environments ``envs`` (C,)."""
    out = np.zeros((num_envs, len(groups)), dtype=np.int64)
    theirs = bodies == other
    for g, ids in enumerate(groups):
        mine = np.isin(bodies, ids)
        hit = (theirs[:, 0] & mine[:, 1]) | (theirs[:, 1] & mine[:, 0])
        out[:, g] = np.bincount(envs[hit], minlength=num_envs)
    return out


def contact_counts(model: mujoco.MjModel, datas: Sequence[mujoco.MjData], groups: Sequence[np.ndarray],
                   other: int) -> np.ndarray:
    """Contact points between body ``other`` and each group of bodies, per environment (num_envs, len(groups))."""
    pairs = [model.geom_bodyid[d.contact.geom[:d.ncon]].reshape(-1, 2) for d in datas]
    envs = np.repeat(np.arange(len(datas)), [len(p) for p in pairs])
    return count_contacts(np.concatenate(pairs), envs, len(datas), groups, other)


def parent_wrenches(cfrc_int: np.ndarray, centre: np.ndarray, xpos: np.ndarray, xmat: np.ndarray) -> np.ndarray:
    """Parent-on-body wrenches ``[fx, fy, fz, tx, ty, tz]`` (..., 6) in body axes about the body origins.

    Args:
        cfrc_int: Each body's ``cfrc_int`` (..., 6): ``[torque, force]`` about ``centre``, world axes.
        centre: The centre of mass of each body's subtree root (..., 3), world.
        xpos: Each body's origin (..., 3), world.
        xmat: Each body's orientation (..., 9) or (..., 3, 3), row-major.
    """
    torque, force = cfrc_int[..., :3], cfrc_int[..., 3:]
    about_origin = torque + np.cross(centre - xpos, force)
    rot = xmat.reshape(*xpos.shape[:-1], 3, 3)
    return np.concatenate((np.einsum("...ji,...j->...i", rot, force),
                           np.einsum("...ji,...j->...i", rot, about_origin)), axis=-1)


def joint_wrenches(model: mujoco.MjModel, data: mujoco.MjData, body_ids: np.ndarray) -> np.ndarray:
    """Parent-on-body wrenches ``[fx, fy, fz, tx, ty, tz]`` (len(body_ids), 6) in body axes about the body
    origins, from ``cfrc_int`` (``mj_rnePostConstraint`` must have run on this state)."""
    return parent_wrenches(data.cfrc_int[body_ids], data.subtree_com[model.body_rootid[body_ids]],
                           data.xpos[body_ids], data.xmat[body_ids])
