"""Cameras and rays over the worlds of one PyBullet engine (the PyBullet calls stay in :mod:`.world_sensing`).

Environments that share a world are told apart here: a camera of environment ``k`` hides the other
environments' visual shapes while it draws (alpha 0, which the TinyRenderer skips, segmentation included),
and a ray of environment ``k`` carries environment ``k``'s collision-filter bit, so it passes through the
neighbours' bodies. A world that holds one environment needs neither.
"""

from __future__ import annotations

import numpy as np

from simulo.engine.base import CameraFrames, EnvIds, RayHits
from simulo.engine.pybullet.layout import STATIC_GROUP, WorldLayout, env_bit
from simulo.engine.pybullet.world import rotation_matrix

#: Farthest clipping distance handed to the TinyRenderer, m: with 1e6 (Isaac Lab's default) it draws nothing.
MAX_FAR = 1.0e4

#: How many times a terrain-only ray is cast again past a static body that is not terrain (a fixed robot base
#: or a static fixture share PyBullet's static collision group with the terrain).
_TERRAIN_PASSES = 8
#: How far past such a body, as a fraction of the ray's length, the next cast starts.
_STEP_PAST = 1e-3


class SceneSensing:
    """Cameras and rays of every environment, each in its own world and slot.

    Args:
        layout: The worlds, which environment each holds, and the objects built in them (read at each call, so
            objects built later are seen).
    """

    def __init__(self, layout: WorldLayout) -> None:
        self._layout = layout

    def render_cameras(self, env_ids: EnvIds, poses: np.ndarray, width: int, height: int, fov_y_deg: float,
                       near: float, far: float, *, depth: bool, labels: bool, isolate: bool) -> CameraFrames:
        """See :meth:`simulo.engine.base.Engine.render_cameras`."""
        layout = self._layout
        far = min(far, MAX_FAR)
        n = len(env_ids)
        rgb = np.empty((n, height, width, 3), dtype=np.uint8)
        depth_out = np.empty((n, height, width), dtype=np.float32) if depth else None
        label_out = np.zeros((n, height, width), dtype=np.int32) if labels else None
        table = layout.labels() if labels else {}
        for k, env in enumerate(env_ids):
            world = layout.env_world[int(env)]
            rot = rotation_matrix(poses[k, 3:])
            eye = poses[k, :3]
            hidden = layout.neighbours(int(env)) if isolate and layout.envs_per_world > 1 else []
            colours = [(w, b, w.sensing.visual_colors(b)) for w, b in hidden]
            for w, b, shapes in colours:
                for link, shape, rgba in shapes:
                    w.sensing.set_visual_color(b, link, shape, (*rgba[:3], 0.0))
            try:
                image, buffer, seg = world.sensing.camera_image(width, height, eye, eye + rot[:, 0], rot[:, 2],
                                                                fov_y_deg, near, far, labels)
            finally:
                for w, b, shapes in colours:
                    for link, shape, rgba in shapes:
                        w.sensing.set_visual_color(b, link, shape, rgba)
            rgb[k] = image
            if depth_out is not None:
                z = far * near / (far - (far - near) * buffer.astype(np.float64))
                depth_out[k] = np.where(z >= far * (1.0 - 1e-3), np.inf, z)  # the far plane: nothing drawn
            if label_out is not None and seg is not None:
                body = seg & ((1 << 24) - 1)
                for value in np.unique(body[seg >= 0]):
                    label_out[k][(seg >= 0) & (body == value)] = table.get((world.cid, int(value)), 0)
        return CameraFrames(rgb, depth_out, label_out)

    def cast_rays(self, env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, terrain_only: bool) -> RayHits:
        """See :meth:`simulo.engine.base.Engine.cast_rays`."""
        layout = self._layout
        r = len(env_ids)
        fraction = np.full(r, np.inf)
        position = np.full((r, 3), np.inf)
        normal = np.zeros((r, 3))
        label = np.zeros(r, dtype=np.int32)
        table = layout.labels()
        groups: dict[tuple[int, int], list[int]] = {}
        for row, env in enumerate(env_ids):
            world_index = int(env) // layout.envs_per_world
            slot = int(env) % layout.envs_per_world if layout.shared else -1
            groups.setdefault((world_index, slot), []).append(row)
        for (world_index, slot), rows in groups.items():
            world = layout.worlds[world_index]
            mask: int | None = None
            if terrain_only:
                mask = STATIC_GROUP
            elif slot >= 0:
                mask = env_bit(slot) | STATIC_GROUP
            begin = np.zeros(len(rows))  # where along its segment each ray is cast from
            todo = np.arange(len(rows))
            for _ in range(_TERRAIN_PASSES if terrain_only else 1):
                seg_start = starts[rows][todo] + begin[todo, None] * (ends[rows][todo] - starts[rows][todo])
                hits = world.sensing.ray_batch(seg_start, ends[rows][todo], mask)
                again = []
                for k, (body, frac, pos, nrm) in zip(todo, hits):
                    if body < 0:
                        continue
                    row, hit_label = rows[k], table.get((world.cid, body), 0)
                    at = begin[k] + frac * (1.0 - begin[k])
                    if terrain_only and hit_label not in layout.terrain_labels:
                        begin[k] = at + _STEP_PAST  # a static body that is not terrain: cast again beyond it
                        again.append(k)
                        continue
                    fraction[row], position[row], normal[row], label[row] = at, pos, nrm, hit_label
                todo = np.array(again, dtype=np.int64)
                if not len(todo):
                    break
        return RayHits(fraction, position, normal, label)
