"""simulo-local: run apps written against the ``simulo`` authoring contract on your own computer.

``import simulo`` is lean: it imports neither ``pybullet`` nor ``numpy`` nor ``torch``. Every public
name below resolves on first use (PEP 562). If the PyPI package ``simulo-interfaces`` is installed,
``simulo.interfaces`` resolves to it as well (the namespace is extended with ``pkgutil``).
"""

from __future__ import annotations

import importlib
import pkgutil as _pkgutil
from typing import Any

__path__ = _pkgutil.extend_path(__path__, __name__)
__version__ = "0.1.0"

# public name -> module that defines it
_LAZY: dict[str, str] = {
    # errors
    "SimuloError": "simulo.errors",
    "SimuloValueError": "simulo.errors",
    "ShapeError": "simulo.errors",
    "EnvIdError": "simulo.errors",
    "NonFiniteError": "simulo.errors",
    "NameNotFoundError": "simulo.errors",
    "NotAttachedError": "simulo.errors",
    "UrdfError": "simulo.errors",
    "AssetError": "simulo.errors",
    "SceneError": "simulo.errors",
    "UnreachableError": "simulo.errors",
    "CollisionError": "simulo.errors",
    "TaskError": "simulo.errors",
    "JobError": "simulo.errors",
    "MissingDependencyError": "simulo.errors",
    "WorkerError": "simulo.errors",
    # authoring values
    "Pose": "simulo.authoring.pose",
    "Transform": "simulo.authoring.pose",
    "ActuatorGainsConfig": "simulo.authoring.config",
    "MotorGainsConfig": "simulo.authoring.config",
    "JointConfig": "simulo.authoring.config",
    "ArticulationConfig": "simulo.authoring.config",
    "Terrain": "simulo.authoring.world",
    "Light": "simulo.authoring.world",
    "Asset": "simulo.authoring.asset",
    "Cuboid": "simulo.authoring.shapes",
    "Sphere": "simulo.authoring.shapes",
    "Cylinder": "simulo.authoring.shapes",
    "RigidPhysics": "simulo.authoring.shapes",
    "ContactSensor": "simulo.sim.sensors",
    "ParallelGripper": "simulo.sim.actuators",
    "DifferentialIKController": "simulo.sim.controllers",
    "OperationalSpaceController": "simulo.sim.controllers",
    # runtime
    "Scene": "simulo.sim.scene",
    "Robot": "simulo.sim.robot",
    "Prop": "simulo.sim.prop",
    "Simulation": "simulo.sim.simulation",
    "VideoWriter": "simulo.rl.recording",
    "Task": "simulo.rl.task",
    "LearningEnv": "simulo.rl.env",
    "GymVectorEnv": "simulo.rl.gym_adapter",
    "GymEnv": "simulo.rl.gym_adapter",
    # training (torch is imported only when a trainer or player is built)
    "RLTrainer": "simulo.rl.training.trainer",
    "PPOConfig": "simulo.rl.training.config",
    "PolicyPlayer": "simulo.rl.training.player",
    "RLPlayer": "simulo.rl.training.player",
    "evaluate": "simulo.platform.evaluation",
    "preview": "simulo.rl.preview",
    "PolicyCheckpoint": "simulo.platform.policies",
    # platform: apps, jobs, `simulo run`
    "App": "simulo.platform.app",
    "JobType": "simulo.platform.systems",
    "SystemType": "simulo.platform.systems",
    "Runtime": "simulo.platform.runtime",
}

__all__ = sorted([*_LAZY, "__version__"])


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'simulo' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
