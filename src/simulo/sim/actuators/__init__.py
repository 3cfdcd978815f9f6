"""Actuators: the joint drive laws of every robot and the actuators added with ``robot.add_actuator``.

``simulo.ParallelGripper`` resolves here.
"""

from simulo.sim.actuators.drive import JointDrive, build_drives
from simulo.sim.actuators.engine_motor import EngineMotorDrive
from simulo.sim.actuators.gripper import ParallelGripper
from simulo.sim.actuators.ideal_pd import IdealPDDrive

__all__ = ["EngineMotorDrive", "IdealPDDrive", "JointDrive", "ParallelGripper", "build_drives"]
