"""``robot.state``: the live state members of a :class:`~simulo.sim.robot.Robot`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulo.math.batched import quat_rotate_inverse
from simulo.sim.robot_data import RobotData


class RobotState:
    """``robot.state``: the eight live state members. The accessor itself is always available.

    Args:
        require: The robot's data for a member name; raises ``NotAttachedError`` naming the member.
    """

    def __init__(self, require: Callable[[str], RobotData]) -> None:
        self._require = require

    @property
    def pose(self) -> Any:
        """Base pose in the world frame (num_envs, 7): ``[x, y, z, qw, qx, qy, qz]``. Live buffer."""
        data = self._require("state.pose")
        return data.tensors.out(data.pose)

    @property
    def linear_velocity(self) -> Any:
        """Base linear velocity in the world frame (num_envs, 3), m/s. Live buffer."""
        data = self._require("state.linear_velocity")
        return data.tensors.out(data.lin_vel)

    @property
    def angular_velocity(self) -> Any:
        """Base angular velocity in the world frame (num_envs, 3), rad/s. Live buffer."""
        data = self._require("state.angular_velocity")
        return data.tensors.out(data.ang_vel)

    @property
    def linear_velocity_in_base_frame(self) -> Any:
        """Base linear velocity in the base frame (num_envs, 3); a new tensor on every read."""
        data = self._require("state.linear_velocity_in_base_frame")
        return data.tensors.out(quat_rotate_inverse(data.pose[:, 3:], data.lin_vel))

    @property
    def angular_velocity_in_base_frame(self) -> Any:
        """Base angular velocity in the base frame (num_envs, 3); a new tensor on every read."""
        data = self._require("state.angular_velocity_in_base_frame")
        return data.tensors.out(quat_rotate_inverse(data.pose[:, 3:], data.ang_vel))

    @property
    def joint_positions(self) -> Any:
        """Joint positions (num_envs, num_joints), rad or m. Live buffer."""
        data = self._require("state.joint_positions")
        return data.tensors.out(data.q)

    @property
    def joint_velocities(self) -> Any:
        """Joint velocities (num_envs, num_joints), rad/s or m/s. Live buffer."""
        data = self._require("state.joint_velocities")
        return data.tensors.out(data.qd)

    @property
    def joint_efforts(self) -> Any:
        """Efforts the drives applied in the last step (num_envs, num_joints), N·m or N. Live buffer."""
        data = self._require("state.joint_efforts")
        return data.tensors.out(data.effort)
