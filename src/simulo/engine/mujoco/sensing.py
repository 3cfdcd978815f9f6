"""What sensors read from a MuJoCo engine: ray casts, contact forces, joint wrenches and camera images.

Every environment is its own ``MjData``, so a ray of environment ``i`` sees only that environment's objects and
the shared terrain (as an isolated camera does; :mod:`simulo.engine.mujoco.camera` adds the other environments of
the world to a camera that is not isolated). Terrain geoms (planes, height fields) are in
geom group :data:`TERRAIN_GROUP`, which terrain-only rays select. An object's label is its place in build order
(1-based, as :class:`simulo.engine.base.CameraFrames` says); :func:`geom_labels` maps every geom to one.

Conventions converted here: MuJoCo's contact force (``mj_contactForce``, contact frame) is the force of the
contact's first geom on its second; ``cfrc_int`` is the parent's force on a body, ``[torque, force]`` about
the subtree's centre of mass in world axes, turned here into ``[force, torque]`` about the body's origin, in
body axes.
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


def contact_forces(model: mujoco.MjModel, data: mujoco.MjData, body_ids: np.ndarray, other: int | None
                   ) -> np.ndarray:
    """Net contact force (len(body_ids), 3) on each body, world axes, from contacts with body ``other``
    (any body when ``None``)."""
    out = np.zeros((len(body_ids), 3))
    result = np.zeros(6)
    for c in range(data.ncon):
        b1, b2 = (int(model.geom_bodyid[g]) for g in data.contact.geom[c])
        if other is not None and other not in (b1, b2):
            continue
        mine = [(k, sign) for k, b in enumerate(body_ids) for sign, side in ((-1.0, b1), (1.0, b2)) if b == side]
        if not mine:
            continue
        mujoco.mj_contactForce(model, data, c, result)
        world = data.contact.frame[c].reshape(3, 3).T @ result[:3]  # the first geom's force on the second
        for k, sign in mine:
            out[k] += sign * world
    return out


def contact_counts(model: mujoco.MjModel, datas: Sequence[mujoco.MjData], groups: Sequence[np.ndarray],
                   other: int) -> np.ndarray:
    """Contact points between body ``other`` and each group of bodies, per environment (num_envs, len(groups))."""
    out = np.zeros((len(datas), len(groups)), dtype=np.int64)
    for i, d in enumerate(datas):
        if d.ncon == 0:
            continue
        pair = model.geom_bodyid[d.contact.geom[:d.ncon]]
        theirs = pair == other
        for g, ids in enumerate(groups):
            mine = np.isin(pair, ids)
            out[i, g] = int(((theirs[:, 0] & mine[:, 1]) | (theirs[:, 1] & mine[:, 0])).sum())
    return out


def joint_wrenches(model: mujoco.MjModel, data: mujoco.MjData, body_ids: np.ndarray) -> np.ndarray:
    """Parent-on-body wrenches ``[fx, fy, fz, tx, ty, tz]`` (len(body_ids), 6) in body axes about the body
    origins, from ``cfrc_int`` (``mj_rnePostConstraint`` must have run on this state)."""
    out = np.empty((len(body_ids), 6))
    for k, b in enumerate(body_ids):
        torque, force = data.cfrc_int[b, :3], data.cfrc_int[b, 3:]
        centre = data.subtree_com[model.body_rootid[b]]
        about_origin = torque + np.cross(centre - data.xpos[b], force)
        rot = data.xmat[b].reshape(3, 3)
        out[k, :3] = rot.T @ force
        out[k, 3:] = rot.T @ about_origin
    return out
