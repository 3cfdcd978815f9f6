"""The joint-drive framework: what a drive law is, what it reads, and the commands it returns.

Every joint of a robot is driven by exactly one drive law (Isaac Lab's actuator groups). The laws themselves are
add-ons in :mod:`simulo.sim.actuators` (the engine's own motor, an ideal PD law); the robot's data
(:class:`~simulo.sim.robot_data.RobotData`) holds them as :class:`JointDrive` and knows nothing else of them.
A drive's ``compute`` is a runtime hook: the robot calls it when its commands must be chosen again, right before
the engine steps, and the drive returns its :class:`JointCommands` (Isaac Lab's ``ArticulationActions``), which
the robot sends with the others'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from simulo.engine.base import ArticulationBatch


class DriveData(Protocol):
    """What a drive law reads and writes of its robot's data (:class:`~simulo.sim.robot_data.RobotData` is one).

    Every array is (num_envs, num_joints) in the robot's joint order, except ``effort_limit`` (num_joints,).
    """

    @property
    def batch(self) -> ArticulationBatch:
        """The engine's articulation batch (mass matrices)."""
        ...

    @property
    def physics_dt(self) -> float:
        """The engine's time step, s."""
        ...

    @property
    def effort_limit(self) -> np.ndarray:
        """Effort limit per joint (``inf``: none)."""
        ...

    @property
    def q(self) -> np.ndarray:
        """Joint positions."""
        ...

    @property
    def qd(self) -> np.ndarray:
        """Joint velocities."""
        ...

    @property
    def pos_t(self) -> np.ndarray:
        """Position targets (NaN: none)."""
        ...

    @property
    def eff_t(self) -> np.ndarray:
        """Effort targets (NaN: none)."""
        ...

    @property
    def motor_pos_gain(self) -> np.ndarray:
        """Solver position gains of the engine motor (written in place)."""
        ...

    @property
    def motor_vel_gain(self) -> np.ndarray:
        """Solver velocity gains of the engine motor (written in place)."""
        ...

    @property
    def motor_force(self) -> np.ndarray:
        """Force limits of the engine motor (written in place)."""
        ...


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

    def configure(self, data: DriveData) -> None:
        """Write the drive's engine-motor tables and limits into freshly made robot data (runtime hook)."""
        ...

    def compute(self, data: DriveData, inputs: DriveInputs) -> JointCommands:
        """The commands of the drive's columns for the coming physics step, from the targets (runtime hook)."""
        ...


@runtime_checkable
class StiffnessDrive(JointDrive, Protocol):
    """A drive law with a stiffness and a damping per joint, which ``robot.set_joint_gains`` sets (the ideal PD
    law; the engine motor's solver gains are not a stiffness)."""

    def set_gains(self, env_ids: np.ndarray, stiffness: np.ndarray, damping: np.ndarray, num_envs: int) -> None:
        """Set per-environment gains (len(env_ids), len(cols)); the other environments keep theirs."""
        ...


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
