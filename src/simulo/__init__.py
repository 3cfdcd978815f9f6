"""simulo-local: run apps written against the ``simulo`` authoring contract on your own computer.

``import simulo`` is lean: it imports neither ``pybullet`` nor ``numpy`` nor ``torch``. Every public
name below resolves on first use (PEP 562). ``simulo.interfaces`` is the ``simulo-interfaces`` package
(the namespace is extended as ``pkgutil.extend_path`` extends it).

The names are the SDK 0.34.0's top-level ``__all__`` (``tests/test_sdk_names.py``) plus simulo-local's own
(errors, ``MotorGainsConfig``, ``ParallelGripper``, ...). Three kinds:

* simulo-local's classes, including the value types the runtime consumes (``Pose``, the primitives, the
  robot configurations): validated, frozen, and shaped as simulo-interfaces' (tests/authoring/
  test_value_types_match_sdk.py);
* simulo-interfaces' own definitions (ids, ``parse_*``, cloud errors, markers, ``RecordConfig``, ...), from
  :mod:`simulo.authoring.contract`, which imports ``simulo.interfaces`` (~100 ms) on first use;
* placeholders that raise when used: :mod:`simulo.authoring.unavailable` (not in simulo-local yet).
"""

from __future__ import annotations

import importlib
import sys as _sys


def _extend_path(path: list[str], name: str) -> list[str]:
    """``pkgutil.extend_path`` without importing ``pkgutil``: add every other ``name`` folder on ``sys.path``.

    Each ``sys.path`` entry's path-entry finder is asked for ``name``, as ``pkgutil`` asks it (the same cache
    and hooks), and the folders it reports are appended (``.pkg`` files are not read).
    """
    # pkgutil itself imports typing, re, collections and functools: ``import simulo`` takes 2.7 ms with this
    # function and 15 ms with pkgutil.extend_path (Python 3.11, median of 30 fresh interpreters, start-up taken
    # off); tests/test_import.py holds the two to the same answer.
    extended = list(path)
    for entry in _sys.path:
        if not isinstance(entry, str):
            continue
        finder = _sys.path_importer_cache.get(entry)
        if finder is None and entry not in _sys.path_importer_cache:
            for hook in _sys.path_hooks:
                try:
                    finder = hook(entry)
                except ImportError:
                    continue
                _sys.path_importer_cache.setdefault(entry, finder)
                break
        spec = finder.find_spec(name) if finder is not None and hasattr(finder, "find_spec") else None
        for portion in (spec.submodule_search_locations or []) if spec is not None else []:
            if portion not in extended:
                extended.append(portion)
    return extended


__path__ = _extend_path(__path__, __name__)
__version__ = "0.1.0"

