"""Pictures of a MuJoCo environment through ``mujoco.Renderer``, which needs an OpenGL context.

MuJoCo picks its OpenGL back end from ``MUJOCO_GL`` (``egl`` for a GPU without a display, ``osmesa`` for software
rendering, ``glfw`` with a display). Where none can be made, rendering raises a
:class:`~simulo.errors.MissingDependencyError` that names what to install; physics never needs one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco
import numpy as np

from simulo.errors import MissingDependencyError

#: Vertical field of view of the camera, degrees (as the PyBullet engine's).
FOV_DEG = 45.0

_NO_CONTEXT = ("the MuJoCo engine renders through OpenGL and no context could be made here ({why}); "
               "set MUJOCO_GL=egl with an EGL driver (apt-get install libegl1) or MUJOCO_GL=osmesa for software "
               "rendering (apt-get install libosmesa6), or render on the 'pybullet' engine, whose renderer needs "
               "no OpenGL")


#: Why the first OpenGL context could not be made, once that failed: MuJoCo (GLFW) may abort the process when
#: asked again, so the first failure is the answer from then on.
_context_failure: list[str] = []


def _renderer(model: mujoco.MjModel, height: int, width: int) -> mujoco.Renderer:
    """A ``mujoco.Renderer``, or the error naming what to install (asked of OpenGL only once when it fails)."""
    if _context_failure:
        raise MissingDependencyError(_NO_CONTEXT.format(why=_context_failure[0]))
    try:
        return mujoco.Renderer(model, int(height), int(width))
    except Exception as exc:  # MuJoCo reports a missing context with several error types
        _context_failure.append(f"{type(exc).__name__}: {exc}")
        raise MissingDependencyError(_NO_CONTEXT.format(why=_context_failure[0])) from exc


def can_render() -> bool:
    """Whether an OpenGL context can be made here for MuJoCo's renderer (asked once, as rendering asks)."""
    try:
        _renderer(mujoco.MjModel.from_xml_string("<mujoco/>"), 8, 8).close()
    except MissingDependencyError:
        return False
    return True


def render_rgb(model: mujoco.MjModel, data: mujoco.MjData, width: int, height: int, eye: Sequence[float],
               target: Sequence[float]) -> np.ndarray:
    """RGB image (height, width, 3) uint8 from a free camera at ``eye`` looking at ``target`` (world axes).

    Raises:
        MissingDependencyError: No OpenGL context can be made.
    """
    model.vis.global_.offwidth = max(int(model.vis.global_.offwidth), int(width))
    model.vis.global_.offheight = max(int(model.vis.global_.offheight), int(height))
    model.vis.global_.fovy = FOV_DEG
    renderer = _renderer(model, height, width)
    try:
        offset = np.asarray(eye, dtype=float) - np.asarray(target, dtype=float)
        camera = mujoco.MjvCamera()
        camera.type = mujoco.mjtCamera.mjCAMERA_FREE
        camera.lookat[:] = target
        camera.distance = float(np.linalg.norm(offset))
        camera.azimuth = math.degrees(math.atan2(offset[1], offset[0])) + 180.0
        camera.elevation = -math.degrees(math.atan2(offset[2], math.hypot(offset[0], offset[1])))
        renderer.update_scene(data, camera)
        return np.asarray(renderer.render(), dtype=np.uint8).copy()
    finally:
        renderer.close()


def render_cameras(models: Sequence[mujoco.MjModel], datas: Sequence[mujoco.MjData], labels: np.ndarray,
                   env_ids: Sequence[int], poses: np.ndarray, width: int, height: int, fov_y_deg: float,
                   near: float, far: float, depth: bool, segment: bool
                   ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Colour (E, H, W, 3), depth (E, H, W) and label (E, H, W) images from camera ``poses`` (E, 7) (x axis
    forward; MuJoCo's free camera keeps the world's z up, so a camera's roll is not drawn).

    Raises:
        MissingDependencyError: No OpenGL context can be made.
    """
    count = len(env_ids)
    rgb = np.zeros((count, height, width, 3), dtype=np.uint8)
    dist = np.full((count, height, width), np.inf, dtype=np.float32) if depth else None
    seg = np.zeros((count, height, width), dtype=np.int32) if segment else None
    option = mujoco.MjvOption()
    option.geomgroup[:] = 1
    for k, env in enumerate(env_ids):
        model, data = models[env], datas[env]
        model.vis.global_.offwidth = max(int(model.vis.global_.offwidth), width)
        model.vis.global_.offheight = max(int(model.vis.global_.offheight), height)
        model.vis.global_.fovy = float(fov_y_deg)
        model.vis.map.znear = float(near) / float(model.stat.extent)
        model.vis.map.zfar = float(far) / float(model.stat.extent)
        renderer = _renderer(model, height, width)
        try:
            forward = np.zeros(3)
            mujoco.mju_rotVecQuat(forward, np.array([1.0, 0.0, 0.0]), np.asarray(poses[k, 3:], dtype=float))
            camera = mujoco.MjvCamera()
            camera.type = mujoco.mjtCamera.mjCAMERA_FREE
            camera.lookat[:] = np.asarray(poses[k, :3], dtype=float) + forward
            camera.distance = 1.0
            camera.azimuth = math.degrees(math.atan2(forward[1], forward[0]))
            camera.elevation = math.degrees(math.atan2(forward[2], math.hypot(forward[0], forward[1])))
            renderer.update_scene(data, camera, option)
            rgb[k] = renderer.render()
            if dist is not None:
                renderer.enable_depth_rendering()
                image = np.asarray(renderer.render(), dtype=np.float32)
                dist[k] = np.where(image < far * (1 - 1e-6), image, np.inf)
                renderer.disable_depth_rendering()
            if seg is not None:
                renderer.enable_segmentation_rendering()
                ids = np.asarray(renderer.render())
                geom = (ids[..., 1] == mujoco.mjtObj.mjOBJ_GEOM) & (ids[..., 0] >= 0)
                seg[k] = np.where(geom, labels[np.clip(ids[..., 0], 0, len(labels) - 1)], 0)
                renderer.disable_segmentation_rendering()
        finally:
            renderer.close()
    return rgb, dist, seg
