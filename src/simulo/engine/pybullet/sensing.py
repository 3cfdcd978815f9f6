"""Cameras, rays, contact forces and joint wrenches on PyBullet (the PyBullet calls stay in :mod:`.world`).

Environments that share a world are told apart here: a camera of environment ``k`` hides the other
environments' visual shapes while it draws (alpha 0, which the TinyRenderer skips, segmentation included),
and a ray of environment ``k`` carries environment ``k``'s collision-filter bit, so it passes through the
neighbours' bodies. A world that holds one environment needs neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from simulo.engine.base import CameraFrames, EnvIds, RayHits, RigidBatch
from simulo.engine.pybullet.world import PyBulletWorld, rotation_matrix
from simulo.errors import SimuloValueError

if TYPE_CHECKING:
    from simulo.engine.pybullet.engine import PyBulletEngine

#: Collision group of PyBullet's static objects (planes, height fields): what ``terrain_only`` rays hit.
STATIC_GROUP = 2

#: Farthest clipping distance handed to the TinyRenderer, m: with 1e6 (Isaac Lab's default) it draws nothing.
MAX_FAR = 1.0e4


#: How many times a terrain-only ray is cast again past a static body that is not terrain (a fixed robot base
#: or a static fixture share PyBullet's static collision group with the terrain).
_TERRAIN_PASSES = 8
#: How far past such a body, as a fraction of the ray's length, the next cast starts.
_STEP_PAST = 1e-3


def env_bit(slot: int) -> int:
    """Collision-filter bit of the environment in slot ``slot`` of its world."""
    return 1 << (2 + slot)


class ArticulationSensing:
    """Contact forces and joint wrenches of an articulation batch (a mixin of the PyBullet batch)."""

    handles: list[tuple[PyBulletWorld, int]]
    body_links: list[int]
    _ft_enabled: set[int]

    def contact_forces(self, bodies: Sequence[int], other: RigidBatch | None) -> np.ndarray:
        """Net world-frame contact force on each body (num_envs, len(bodies), 3), from ``other`` or anything."""
        from simulo.engine.pybullet.rigid import PyBulletRigidBatch

        if other is not None and not isinstance(other, PyBulletRigidBatch):
            raise SimuloValueError("contact forces are taken against a PyBullet rigid batch, got "
                                   f"{type(other).__name__}")
        out = np.zeros((len(self.handles), len(bodies), 3))
        for i, (w, b) in enumerate(self.handles):
            other_body = None if other is None else other.handles[i][1]
            for m, k in enumerate(bodies):
                out[i, m] = w.contact_force(b, self.body_links[k], other_body)
        return out

    def joint_wrenches(self, bodies: Sequence[int]) -> np.ndarray:
        """The parent-to-body joint wrench of each non-root body (num_envs, len(bodies), 6), body frame.

        Raises:
            SimuloValueError: A body is the root, which has no joint.
        """
        if any(k == 0 for k in bodies):
            raise SimuloValueError("the root body has no joint to measure; attach the force-torque sensor to a child "
                                   "body")
        joints = [self.body_links[k] for k in bodies]
        for j in joints:
            if j not in self._ft_enabled:
                for w, b in self.handles:
                    w.enable_force_torque(b, j)
                self._ft_enabled.add(j)
        out = np.empty((len(self.handles), len(bodies), 6))
        for i, (w, b) in enumerate(self.handles):
            for m, (j, state) in enumerate(zip(joints, w.joint_states(b, joints))):
                # PyBullet reports the wrench at the link's centre of mass, in its inertial frame
                com, quat = w.inertial_offset(b, j)
                rot = rotation_matrix(quat)
                force = rot @ np.asarray(state[2][:3])
                out[i, m, :3] = force
                out[i, m, 3:] = rot @ np.asarray(state[2][3:]) + np.cross(np.asarray(com), force)
        return out


def _hidden(engine: PyBulletEngine, env: int) -> list[tuple[PyBulletWorld, int]]:
    """Bodies of the other environments in ``env``'s world."""
    world, per = engine.env_world[env], engine.envs_per_world
    first = (env // per) * per
    others = [j for j in range(first, min(first + per, engine.num_envs)) if j != env]
    return [batch.handles[j] for batch in engine.batches for j in others if batch.handles[j][0] is world]


def _labels(engine: PyBulletEngine) -> dict[tuple[int, int], int]:
    """``(world client, body id) -> label`` of every object the engine built."""
    out = {}
    for label, obj in enumerate(engine.objects, start=1):
        for w, b in obj:
            out[(w.cid, b)] = label
    return out


def render_cameras(engine: PyBulletEngine, env_ids: EnvIds, poses: np.ndarray, width: int, height: int,
                   fov_y_deg: float, near: float, far: float, *, depth: bool, labels: bool,
                   isolate: bool) -> CameraFrames:
    """See :meth:`simulo.engine.base.Engine.render_cameras`."""
    far = min(far, MAX_FAR)
    n = len(env_ids)
    rgb = np.empty((n, height, width, 3), dtype=np.uint8)
    depth_out = np.empty((n, height, width), dtype=np.float32) if depth else None
    label_out = np.zeros((n, height, width), dtype=np.int32) if labels else None
    table = _labels(engine) if labels else {}
    for k, env in enumerate(env_ids):
        world = engine.env_world[int(env)]
        rot = rotation_matrix(poses[k, 3:])
        eye = poses[k, :3]
        hidden = _hidden(engine, int(env)) if isolate and engine.envs_per_world > 1 else []
        colours = [(w, b, w.visual_colors(b)) for w, b in hidden]
        for w, b, shapes in colours:
            for link, shape, rgba in shapes:
                w.set_visual_color(b, link, shape, (*rgba[:3], 0.0))
        try:
            image, buffer, seg = world.camera_image(width, height, eye, eye + rot[:, 0], rot[:, 2], fov_y_deg,
                                                    near, far, labels)
        finally:
            for w, b, shapes in colours:
                for link, shape, rgba in shapes:
                    w.set_visual_color(b, link, shape, rgba)
        rgb[k] = image
        if depth_out is not None:
            z = far * near / (far - (far - near) * buffer.astype(np.float64))
            depth_out[k] = np.where(z >= far * (1.0 - 1e-3), np.inf, z)  # the far plane: nothing drawn
        if label_out is not None and seg is not None:
            body = seg & ((1 << 24) - 1)
            for value in np.unique(body[seg >= 0]):
                label_out[k][(seg >= 0) & (body == value)] = table.get((world.cid, int(value)), 0)
    return CameraFrames(rgb, depth_out, label_out)


def cast_rays(engine: PyBulletEngine, env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray,
              terrain_only: bool) -> RayHits:
    """See :meth:`simulo.engine.base.Engine.cast_rays`."""
    r = len(env_ids)
    fraction = np.full(r, np.inf)
    position = np.full((r, 3), np.inf)
    normal = np.zeros((r, 3))
    label = np.zeros(r, dtype=np.int32)
    table = _labels(engine)
    shared = engine.envs_per_world > 1 and engine.num_envs > 1
    groups: dict[tuple[int, int], list[int]] = {}
    for row, env in enumerate(env_ids):
        world_index = int(env) // engine.envs_per_world
        slot = int(env) % engine.envs_per_world if shared else -1
        groups.setdefault((world_index, slot), []).append(row)
    for (world_index, slot), rows in groups.items():
        world = engine.worlds[world_index]
        mask: int | None = None
        if terrain_only:
            mask = STATIC_GROUP
        elif slot >= 0:
            mask = env_bit(slot) | STATIC_GROUP
        begin = np.zeros(len(rows))  # where along its segment each ray is cast from
        todo = np.arange(len(rows))
        for _ in range(_TERRAIN_PASSES if terrain_only else 1):
            seg_start = starts[rows][todo] + begin[todo, None] * (ends[rows][todo] - starts[rows][todo])
            hits = world.ray_batch(seg_start, ends[rows][todo], mask)
            again = []
            for k, (body, frac, pos, nrm) in zip(todo, hits):
                if body < 0:
                    continue
                row, hit_label = rows[k], table.get((world.cid, body), 0)
                at = begin[k] + frac * (1.0 - begin[k])
                if terrain_only and hit_label not in engine.terrain_labels:
                    begin[k] = at + _STEP_PAST  # a static body that is not terrain: cast again beyond it
                    again.append(k)
                    continue
                fraction[row], position[row], normal[row], label[row] = at, pos, nrm, hit_label
            todo = np.array(again, dtype=np.int64)
            if not len(todo):
                break
    return RayHits(fraction, position, normal, label)
