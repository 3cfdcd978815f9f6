"""Types of the public names of ``simulo`` for editors and type checkers.

``simulo/__init__.py`` resolves these names lazily (PEP 562), which static tools cannot follow; this stub
declares each one where it is defined. It must list exactly ``simulo.__all__`` with the modules of
``simulo._LAZY``: ``tests/test_public_stub.py`` checks both.
"""

from simulo.authoring.asset import Asset as Asset
from simulo.authoring.config import ActuatorGainsConfig as ActuatorGainsConfig
from simulo.authoring.config import ArticulationConfig as ArticulationConfig
from simulo.authoring.config import JointConfig as JointConfig
from simulo.authoring.config import MotorGainsConfig as MotorGainsConfig
from simulo.authoring.contract import ActionChannel as ActionChannel
from simulo.authoring.contract import ArrowMarker as ArrowMarker
from simulo.authoring.contract import AssetEntity as AssetEntity
from simulo.authoring.contract import AssetSource as AssetSource
from simulo.authoring.contract import AxesMarker as AxesMarker
from simulo.authoring.contract import CheckpointId as CheckpointId
from simulo.authoring.contract import CheckpointRefIsJobError as CheckpointRefIsJobError
from simulo.authoring.contract import ContractViolationError as ContractViolationError
from simulo.authoring.contract import DeformableMaterial as DeformableMaterial
from simulo.authoring.contract import DeformablePhysics as DeformablePhysics
from simulo.authoring.contract import Digest as Digest
from simulo.authoring.contract import Entity as Entity
from simulo.authoring.contract import ImportResolutionError as ImportResolutionError
from simulo.authoring.contract import JobFailedError as JobFailedError
from simulo.authoring.contract import JobId as JobId
from simulo.authoring.contract import JobPublicId as JobPublicId
from simulo.authoring.contract import LineMarker as LineMarker
from simulo.authoring.contract import OrganizationId as OrganizationId
from simulo.authoring.contract import Output as Output
from simulo.authoring.contract import OutputKind as OutputKind
from simulo.authoring.contract import OutputPublicId as OutputPublicId
from simulo.authoring.contract import PackageId as PackageId
from simulo.authoring.contract import PointMarker as PointMarker
from simulo.authoring.contract import PolicyInput as PolicyInput
from simulo.authoring.contract import PolicyInputSchema as PolicyInputSchema
from simulo.authoring.contract import PolicyNetworkProtocol as PolicyNetworkProtocol
from simulo.authoring.contract import PolicyPublicId as PolicyPublicId
from simulo.authoring.contract import ProjectId as ProjectId
from simulo.authoring.contract import RecordConfig as RecordConfig
from simulo.authoring.contract import RecordingPublicId as RecordingPublicId
from simulo.authoring.contract import ResourceId as ResourceId
from simulo.authoring.contract import ResourceNotFoundError as ResourceNotFoundError
from simulo.authoring.contract import ResourceUri as ResourceUri
from simulo.authoring.contract import ResumeIncompatibleError as ResumeIncompatibleError
from simulo.authoring.contract import SphereMarker as SphereMarker
from simulo.authoring.contract import TagId as TagId
from simulo.authoring.contract import URDFAsset as URDFAsset
from simulo.authoring.contract import USDAsset as USDAsset
from simulo.authoring.contract import USDWorld as USDWorld
from simulo.authoring.contract import Visual as Visual
from simulo.authoring.contract import VisualMarkerBase as VisualMarkerBase
from simulo.authoring.contract import World as World
from simulo.authoring.contract import checkpoint_ref_is_job_hint as checkpoint_ref_is_job_hint
from simulo.authoring.contract import parse_checkpoint_ref as parse_checkpoint_ref
from simulo.authoring.contract import parse_job_public_id as parse_job_public_id
from simulo.authoring.contract import parse_output_public_id as parse_output_public_id
from simulo.authoring.contract import parse_recording_public_id as parse_recording_public_id
from simulo.authoring.contract import policy_id_for_job as policy_id_for_job
from simulo.authoring.materials import Material as Material
from simulo.authoring.materials import SurfaceMaterial as SurfaceMaterial
from simulo.authoring.pose import Pose as Pose
from simulo.authoring.pose import Transform as Transform
from simulo.authoring.shapes import Collision as Collision
from simulo.authoring.shapes import Cone as Cone
from simulo.authoring.shapes import Cuboid as Cuboid
from simulo.authoring.shapes import Cylinder as Cylinder
from simulo.authoring.shapes import Physics as Physics
from simulo.authoring.shapes import PrimitiveShape as PrimitiveShape
from simulo.authoring.shapes import RigidPhysics as RigidPhysics
from simulo.authoring.shapes import Sphere as Sphere
from simulo.authoring.unavailable import ObservationSet as ObservationSet
from simulo.authoring.unavailable import Player as Player
from simulo.authoring.unavailable import PolicyNetwork as PolicyNetwork
from simulo.authoring.unavailable import RewardSet as RewardSet
from simulo.authoring.unavailable import TerminationSet as TerminationSet
from simulo.authoring.unavailable import Trainer as Trainer
from simulo.authoring.world import DistantLight as DistantLight
from simulo.authoring.world import DomeLight as DomeLight
from simulo.authoring.world import GroundPlane as GroundPlane
from simulo.authoring.world import Light as Light
from simulo.authoring.world import LightConfig as LightConfig
from simulo.authoring.world import RoughTerrain as RoughTerrain
from simulo.authoring.world import SubTerrainConfig as SubTerrainConfig
from simulo.authoring.world import Terrain as Terrain
from simulo.authoring.world import TerrainConfig as TerrainConfig
from simulo.errors import AssetError as AssetError
from simulo.errors import CollisionError as CollisionError
from simulo.errors import EnvIdError as EnvIdError
from simulo.errors import JobError as JobError
from simulo.errors import MissingDependencyError as MissingDependencyError
from simulo.errors import NameNotFoundError as NameNotFoundError
from simulo.errors import NonFiniteError as NonFiniteError
from simulo.errors import NotAttachedError as NotAttachedError
from simulo.errors import SceneError as SceneError
from simulo.errors import ShapeError as ShapeError
from simulo.errors import SimuloError as SimuloError
from simulo.errors import SimuloValueError as SimuloValueError
from simulo.errors import TaskError as TaskError
from simulo.errors import UnreachableError as UnreachableError
from simulo.errors import UrdfError as UrdfError
from simulo.errors import WorkerError as WorkerError
from simulo.platform import callbacks as callbacks
from simulo.platform.app import App as App
from simulo.platform.evaluation import evaluate as evaluate
from simulo.platform.outputs import save_output as save_output
from simulo.platform.policies import PolicyCheckpoint as PolicyCheckpoint
from simulo.platform.runtime import Runtime as Runtime
from simulo.platform.systems import JobType as JobType
from simulo.platform.systems import SystemType as SystemType
from simulo.platform.volumes import Volume as Volume
from simulo.rl.components import ObservationComponent as ObservationComponent
from simulo.rl.components import RewardComponent as RewardComponent
from simulo.rl.components import TerminationCondition as TerminationCondition
from simulo.rl.env import LearningEnv as LearningEnv
from simulo.rl.gym_adapter import GymEnv as GymEnv
from simulo.rl.gym_adapter import GymVectorEnv as GymVectorEnv
from simulo.rl.preview import preview as preview
from simulo.rl.recording import VideoWriter as VideoWriter
from simulo.rl.task import Task as Task
from simulo.rl.training.player import PolicyPlayer as PolicyPlayer
from simulo.rl.training.player import RLPlayer as RLPlayer
from simulo.rl.training.trainer import RLTrainer as RLTrainer
from simulo.sim.actuators import GripperCommand as GripperCommand
from simulo.sim.actuators import GripperState as GripperState
from simulo.sim.actuators import ParallelGripper as ParallelGripper
from simulo.sim.actuators import ParallelGripperActuator as ParallelGripperActuator
from simulo.sim.actuators.surface_gripper import SurfaceGripperActuator as SurfaceGripperActuator
from simulo.sim.controllers import DifferentialIKController as DifferentialIKController
from simulo.sim.controllers import OperationalSpaceController as OperationalSpaceController
from simulo.sim.prop import Prop as Prop
from simulo.sim.robot import Robot as Robot
from simulo.sim.scene import Scene as Scene
from simulo.sim.sensors.camera import Camera as Camera
from simulo.sim.sensors.camera import CameraSpawnConfig as CameraSpawnConfig
from simulo.sim.sensors.contact import ContactSensor as ContactSensor
from simulo.sim.sensors.force_torque import ForceTorqueSensor as ForceTorqueSensor
from simulo.sim.sensors.frame_transformer import FrameTransformer as FrameTransformer
from simulo.sim.sensors.frame_transformer import FrameTransformerTarget as FrameTransformerTarget
from simulo.sim.sensors.imu import IMU as IMU
from simulo.sim.sensors.offset import SensorOffset as SensorOffset
from simulo.sim.sensors.ray_caster import RayCaster as RayCaster
from simulo.sim.sensors.ray_caster import RayPattern as RayPattern
from simulo.sim.simulation import Simulation as Simulation
from simulo.sim.variants import ObjectVariants as ObjectVariants

