"""Sensors: cameras, IMUs, contact, force-torque, frame-transformer and ray-casting sensors.

Each resolves from its own module on first use (``simulo.Camera`` imports no numpy until it is used).
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "Camera": "camera", "CameraSpawnConfig": "camera", "SensorOffset": "offset", "Sensor": "base",
    "ContactSensor": "contact", "IMU": "imu", "ForceTorqueSensor": "force_torque",
    "FrameTransformer": "frame_transformer", "FrameTransformerTarget": "frame_transformer",
    "RayCaster": "ray_caster", "RayPattern": "ray_caster",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
