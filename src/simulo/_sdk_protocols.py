"""The simulo-interfaces Protocols that simulo's runtime classes inherit, for the type checker only.

The SDK's backend subclasses the Protocols of ``simulo-interfaces`` (``class Robot(RobotProtocol)``), so that mypy
checks every override nominally. simulo's runtime classes do the same through the bases here: under
``TYPE_CHECKING`` each base is a Protocol combining the SDK Protocols of one runtime class, so mypy checks each
member of ``Robot``, ``Scene``, ``Task``, ... against the SDK's declaration (Liskov: parameters, defaults,
return and attribute types). At run time each base is ``object``, so nothing of ``simulo.interfaces`` is
imported and no Protocol member is inherited: a member we lacked would be an ``AttributeError``, never a
Protocol's ``...`` body silently returning ``None``.

Why not inherit at run time too: importing any module of ``simulo.interfaces`` runs its ``__init__``, which
imports the whole platform contract (ONNX bundles included). ``python -X importtime`` measures it at 125-350 ms
on the 2-core development machine (the least of 9-15 runs: 239-353 ms with the cores loaded four- to five-fold,
when ``import simulo`` took 24-67 ms; 125 ms against about 20 ms when quiet), and the flagship ``simulo pick-place``,
which imports no ``simulo.interfaces`` today (issue 14's start-up goal), would pay it on every run. This
module itself costs about 1 ms to import. The structural test
(tests/test_sdk_conformance.py, also the SDK backend's rule: each member's kind and each method's parameter
names, kinds and defaults, in both directions) checks the same classes at run time, and reads from each
class's source that it declares its base here (removing one fails a test, not only mypy).

Usage (one base per runtime class, listed in :data:`BASES`)::

    from simulo._sdk_protocols import RobotBase

    class Robot(RobotBase): ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

#: Base name -> the SDK Protocols it combines, as ``"authoring.Name"`` / ``"runtime.Name"`` (what the tests read).
BASES: dict[str, tuple[str, ...]] = {
    "ActuatorBase": ("authoring.ActuatorProtocol",),
    "CameraBase": ("authoring.CameraProtocol",),
    "RobotBase": ("authoring.RobotProtocol", "authoring.RobotPropertiesProtocol",
                  "authoring.ExternalForceProtocol"),
    "RobotStateBase": ("authoring.RobotStateProtocol",),
    "PropBase": ("authoring.PropProtocol", "authoring.PropPropertiesProtocol", "authoring.ExternalForceProtocol"),
    "PropStateBase": ("authoring.PropStateProtocol",),
    "VariantPropBase": ("authoring.VariantPropProtocol",),
    "SceneBase": ("authoring.SceneVariantsProtocol", "authoring.SceneGravityProtocol"),
    "SceneGroupBase": ("authoring.SceneGroupProtocol",),
    "TaskBase": ("runtime.TaskProtocol",),
    "LearningEnvBase": ("runtime.LearningEnvProtocol",),
    "TrainerBase": ("runtime.TrainerProtocol",),
    "PlayerBase": ("runtime.PlayerProtocol",),
    "PolicyNetworkBase": ("runtime.PolicyNetworkProtocol",),
    "ObservationComponentBase": ("runtime.ObservationComponentProtocol",),
    "RewardComponentBase": ("runtime.RewardComponentProtocol",),
    "TerminationConditionBase": ("runtime.TerminationConditionProtocol",),
}

if TYPE_CHECKING:
    from simulo.interfaces.authoring import (
        ActuatorProtocol,
        CameraProtocol,
        ExternalForceProtocol,
        PropPropertiesProtocol,
        PropProtocol,
        PropStateProtocol,
        RobotPropertiesProtocol,
        RobotProtocol,
        RobotStateProtocol,
        SceneGravityProtocol,
        SceneGroupProtocol,
        SceneVariantsProtocol,
        VariantPropProtocol,
    )
    from simulo.interfaces.runtime import (
        LearningEnvProtocol,
        ObservationComponentProtocol,
        PlayerProtocol,
        PolicyNetworkProtocol,
        RewardComponentProtocol,
        TaskProtocol,
        TerminationConditionProtocol,
        TrainerProtocol,
    )

    class ActuatorBase(ActuatorProtocol, Protocol):
        """The grippers' SDK Protocol (``ParallelGripper``, ``ParallelGripperActuator``, ``SurfaceGripperActuator``)."""

    class CameraBase(CameraProtocol, Protocol):
        """``simulo.Camera``'s SDK Protocol (with ``SensorProtocol``)."""

    class RobotBase(RobotProtocol, RobotPropertiesProtocol, ExternalForceProtocol, Protocol):
        """``simulo.Robot``'s SDK Protocols."""

    class RobotStateBase(RobotStateProtocol, Protocol):
        """``robot.state``'s SDK Protocol."""

    class PropBase(PropProtocol, PropPropertiesProtocol, ExternalForceProtocol, Protocol):
        """``simulo.Prop``'s SDK Protocols."""

    class PropStateBase(PropStateProtocol, Protocol):
        """``prop.state``'s SDK Protocol."""

    class VariantPropBase(VariantPropProtocol, Protocol):
        """A prop with per-copy variants: its SDK Protocol."""

    class SceneBase(SceneVariantsProtocol, SceneGravityProtocol, Protocol):
        """``simulo.Scene``'s SDK Protocols (``SceneVariantsProtocol`` extends ``SceneProtocol``)."""

    class SceneGroupBase(SceneGroupProtocol, Protocol):
        """``scene.group(...)``'s SDK Protocol."""

    class TaskBase(TaskProtocol, Protocol):
        """``simulo.Task``'s SDK Protocol (not ``EngineTaskProtocol``: Task has no ``engine_setup`` yet)."""

    class LearningEnvBase(LearningEnvProtocol, Protocol):
        """``simulo.LearningEnv``'s SDK Protocol."""

    class TrainerBase(TrainerProtocol, Protocol):
        """``simulo.RLTrainer``'s SDK Protocol."""

    class PlayerBase(PlayerProtocol, Protocol):
        """``simulo.RLPlayer``'s SDK Protocol."""

    class PolicyNetworkBase(PolicyNetworkProtocol, Protocol):
        """``simulo.PolicyPlayer``'s SDK Protocol (what ``PolicyCheckpoint.load`` returns)."""

    class ObservationComponentBase(ObservationComponentProtocol, Protocol):
        """``simulo.ObservationComponent``'s SDK Protocol."""

    class RewardComponentBase(RewardComponentProtocol, Protocol):
        """``simulo.RewardComponent``'s SDK Protocol."""

    class TerminationConditionBase(TerminationConditionProtocol, Protocol):
        """``simulo.TerminationCondition``'s SDK Protocol."""

else:
    ActuatorBase = CameraBase = RobotBase = RobotStateBase = PropBase = PropStateBase = VariantPropBase = object
    SceneBase = SceneGroupBase = TaskBase = LearningEnvBase = TrainerBase = PlayerBase = PolicyNetworkBase = object
    ObservationComponentBase = RewardComponentBase = TerminationConditionBase = object

__all__ = list(BASES)
