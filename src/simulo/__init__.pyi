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
from simulo.authoring.pose import Pose as Pose
from simulo.authoring.pose import Transform as Transform
from simulo.authoring.shapes import Cuboid as Cuboid
from simulo.authoring.shapes import Cylinder as Cylinder
from simulo.authoring.shapes import RigidPhysics as RigidPhysics
from simulo.authoring.shapes import Sphere as Sphere
from simulo.authoring.world import Light as Light
from simulo.authoring.world import Terrain as Terrain
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
from simulo.platform.app import App as App
from simulo.platform.evaluation import evaluate as evaluate
from simulo.platform.policies import PolicyCheckpoint as PolicyCheckpoint
from simulo.platform.runtime import Runtime as Runtime
from simulo.platform.systems import JobType as JobType
from simulo.platform.systems import SystemType as SystemType
from simulo.rl.env import LearningEnv as LearningEnv
from simulo.rl.gym_adapter import GymEnv as GymEnv
from simulo.rl.gym_adapter import GymVectorEnv as GymVectorEnv
from simulo.rl.preview import preview as preview
from simulo.rl.recording import VideoWriter as VideoWriter
from simulo.rl.task import Task as Task
from simulo.rl.training.config import PPOConfig as PPOConfig
from simulo.rl.training.player import PolicyPlayer as PolicyPlayer
from simulo.rl.training.player import RLPlayer as RLPlayer
from simulo.rl.training.trainer import RLTrainer as RLTrainer
from simulo.sim.actuators import ParallelGripper as ParallelGripper
from simulo.sim.controllers import DifferentialIKController as DifferentialIKController
from simulo.sim.controllers import OperationalSpaceController as OperationalSpaceController
from simulo.sim.prop import Prop as Prop
from simulo.sim.robot import Robot as Robot
from simulo.sim.scene import Scene as Scene
from simulo.sim.sensors import ContactSensor as ContactSensor
from simulo.sim.simulation import Simulation as Simulation

__version__: str

def __dir__() -> list[str]: ...

__all__ = [
    "ActuatorGainsConfig",
    "App",
    "ArticulationConfig",
    "Asset",
    "AssetError",
    "CollisionError",
    "ContactSensor",
    "Cuboid",
    "Cylinder",
    "DifferentialIKController",
    "EnvIdError",
    "GymEnv",
    "GymVectorEnv",
    "JobError",
    "JobType",
    "JointConfig",
    "LearningEnv",
    "Light",
    "MissingDependencyError",
    "MotorGainsConfig",
    "NameNotFoundError",
    "NonFiniteError",
    "NotAttachedError",
    "OperationalSpaceController",
    "PPOConfig",
    "ParallelGripper",
    "PolicyCheckpoint",
    "PolicyPlayer",
    "Pose",
    "Prop",
    "RLPlayer",
    "RLTrainer",
    "RigidPhysics",
    "Robot",
    "Runtime",
    "Scene",
    "SceneError",
    "ShapeError",
    "Simulation",
    "SimuloError",
    "SimuloValueError",
    "Sphere",
    "SystemType",
    "Task",
    "TaskError",
    "Terrain",
    "Transform",
    "UnreachableError",
    "UrdfError",
    "VideoWriter",
    "WorkerError",
    "__version__",
    "evaluate",
    "preview",
]
