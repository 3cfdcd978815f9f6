"""The imaging and sensing calls of a PyBullet world: images, visual colours, rays, contact and joint forces.

Held by :class:`~simulo.engine.pybullet.world.PyBulletWorld` as its ``sensing`` (together the one owner of every
PyBullet call).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pybullet as p

#: A position or quaternion argument: any sequence of floats, numpy arrays included.
Vec3 = Sequence[float] | np.ndarray
#: Largest number of rays one ``rayTestBatch`` call takes.
_RAY_BATCH = 16384


@functools.lru_cache(maxsize=16)
def _rgb_index(height: int, width: int) -> np.ndarray:
    """Flat indices of the red, green and blue bytes of a ``height`` x ``width`` RGBA image (alpha dropped).

    ``np.take`` with them copies an image's RGB in a third of the time of copying the strided ``[..., :3]`` view.
    """
    return np.arange(height * width * 4, dtype=np.intp).reshape(-1, 4)[:, :3].ravel()


class WorldSensing:
    """Images, visual colours, rays, contact forces and joint force sensors of one PyBullet client.

    Args:
        cid: The PyBullet client id.
    """

    def __init__(self, cid: int) -> None:
        self.cid = cid
        #: the last camera's inputs and its (view, projection) matrices: a fixed camera reuses them
        self._camera_key: tuple[Any, ...] | None = None
        self._camera_matrices: tuple[Any, Any] = ((), ())

    def render(self, width: int, height: int, eye: Vec3, target: Vec3, fov_deg: float = 45.0) -> np.ndarray:
        """Draw the world with PyBullet's CPU TinyRenderer; returns RGB (height, width, 3) uint8.

        Only links with visual shapes are drawn.
        """
        view = p.computeViewMatrix(list(eye), list(target), [0, 0, 1], physicsClientId=self.cid)
        proj = p.computeProjectionMatrixFOV(fov_deg, width / height, 0.01, 20.0, physicsClientId=self.cid)
        img = p.getCameraImage(width, height, view, proj, renderer=p.ER_TINY_RENDERER, physicsClientId=self.cid)
        return np.reshape(np.asarray(img[2], dtype=np.uint8), (height, width, 4))[:, :, :3].copy()

    def camera_image(self, width: int, height: int, eye: Vec3, target: Vec3, up: Vec3, fov_y_deg: float,
                     near: float, far: float, segmentation: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """TinyRenderer image: RGB (H, W, 3) uint8, PyBullet's depth buffer (H, W) float32 in [0, 1] and, if
        asked, the segmentation mask (H, W) int32 (body id, -1 for nothing)."""
        key = (tuple(eye), tuple(target), tuple(up), fov_y_deg, width, height, near, far)
        if key != self._camera_key:
            self._camera_matrices = (
                p.computeViewMatrix(key[0], key[1], key[2], physicsClientId=self.cid),
                p.computeProjectionMatrixFOV(fov_y_deg, width / height, near, far, physicsClientId=self.cid))
            self._camera_key = key
        view, proj = self._camera_matrices
        flags = 0 if segmentation else p.ER_NO_SEGMENTATION_MASK
        img = p.getCameraImage(width, height, view, proj, renderer=p.ER_TINY_RENDERER, flags=flags,
                               physicsClientId=self.cid)
        rgba = np.asarray(img[2], dtype=np.uint8).reshape(-1)
        rgb = np.take(rgba, _rgb_index(height, width)).reshape(height, width, 3)  # one gather, not a strided copy
        depth = np.reshape(np.asarray(img[3], dtype=np.float32), (height, width))
        seg = np.reshape(np.asarray(img[4], dtype=np.int32), (height, width)) if segmentation else None
        return rgb, depth, seg

    def visual_colors(self, body: int) -> list[tuple[int, int, tuple[float, ...]]]:
        """``(link, shape index within the link, rgba)`` of every visual shape of a body."""
        out: list[tuple[int, int, tuple[float, ...]]] = []
        counts: dict[int, int] = {}
        for data in p.getVisualShapeData(body, physicsClientId=self.cid):
            k = counts.get(data[1], 0)
            counts[data[1]] = k + 1
            out.append((data[1], k, tuple(data[7])))
        return out

    def set_visual_color(self, body: int, link: int, shape: int, rgba: Sequence[float]) -> None:
        """Recolour one visual shape (alpha 0 hides it from the TinyRenderer, segmentation included)."""
        p.changeVisualShape(body, link, shapeIndex=shape, rgbaColor=list(rgba), physicsClientId=self.cid)

    def ray_batch(self, starts: np.ndarray, ends: np.ndarray, mask: int | None
                  ) -> list[tuple[int, float, Vec3, Vec3]]:
        """``rayTestBatch``: per ray ``(body hit or -1, hit fraction, position, normal)``; ``mask`` is the collision
        filter mask of the rays (``None``: everything)."""
        kw = {} if mask is None else {"collisionFilterMask": mask}
        out: list[tuple[int, float, Vec3, Vec3]] = []
        for first in range(0, len(starts), _RAY_BATCH):
            hits = p.rayTestBatch(starts[first:first + _RAY_BATCH].tolist(), ends[first:first + _RAY_BATCH].tolist(),
                                  physicsClientId=self.cid, **kw)
            out += [(h[0], h[2], h[3], h[4]) for h in hits]
        return out

    def enable_force_torque(self, body: int, joint: int) -> None:
        """Switch on PyBullet's reaction-force sensor of one joint (reported by :meth:`joint_states`)."""
        p.enableJointForceTorqueSensor(body, joint, True, physicsClientId=self.cid)

    def contact_force(self, body_a: int, link_a: int, body_b: int | None) -> np.ndarray:
        """Net world-frame contact force (normal and friction) on one link of ``body_a`` from ``body_b`` (or any)."""
        kw = {} if body_b is None else {"bodyB": body_b}
        total = np.zeros(3)
        for c in p.getContactPoints(bodyA=body_a, linkIndexA=link_a, physicsClientId=self.cid, **kw):
            total += c[9] * np.asarray(c[7]) + c[10] * np.asarray(c[11]) + c[12] * np.asarray(c[13])
        return total
