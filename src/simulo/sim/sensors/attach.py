"""How a simulation attaches the scene's sensors (and the robots' sensors) once the scene is built."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from simulo.sim.hooks import SensorContext
from simulo.sim.sensors.base import Sensor
from simulo.sim.tensors import to_numpy
from simulo.sim.variants import VariantProp

if TYPE_CHECKING:
    from simulo.engine.base import Engine
    from simulo.sim.scene import Scene
    from simulo.sim.tensors import Tensors


class SensorHost(Protocol):
    """What attaching sensors reads of the simulation (a :class:`~simulo.sim.simulation.Simulation` is one)."""

    @property
    def scene(self) -> Scene:
        """The scene whose sensors (and whose robots' sensors) are attached."""
        ...

    @property
    def tensors(self) -> Tensors:
        """The simulation's tensor converter."""
        ...

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        ...

    @property
    def env_origins(self) -> Any:
        """Environment origins (num_envs, 3)."""
        ...

    @property
    def time(self) -> float:
        """Simulated time in seconds now."""
        ...


def has_cameras(scene: Scene) -> bool:
    """Whether the scene or one of its robots carries a camera (the simulation then loads drawable models)."""
    module = sys.modules.get("simulo.sim.sensors.camera")
    if module is None:  # no Camera was ever made in this process (start-up skips the module)
        return False
    return any(isinstance(sensor, module.Camera) for sensor, _ in _sensors(scene))


def object_labels(scene: Scene) -> dict[int, str]:
    """Engine object label -> scene path, following the order in which the simulation builds the scene."""
    labels: dict[int, str] = {}
    for entry in scene.get_items():
        kind, item = entry["kind"], entry["item"]
        if kind not in ("terrain", "robot", "prop", "fixture"):
            continue
        for _ in range(len(item.options) if isinstance(item, VariantProp) else 1):
            labels[len(labels) + 1] = entry["path"]
    return labels


def _sensors(scene: Scene) -> Iterator[tuple[Sensor, bool | None]]:
    """Every sensor with its ``per_environment`` (``None`` for a sensor on a robot)."""
    for entry in scene.items_of("sensor"):
        yield entry.item, entry.per_environment
    for entry in scene.items_of("robot"):
        for sensor in entry.item.sensors:
            if isinstance(sensor, Sensor):
                yield sensor, None


def attach_sensors(simulation: SensorHost, engine: Engine) -> None:
    """Give every sensor of the simulation's scene its context (the simulation calls it after building)."""
    scene = simulation.scene
    labels = object_labels(scene)
    origins = np.asarray(to_numpy(simulation.env_origins, "env_origins"), dtype=np.float64)
    for sensor, per_env in _sensors(scene):
        frame: tuple[float, ...] = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
        if per_env is not None and sensor.path is not None:
            frame = tuple(float(v) for v in scene.offset_of(sensor.path).to_list())
        sensor.runtime_attach(SensorContext(
            engine=engine, tensors=simulation.tensors, num_envs=simulation.num_envs, origins=origins,
            clock=lambda: simulation.time, gravity=engine.gravity, labels=labels,
            per_environment=per_env is not False, frame=frame))


def detach_sensors(scene: Scene) -> None:
    """Detach every sensor (the simulation is closing)."""
    for sensor, _ in _sensors(scene):
        sensor.runtime_detach()


def mark_stale(scene: Scene, env_ids: np.ndarray) -> None:
    """These environments were reset: cameras redraw them on their next read, IMUs do not differentiate across
    the teleport."""
    from simulo.sim.sensors.camera import Camera
    from simulo.sim.sensors.imu import IMU

    for sensor, _ in _sensors(scene):
        if isinstance(sensor, Camera):
            sensor.runtime_mark_stale(env_ids)
        elif isinstance(sensor, IMU) and sensor.runtime_attached:
            sensor.runtime_restart(env_ids)


def cameras(scene: Scene) -> list[Sensor]:
    """The scene's cameras, its robots' included, in scene order."""
    module = sys.modules.get("simulo.sim.sensors.camera")
    if module is None:  # no Camera was ever made in this process, so the scene has none (and start-up skips it)
        return []
    return [sensor for sensor, _ in _sensors(scene) if isinstance(sensor, module.Camera)]

