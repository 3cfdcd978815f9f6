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


def render_rgb(model: mujoco.MjModel, data: mujoco.MjData, width: int, height: int, eye: Sequence[float],
               target: Sequence[float]) -> np.ndarray:
    """RGB image (height, width, 3) uint8 from a free camera at ``eye`` looking at ``target`` (world axes).

    Raises:
        MissingDependencyError: No OpenGL context can be made.
    """
    model.vis.global_.offwidth = max(int(model.vis.global_.offwidth), int(width))
    model.vis.global_.offheight = max(int(model.vis.global_.offheight), int(height))
    model.vis.global_.fovy = FOV_DEG
    try:
        renderer = mujoco.Renderer(model, int(height), int(width))
    except Exception as exc:  # MuJoCo reports a missing context with several error types
        raise MissingDependencyError(_NO_CONTEXT.format(why=f"{type(exc).__name__}: {exc}")) from exc
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
