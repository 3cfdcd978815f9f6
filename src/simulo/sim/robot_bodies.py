"""Body poses and velocities of an attached robot, read from the engine on every call (a new array each time).

The root body (index 0) is answered from the robot's state buffers; every other body from the engine batch's
``read_bodies``. The base-frame forms are computed from the world-frame ones on each call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simulo.math.batched import quat_conjugate, quat_mul, quat_rotate_inverse

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData


def body_pose(data: RobotData, body: int) -> np.ndarray:
    """World pose (num_envs, 7) of a body's frame, read now (a new array), through a reader made once per body:
    the root's copies the base pose buffer, any other body's is the engine batch's ``body_pose_reader``."""
    read = data.pose_readers.get(body)
    if read is None:
        read = data.pose_readers[body] = (lambda: data.pose.copy()) if body == 0 else data.batch.body_pose_reader(body)
    return read()


def body_velocity(data: RobotData, body: int) -> tuple[np.ndarray, np.ndarray]:
    """World pose (num_envs, 7) and velocity (num_envs, 6) of a body's frame origin, read now."""
    if body == 0:
        return data.pose.copy(), np.concatenate([data.lin_vel, data.ang_vel], axis=1)
    poses, vels = data.batch.read_bodies([body], range(data.num_envs), velocity=True)
    assert vels is not None
    return poses[:, 0], vels[:, 0]


def body_pose_in_base(data: RobotData, body: int) -> tuple[np.ndarray, np.ndarray]:
    """Position (num_envs, 3) and quaternion (num_envs, 4) of a body's frame relative to the base frame."""
    world = body_pose(data, body)
    base = data.pose
    base_q = base[:, 3:]
    pos = quat_rotate_inverse(base_q, world[:, :3] - base[:, :3])
    return pos, quat_mul(quat_conjugate(base_q), world[:, 3:])


def body_velocity_in_base(data: RobotData, body: int) -> tuple[np.ndarray, np.ndarray]:
    """Linear and angular velocity (num_envs, 3) each of a body relative to the base, in base axes."""
    pose, vel = body_velocity(data, body)
    base, lin_vel, ang_vel = data.pose, data.lin_vel, data.ang_vel
    lin_rel = vel[:, :3] - lin_vel - np.cross(ang_vel, pose[:, :3] - base[:, :3])
    ang_rel = vel[:, 3:] - ang_vel
    base_q = base[:, 3:]
    return quat_rotate_inverse(base_q, lin_rel), quat_rotate_inverse(base_q, ang_rel)
