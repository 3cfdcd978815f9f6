"""The values the engine interface passes (:mod:`simulo.engine.base`): environment indices, control modes,
joint descriptions, camera frames and ray hits."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

import numpy as np

from simulo.frozen import frozen_dataclass

#: Environment indices: a list or an integer array of distinct indices, any order.
EnvIds = Sequence[int] | np.ndarray


class ControlMode(IntEnum):
    """How one joint of one environment is driven during a physics step.

    The values are stored in ``int8`` arrays of shape (num_envs, num_joints).
    """

    #: No drive: the joint moves freely (the engine's default motors are off).
    PASSIVE = 0
    #: The engine's own position motor, with its solver gains and force limit.
    POSITION_MOTOR = 1
    #: The engine's own velocity motor, with its velocity gain and force limit.
    VELOCITY_MOTOR = 2
    #: An explicit joint torque (or force), applied for one step.
    TORQUE = 3


@frozen_dataclass
class JointInfo:
    """One joint of a model, as the engine loaded it.

    Attributes:
        name: Joint name from the model file.
        kind: ``"revolute"`` (continuous included), ``"prismatic"`` or ``"fixed"``; an engine that cannot
            drive a kind refuses the model when it is loaded.
        link_name: Name of the joint's child link (a body name).
        lower: Lower position limit (rad or m); ``lower > upper`` means unlimited.
        upper: Upper position limit.
        max_force: Effort limit from the model (N·m or N); ``<= 0`` means none given.
        max_velocity: Velocity limit from the model (rad/s or m/s).
    """

    name: str
    kind: str
    link_name: str
    lower: float
    upper: float
    max_force: float
    max_velocity: float


@frozen_dataclass
class CameraFrames:
    """What :meth:`Engine.render_cameras` draws for E cameras.

    Attributes:
        rgb: Colour images (E, H, W, 3) uint8.
        depth: Distance to the image plane in metres (E, H, W) float32 (``inf`` where nothing was drawn), or
            ``None`` when not asked for.
        labels: Object labels (E, H, W) int32, or ``None`` when not asked for: ``k`` is the ``k``-th object the
            engine built (1-based, counting each ``add_plane``, ``add_heightfield``, ``add_articulation`` and
            ``add_rigid`` call once), 0 where nothing was drawn.
    """

    rgb: np.ndarray
    depth: np.ndarray | None
    labels: np.ndarray | None


@frozen_dataclass
class RayHits:
    """What :meth:`Engine.cast_rays` finds for R rays.

    Attributes:
        fraction: Where each ray hit along its segment (R,), 0 at the start, 1 at the end; ``inf`` for a miss.
        position: World hit points (R, 3); ``inf`` for a miss.
        normal: World surface normals at the hits (R, 3); 0 for a miss.
        label: Object label of the hit (R,) int32 (see :class:`CameraFrames`), 0 for a miss.
    """

    fraction: np.ndarray
    position: np.ndarray
    normal: np.ndarray
    label: np.ndarray
