"""Pictures of a MuJoCo environment through ``mujoco.Renderer``, which needs an OpenGL context.

MuJoCo draws through the back end named by ``MUJOCO_GL``, which the engine chooses before it imports ``mujoco``
where the user has not (:mod:`simulo.engine.mujoco.gl_backend`: EGL, else OSMesa, without a display). Where no
context can be made, rendering raises a :class:`~simulo.errors.MissingDependencyError` that names what to
install; physics never needs one.

A model that keeps MuJoCo's default headlight (its only light here) is lit as PyBullet's TinyRenderer lights a
scene, mostly ambient, so that a colour reads alike on both engines: MuJoCo's default leaves a face seen at a
grazing angle near black.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco
import numpy as np

from simulo.engine.mujoco.gl_backend import select_backend
from simulo.engine.mujoco.spec import TERRAIN_GROUP
from simulo.errors import MissingDependencyError

#: Vertical field of view of the camera, degrees (as the PyBullet engine's).
FOV_DEG = 45.0

#: MuJoCo's default headlight (ambient, diffuse, specular), and the one drawn instead: PyBullet's TinyRenderer's
#: coefficients (ambient 0.6, diffuse 0.35, specular 0.05).
_DEFAULT_HEADLIGHT = (0.1, 0.4, 0.5)
_HEADLIGHT = (0.6, 0.35, 0.05)

#: A depth within this fraction of the far plane is the far plane: nothing drawn there (as on PyBullet).
_FAR_TOLERANCE = 1e-3

_NO_CONTEXT = ("the MuJoCo engine renders through OpenGL and no context could be made here ({why}; {choice}). "
               "It needs MUJOCO_GL=egl with an EGL driver (apt-get install libegl1 libegl-mesa0; chosen "
               "automatically where no display is set) or MUJOCO_GL=osmesa for software rendering (apt-get install "
               "libosmesa6), or render on the 'pybullet' engine, whose renderer needs no OpenGL")


#: Why the first OpenGL context could not be made, once that failed: MuJoCo (GLFW) may abort the process when
#: asked again, so the first failure is the answer from then on.
_context_failure: list[str] = []


def _renderer(model: mujoco.MjModel, height: int, width: int) -> mujoco.Renderer:
    """A ``mujoco.Renderer``, or the error naming what to install (asked of OpenGL only once when it fails)."""
    if not _context_failure:
        try:
            return mujoco.Renderer(model, int(height), int(width))
        except Exception as exc:  # MuJoCo reports a missing context with several error types
            _context_failure.append(f"{type(exc).__name__}: {exc}")
            raise MissingDependencyError(_no_context()) from exc
    raise MissingDependencyError(_no_context())


def _no_context() -> str:
    return _NO_CONTEXT.format(why=_context_failure[0], choice=select_backend().reason)


def can_render() -> bool:
    """Whether an OpenGL context can be made here for MuJoCo's renderer (asked once, as rendering asks)."""
    try:
        _renderer(mujoco.MjModel.from_xml_string("<mujoco/>"), 8, 8).close()
    except MissingDependencyError:
        return False
    return True


def _prepare(model: mujoco.MjModel, width: int, height: int, fov_y_deg: float) -> None:
    """Size the offscreen buffer for ``width`` x ``height``, set the field of view, and light a model that
    keeps MuJoCo's default headlight as PyBullet does."""
    model.vis.global_.offwidth = max(int(model.vis.global_.offwidth), int(width))
    model.vis.global_.offheight = max(int(model.vis.global_.offheight), int(height))
    model.vis.global_.fovy = float(fov_y_deg)
    light = model.vis.headlight
    if np.allclose([light.ambient, light.diffuse, light.specular],
                   [[level] * 3 for level in _DEFAULT_HEADLIGHT], atol=1e-6):
        light.ambient[:], light.diffuse[:], light.specular[:] = ([level] * 3 for level in _HEADLIGHT)


def render_rgb(model: mujoco.MjModel, data: mujoco.MjData, width: int, height: int, eye: Sequence[float],
               target: Sequence[float]) -> np.ndarray:
    """RGB image (height, width, 3) uint8 from a free camera at ``eye`` looking at ``target`` (world axes).

    Raises:
        MissingDependencyError: No OpenGL context can be made.
    """
    _prepare(model, width, height, FOV_DEG)
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
                   env_ids: Sequence[int], neighbours: Sequence[Sequence[int]], poses: np.ndarray, width: int,
                   height: int, fov_y_deg: float, near: float, far: float, depth: bool, segment: bool
                   ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Colour (E, H, W, 3), depth (E, H, W) and label (E, H, W) images from camera ``poses`` (E, 7) (x axis
    forward; MuJoCo's free camera keeps the world's z up, so a camera's roll is not drawn).

    Image ``k`` shows environment ``env_ids[k]`` and the objects (not the terrain, which every environment
    holds) of the environments ``neighbours[k]``.

    Raises:
        MissingDependencyError: No OpenGL context can be made.
    """
    count = len(env_ids)
    rgb = np.zeros((count, height, width, 3), dtype=np.uint8)
    dist = np.full((count, height, width), np.inf, dtype=np.float32) if depth else None
    seg = np.zeros((count, height, width), dtype=np.int32) if segment else None
    option = mujoco.MjvOption()
    option.geomgroup[:] = 1
    objects = mujoco.MjvOption()
    objects.geomgroup[:] = [0 if group == TERRAIN_GROUP else 1 for group in range(len(objects.geomgroup))]
    perturb = mujoco.MjvPerturb()
    for k, env in enumerate(env_ids):
        model, data = models[env], datas[env]
        _prepare(model, width, height, fov_y_deg)
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
            for other in neighbours[k]:
                mujoco.mjv_addGeoms(models[other], datas[other], objects, perturb, mujoco.mjtCatBit.mjCAT_ALL,
                                    renderer.scene)
            rgb[k] = renderer.render()
            if dist is not None:
                renderer.enable_depth_rendering()
                image = np.asarray(renderer.render(), dtype=np.float32)
                dist[k] = np.where(image < far * (1 - _FAR_TOLERANCE), image, np.inf)
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