__version__: str

def __dir__() -> list[str]: ...

__all__ = [  # noqa: RUF022 - in sorted() order, as simulo.__all__ (tests/test_public_stub.py)
    "ActionChannel",
    "ActuatorGainsConfig",
    "App",
    "ArrowMarker",
    "ArticulationConfig",
    "Asset",
    "AssetEntity",
    "AssetError",
    "AssetSource",
    "AxesMarker",
    "Camera",
    "CameraSpawnConfig",
    "CheckpointId",
    "CheckpointRefIsJobError",
    "Collision",
    "CollisionError",
    "Cone",
    "ContactSensor",
    "ContractViolationError",
    "Cuboid",
    "Cylinder",
    "DeformableMaterial",
    "DeformablePhysics",
    "DifferentialIKController",
    "Digest",
    "DistantLight",
    "DomeLight",
    "Entity",
    "EnvIdError",
    "ForceTorqueSensor",
    "FrameTransformer",
    "FrameTransformerTarget",
    "GripperCommand",
    "GripperState",
    "GroundPlane",
    "GymEnv",
    "GymVectorEnv",
    "IMU",
    "ImportResolutionError",
    "JobError",
    "JobFailedError",
    "JobId",
    "JobPublicId",
    "JobType",
    "JointConfig",
    "LearningEnv",
    "Light",
    "LightConfig",
    "LineMarker",
    "Material",
    "MissingDependencyError",
    "MotorGainsConfig",
    "NameNotFoundError",
    "NonFiniteError",
    "NotAttachedError",
    "ObjectVariants",
    "ObservationComponent",
    "ObservationSet",
    "OperationalSpaceController",
    "OrganizationId",
    "Output",
    "OutputKind",
    "OutputPublicId",
    "PackageId",
    "ParallelGripper",
    "ParallelGripperActuator",
    "Physics",
    "Player",
    "PointMarker",
    "PolicyCheckpoint",
    "PolicyInput",
    "PolicyInputSchema",
    "PolicyNetwork",
    "PolicyNetworkProtocol",
    "PolicyPlayer",
    "PolicyPublicId",
    "Pose",
    "PrimitiveShape",
    "ProjectId",
    "Prop",
    "RLPlayer",
    "RLTrainer",
    "RayCaster",
    "RayPattern",
    "RecordConfig",
    "RecordingPublicId",
    "ResourceId",
    "ResourceNotFoundError",
    "ResourceUri",
    "ResumeIncompatibleError",
    "RewardComponent",
    "RewardSet",
    "RigidPhysics",
    "Robot",
    "RoughTerrain",
    "Runtime",
    "Scene",
    "SceneError",
    "SensorOffset",
    "ShapeError",
    "Simulation",
    "SimuloError",
    "SimuloValueError",
    "Sphere",
    "SphereMarker",
    "SubTerrainConfig",
    "SurfaceGripperActuator",
    "SurfaceMaterial",
    "SystemType",
    "TagId",
    "Task",
    "TaskError",
    "TerminationCondition",
    "TerminationSet",
    "Terrain",
    "TerrainConfig",
    "Trainer",
    "Transform",
    "URDFAsset",
    "USDAsset",
    "USDWorld",
    "UnreachableError",
    "UrdfError",
    "VideoWriter",
    "Visual",
    "VisualMarkerBase",
    "Volume",
    "WorkerError",
    "World",
    "__version__",
    "callbacks",
    "checkpoint_ref_is_job_hint",
    "evaluate",
    "parse_checkpoint_ref",
    "parse_job_public_id",
    "parse_output_public_id",
    "parse_recording_public_id",
    "policy_id_for_job",
    "preview",
    "save_output",
]
