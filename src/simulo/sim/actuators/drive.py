"""Joint drive laws: how a robot's buffered targets become engine commands each physics step.

Every joint of a robot is driven by exactly one drive law (Isaac Lab's actuator groups):

* :class:`~simulo.sim.actuators.engine_motor.EngineMotorDrive`, the default: the engine's own motor
  (:class:`~simulo.MotorGainsConfig`; on PyBullet ``POSITION_CONTROL``/``VELOCITY_CONTROL`` with solver gains);
* :class:`~simulo.sim.actuators.ideal_pd.IdealPDDrive` for joints in an ``actuator_gains`` group with an
  :class:`~simulo.ActuatorGainsConfig`: a PD torque solved implicitly every physics step.

:func:`build_drives` groups a robot's joints by law. A drive's ``compute`` is a runtime hook: the robot
calls it when its commands must be chosen again, right before the engine steps, and the drive returns its
:class:`JointCommands` (Isaac Lab's ``ArticulationActions``), which the robot sends with the others'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import numpy as np

from simulo.authoring.config import ActuatorGainsConfig, MotorGainsConfig
from simulo.sim.names import match_names

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData

#: Force limit of the engine motor on a joint whose model gives no effort limit, N or N·m.
UNLIMITED_MOTOR_FORCE = 1000.0

#: Solver gains of the engine motor on joints without a ``MotorGainsConfig`` (PyBullet's defaults).
DEFAULT_POSITION_GAIN = 0.1
DEFAULT_VELOCITY_GAIN = 1.0


class JointDrive(Protocol):
    """One drive law over some joint columns of one robot."""

    @property
    def cols(self) -> np.ndarray:
        """The joint columns this drive drives."""
        ...

    @property
    def explicit(self) -> bool:
        """Whether the law computes torques itself every physics step (so it runs even without new targets)."""
        ...

    def configure(self, data: RobotData) -> None:
        """Write the drive's engine-motor tables and limits into freshly made robot data (runtime hook)."""
        ...

    def compute(self, data: RobotData, inputs: DriveInputs) -> JointCommands:
        """The commands of the drive's columns for the coming physics step, from the targets (runtime hook)."""
        ...


def build_drives(joint_names: list[str], effort_limit: np.ndarray,
                 actuator_gains: Mapping[str, ActuatorGainsConfig | MotorGainsConfig] | None) -> list[JointDrive]:
    """The drive laws of a robot: one :class:`EngineMotorDrive` and at most one :class:`IdealPDDrive`.

    Args:
        joint_names: Joint names in column order.
        effort_limit: Effort limit per joint (``inf``: none).
        actuator_gains: Groups ``regex or "all_joints" -> config``; later groups override earlier ones.

    Returns:
        The drives, engine motor first; together they cover every joint once.

    Raises:
        NameNotFoundError: A group's pattern matches no joint.
    """
    from simulo.sim.actuators.engine_motor import EngineMotorDrive
    from simulo.sim.actuators.ideal_pd import IdealPDDrive

    j_count = len(joint_names)
    is_pd = np.zeros(j_count, dtype=bool)
    kp = np.zeros(j_count)
    kd = np.zeros(j_count)
    pos_gain = np.full(j_count, DEFAULT_POSITION_GAIN)
    vel_gain = np.full(j_count, DEFAULT_VELOCITY_GAIN)
    # A joint without an effort limit (e.g. continuous) is unlimited for raw efforts; its engine motor, which
    # needs a finite force, gets UNLIMITED_MOTOR_FORCE.
    force = np.where(np.isfinite(effort_limit), effort_limit, UNLIMITED_MOTOR_FORCE)
    for key, gains in (actuator_gains or {}).items():
        cols = list(range(j_count)) if key == "all_joints" else match_names(key, joint_names, "joint")
        for c in cols:
            if isinstance(gains, ActuatorGainsConfig):
                is_pd[c], kp[c], kd[c] = True, gains.stiffness, gains.damping
            else:
                is_pd[c], pos_gain[c], vel_gain[c] = False, gains.position_gain, gains.velocity_gain
                force[c] = gains.max_force if gains.max_force is not None else min(effort_limit[c],
                                                                                   UNLIMITED_MOTOR_FORCE)
    drives: list[JointDrive] = []
    motor = np.flatnonzero(~is_pd)
    if motor.size:
        drives.append(EngineMotorDrive(motor, j_count, pos_gain[motor], vel_gain[motor], force[motor]))
    pd = np.flatnonzero(is_pd)
    if pd.size:
        drives.append(IdealPDDrive(pd, kp[pd], kd[pd]))
    return drives


class Saturation:
    """``np.clip(values, -limit, limit, out=out)`` for efforts and their limits (``limit`` >= 0, per column).

    It calls ``ndarray.clip``, which ends in the same ``clip`` ufunc as np.clip, so the bits are np.clip's (signed
    zeros included: -0.0 becomes 0.0 at a zero limit), without np.clip's outer Python layers.

    Args:
        limit: The effort limits (``inf``: none); kept, not copied.
    """

    __slots__ = ("_low", "limit")

    def __init__(self, limit: np.ndarray) -> None:
        self.limit = limit
        self._low = -limit

    def __call__(self, values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The saturated ``values`` (into ``out`` when given)."""
        # The fastest public call (numpy 2.4, timeit, a (1, 7) array): ndarray.clip 0.88 us, against 1.2 us for
        # np.maximum then np.minimum (which would keep -0.0) and 1.8 us for np.clip; the private ufunc it ends in,
        # numpy._core.umath.clip, takes 0.65 us.
        result: np.ndarray = values.clip(self._low, self.limit, out=out)
        return result


class JointCommands:
    """The commands one drive chooses for its joints for the coming physics step.

    Where a joint runs the engine's position or velocity motor, the engine reads the target itself (the
    robot's position target, its velocity target); where it is torque-driven, ``torque`` is what it gets.

    Attributes:
        index: The drive's joint columns as an index of the robot's (num_envs, num_joints) arrays (a slice for
            one ascending run of columns).
        mode: Each joint's :class:`~simulo.engine.base.ControlMode` (num_envs, len(cols)), int8.
        torque: The explicit torque of each joint (num_envs, len(cols)); 0 where it is not torque-driven.
    """

    __slots__ = ("index", "mode", "torque")

    def __init__(self, index: slice | np.ndarray, mode: np.ndarray, torque: np.ndarray) -> None:
        self.index = index
        self.mode = mode
        self.torque = torque


class DriveInputs:
    """What every drive's ``compute`` reads in one flush, besides the robot data.

    Attributes:
        pos_set / vel_set / eff_set: Where a position, velocity or effort target is set (num_envs, num_joints).
        velocity: Velocity targets with 0 where unset.
        torques: Whether any joint may be torque-driven this flush (an explicit drive or an effort target).
    """

    __slots__ = ("eff_set", "pos_set", "torques", "vel_set", "velocity")

    def __init__(self, pos_set: np.ndarray, vel_set: np.ndarray, eff_set: np.ndarray, velocity: np.ndarray,
                 torques: bool) -> None:
        self.pos_set = pos_set
        self.vel_set = vel_set
        self.eff_set = eff_set
        self.velocity = velocity
        self.torques = torques
