"""Actuators: the joint drive laws of every robot (:mod:`simulo.sim.drives` is their framework) and the actuators
added with ``robot.add_actuator`` (their hooks are :mod:`simulo.sim.hooks`).

``simulo.ParallelGripperActuator``, ``simulo.SurfaceGripperActuator``, ``simulo.GripperCommand``,
``simulo.GripperState`` and ``simulo.ParallelGripper`` resolve here.
"""

from typing import Any

from simulo.sim.actuators.engine_motor import EngineMotorDrive
from simulo.sim.actuators.gripper import ParallelGripper, ParallelGripperActuator
from simulo.sim.actuators.gripper_types import GripperCommand, GripperState
from simulo.sim.actuators.ideal_pd import IdealPDDrive

__all__ = ["EngineMotorDrive", "GripperCommand", "GripperState", "IdealPDDrive", "ParallelGripper",
           "ParallelGripperActuator", "SurfaceGripperActuator"]


def __getattr__(name: str) -> Any:
    """``SurfaceGripperActuator`` on first use: its module and the reach search it needs load only then."""
    if name == "SurfaceGripperActuator":
        from simulo.sim.actuators.surface_gripper import SurfaceGripperActuator  # noqa: PLC0415

        return SurfaceGripperActuator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