# public name -> module it comes from, as ``from MODULE import NAME`` takes it (a submodule too)
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
    "TerrainConfig": "simulo.authoring.world",
    "GroundPlane": "simulo.authoring.world",
    "SubTerrainConfig": "simulo.authoring.world",
    "RoughTerrain": "simulo.authoring.world",
    "LightConfig": "simulo.authoring.world",
    "DistantLight": "simulo.authoring.world",
    "DomeLight": "simulo.authoring.world",
    "Asset": "simulo.authoring.asset",
    "Cuboid": "simulo.authoring.shapes",
    "Cone": "simulo.authoring.shapes",
    "PrimitiveShape": "simulo.authoring.shapes",
    "Collision": "simulo.authoring.shapes",
    "Physics": "simulo.authoring.shapes",
    "Material": "simulo.authoring.materials",
    "SurfaceMaterial": "simulo.authoring.materials",
    "Sphere": "simulo.authoring.shapes",
    "Cylinder": "simulo.authoring.shapes",
    "RigidPhysics": "simulo.authoring.shapes",
    "ContactSensor": "simulo.sim.sensors.contact",
    "Camera": "simulo.sim.sensors.camera",
    "CameraSpawnConfig": "simulo.sim.sensors.camera",
    "SensorOffset": "simulo.sim.sensors.offset",
    "IMU": "simulo.sim.sensors.imu",
    "RayCaster": "simulo.sim.sensors.ray_caster",
    "RayPattern": "simulo.sim.sensors.ray_caster",
    "ForceTorqueSensor": "simulo.sim.sensors.force_torque",
    "FrameTransformer": "simulo.sim.sensors.frame_transformer",
    "FrameTransformerTarget": "simulo.sim.sensors.frame_transformer",
    "ParallelGripper": "simulo.sim.actuators",
    "ParallelGripperActuator": "simulo.sim.actuators",
    "SurfaceGripperActuator": "simulo.sim.actuators.surface_gripper",
    "GripperCommand": "simulo.sim.actuators",
    "GripperState": "simulo.sim.actuators",
    "DifferentialIKController": "simulo.sim.controllers",
    "OperationalSpaceController": "simulo.sim.controllers",
    # runtime
    "Scene": "simulo.sim.scene",
    "Robot": "simulo.sim.robot",
    "Prop": "simulo.sim.prop",
    "ObjectVariants": "simulo.sim.variants",
    "Simulation": "simulo.sim.simulation",
    "VideoWriter": "simulo.rl.recording",
    "Task": "simulo.rl.task",
    "ObservationComponent": "simulo.rl.components",
    "RewardComponent": "simulo.rl.components",
    "TerminationCondition": "simulo.rl.components",
    "LearningEnv": "simulo.rl.env",
    "GymVectorEnv": "simulo.rl.gym_adapter",
    "GymEnv": "simulo.rl.gym_adapter",
    # training (torch is imported only when a trainer or player is built)
    "RLTrainer": "simulo.rl.training.trainer",
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
    "Volume": "simulo.platform.volumes",
    "callbacks": "simulo.platform",  # a module: simulo.platform.callbacks
    "save_output": "simulo.platform.outputs",
    # simulo-interfaces' own definitions (imported on first use: ~100 ms)
    "ActionChannel": "simulo.authoring.contract",
    "ArrowMarker": "simulo.authoring.contract",
    "AssetEntity": "simulo.authoring.contract",
    "AssetSource": "simulo.authoring.contract",
    "AxesMarker": "simulo.authoring.contract",
    "CheckpointId": "simulo.authoring.contract",
    "CheckpointRefIsJobError": "simulo.authoring.contract",
    "ContractViolationError": "simulo.authoring.contract",
    "DeformableMaterial": "simulo.authoring.contract",
    "DeformablePhysics": "simulo.authoring.contract",
    "Digest": "simulo.authoring.contract",
    "Entity": "simulo.authoring.contract",
    "ImportResolutionError": "simulo.authoring.contract",
    "JobFailedError": "simulo.authoring.contract",
    "JobId": "simulo.authoring.contract",
    "JobPublicId": "simulo.authoring.contract",
    "LineMarker": "simulo.authoring.contract",
    "OrganizationId": "simulo.authoring.contract",
    "Output": "simulo.authoring.contract",
    "OutputKind": "simulo.authoring.contract",
    "OutputPublicId": "simulo.authoring.contract",
    "PackageId": "simulo.authoring.contract",
    "PointMarker": "simulo.authoring.contract",
    "PolicyInput": "simulo.authoring.contract",
    "PolicyInputSchema": "simulo.authoring.contract",
    "PolicyNetworkProtocol": "simulo.authoring.contract",
    "PolicyPublicId": "simulo.authoring.contract",
    "ProjectId": "simulo.authoring.contract",
    "RecordConfig": "simulo.authoring.contract",
    "RecordingPublicId": "simulo.authoring.contract",
    "ResourceId": "simulo.authoring.contract",
    "ResourceNotFoundError": "simulo.authoring.contract",
    "ResourceUri": "simulo.authoring.contract",
    "ResumeIncompatibleError": "simulo.authoring.contract",
    "SphereMarker": "simulo.authoring.contract",
    "TagId": "simulo.authoring.contract",
    "URDFAsset": "simulo.authoring.contract",
    "USDAsset": "simulo.authoring.contract",
    "USDWorld": "simulo.authoring.contract",
    "Visual": "simulo.authoring.contract",
    "VisualMarkerBase": "simulo.authoring.contract",
    "World": "simulo.authoring.contract",
    "checkpoint_ref_is_job_hint": "simulo.authoring.contract",
    "parse_checkpoint_ref": "simulo.authoring.contract",
    "parse_job_public_id": "simulo.authoring.contract",
    "parse_output_public_id": "simulo.authoring.contract",
    "parse_recording_public_id": "simulo.authoring.contract",
    "policy_id_for_job": "simulo.authoring.contract",
    # placeholders: not in simulo-local yet, or cloud-only (raise when used)
    "ObservationSet": "simulo.authoring.unavailable",
    "RewardSet": "simulo.authoring.unavailable",
    "TerminationSet": "simulo.authoring.unavailable",
    "Player": "simulo.authoring.unavailable",
    "Trainer": "simulo.authoring.unavailable",
    "PolicyNetwork": "simulo.authoring.unavailable",
}

__all__ = sorted([*_LAZY, "__version__"])


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'simulo' has no attribute {name!r}")
    source = importlib.import_module(module)
    # as ``from MODULE import NAME``: the module's attribute, else its submodule NAME (``simulo.callbacks``)
    value = getattr(source, name) if hasattr(source, name) else importlib.import_module(f"{module}.{name}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
