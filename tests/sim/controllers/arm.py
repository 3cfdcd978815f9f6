"""Helpers of the controller tests: the catalog pick arm's home posture, reachable targets, tracking loops.

The pick arm (5 arm joints + 2 fingers, body ``tcp``) stands in for the Franka Panda, which the URDF
checker does not accept yet. Targets are forward kinematics of known postures, so every one is reachable
even with five joints (a full pose has six degrees of freedom).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import simulo
from simulo.math.batched import quat_conjugate, quat_mul
from simulo.sim.controllers._chain import axis_angle_from_quat

ARM_JOINTS = "base_yaw|shoulder|elbow|wrist_pitch|wrist_roll"
EE = "tcp"
HOME = np.array([0.3, 0.5, -0.7, 0.4, 0.2, 0.01, 0.02])
#: per-environment changes of the five arm joints (rad) whose tcp poses are the targets
OFFSETS = np.array([[0.25, 0.2, -0.3, 0.2, 0.3],
                    [-0.3, -0.2, 0.25, -0.15, -0.2],
                    [0.1, 0.3, 0.2, -0.3, 0.1],
                    [-0.15, 0.1, -0.2, 0.3, -0.3]])
TOLERANCE = 0.005  # m


def home(n: int) -> np.ndarray:
    """The home posture (n, 7)."""
    return np.tile(HOME, (n, 1))


def fk(robot: simulo.Robot, q: np.ndarray, frame: str = "base") -> tuple[np.ndarray, np.ndarray]:
    """tcp position (n, 3) and quaternion (n, 4) at postures ``q`` (the robot is left at home)."""
    robot.set_joint_state(q)
    if frame == "base":
        pos, quat = (np.array(a) for a in robot.get_body_pose_in_base_frame(EE))
    else:
        pose = np.array(robot.get_body_pose(EE))
        pos, quat = pose[:, :3], pose[:, 3:]
    robot.set_joint_state(home(q.shape[0]))
    return pos, quat


def targets(robot: simulo.Robot, frame: str = "base") -> tuple[np.ndarray, np.ndarray]:
    """Reachable tcp targets, one per environment (the first ``num_envs`` rows of OFFSETS)."""
    n = np.asarray(robot.get_joint_state()[0]).shape[0]
    q = home(n)
    q[:, :5] += OFFSETS[:n]
    return fk(robot, q, frame)


def angle_error(quat: np.ndarray, quat_des: np.ndarray) -> np.ndarray:
    """Rotation angles (n,) in rad between orientations."""
    return np.linalg.norm(axis_angle_from_quat(quat_mul(quat_des, quat_conjugate(quat))), axis=1)


def track(sim: simulo.Simulation, robot: simulo.Robot, control: Callable[[int], Any], pos_des: np.ndarray,
          steps: int, frame: str = "base") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run ``control(step)`` then one physics step, ``steps`` times.

    Returns:
        The first step (1-based) at which each environment's tcp was within TOLERANCE of ``pos_des``
        (-1 if never), and the final tcp positions and quaternions.
    """
    reached = np.full(pos_des.shape[0], -1)
    pos = quat = np.zeros(0)
    for step in range(steps):
        control(step)
        sim.step()
        pos, quat = fk_now(robot, frame)
        close = np.linalg.norm(pos - pos_des, axis=1) < TOLERANCE
        reached[(reached < 0) & close] = step + 1
    return reached, pos, quat


def fk_now(robot: simulo.Robot, frame: str = "base") -> tuple[np.ndarray, np.ndarray]:
    """The tcp's current position and quaternion."""
    if frame == "base":
        pos, quat = robot.get_body_pose_in_base_frame(EE)
        return np.array(pos), np.array(quat)
    pose = np.array(robot.get_body_pose(EE))
    return pose[:, :3], pose[:, 3:]
