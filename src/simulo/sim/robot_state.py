"""``robot.state``: the live state members of a :class:`~simulo.sim.robot.Robot`.

``pose``, ``linear_velocity``, ``angular_velocity``, ``joint_positions``, ``joint_velocities`` and
``joint_efforts`` each return the same object on every read (``state.pose is state.pose``), with current
values after a step or a teleport; one held across steps stays current (a live buffer).

* numpy: a read-only view of the robot's own buffer. Writing into it raises numpy's ``ValueError:
  assignment destination is read-only``, so it cannot change what the simulation reports or does.
* torch (no read-only tensors): a tensor over a mirror of the buffer, rewritten from the runtime's buffer on
  every read, step and teleport; a stray write into it never reaches the simulation.

Use ``set_joint_state`` / ``set_root_pose`` to change the state, and ``.copy()`` / ``.clone()`` for an
array of your own. Cost: a step refreshes nothing that nobody holds or reads; the first read after a step
refreshes the member's group (joints or base) from the engine (:mod:`simulo.sim.robot_data`,
:mod:`simulo.sim.published`).

The two base-frame members are computed on each read (a new array either way).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulo._sdk_protocols import RobotStateBase
from simulo.math.batched import quat_rotate_inverse
from simulo.sim.robot_data import RobotData


class RobotState(RobotStateBase):
    """``robot.state``: six live buffers and two base-frame reads. The accessor itself is always available.

    Args:
        require: The robot's data for a member name; raises ``NotAttachedError`` naming the member.
    """

    def __init__(self, require: Callable[[str], RobotData]) -> None:
        self._require = require
        #: the attached robot's data (None while detached: every member then asks ``require``, which raises)
        self._data: RobotData | None = None

    def bind(self, data: RobotData | None) -> None:
        """Read from ``data`` from now on (the robot calls this when a simulation attaches or detaches it)."""
        self._data = data

    @property
    def pose(self) -> Any:
        """Base pose in the world frame (num_envs, 7): ``[x, y, z, qw, qx, qy, qz]``. Read-only live view."""
        return (self._data or self._require("state.pose")).member("pose")

    @property
    def linear_velocity(self) -> Any:
        """Base linear velocity in the world frame (num_envs, 3), m/s. Read-only live view."""
        return (self._data or self._require("state.linear_velocity")).member("lin_vel")

    @property
    def angular_velocity(self) -> Any:
        """Base angular velocity in the world frame (num_envs, 3), rad/s. Read-only live view."""
        return (self._data or self._require("state.angular_velocity")).member("ang_vel")

    @property
    def linear_velocity_in_base_frame(self) -> Any:
        """Base linear velocity in the base frame (num_envs, 3); a new tensor on every read."""
        data = self._data or self._require("state.linear_velocity_in_base_frame")
        return data.tensors.out(quat_rotate_inverse(data.pose[:, 3:], data.lin_vel))

    @property
    def angular_velocity_in_base_frame(self) -> Any:
        """Base angular velocity in the base frame (num_envs, 3); a new tensor on every read."""
        data = self._data or self._require("state.angular_velocity_in_base_frame")
        return data.tensors.out(quat_rotate_inverse(data.pose[:, 3:], data.ang_vel))

    @property
    def joint_positions(self) -> Any:
        """Joint positions (num_envs, num_joints), rad or m. Read-only live view."""
        return (self._data or self._require("state.joint_positions")).member("q")

    @property
    def joint_velocities(self) -> Any:
        """Joint velocities (num_envs, num_joints), rad/s or m/s. Read-only live view."""
        return (self._data or self._require("state.joint_velocities")).member("qd")

    @property
    def joint_efforts(self) -> Any:
        """Efforts the drives applied in the last step (num_envs, num_joints), N·m or N. Read-only live view."""
        return (self._data or self._require("state.joint_efforts")).member("effort")
