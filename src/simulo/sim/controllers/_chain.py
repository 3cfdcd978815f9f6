"""What both task-space controllers share: the controlled chain of a robot, and their input checks.

:class:`ControlledChain` binds a :class:`~simulo.sim.robot.Robot`, one end-effector body and a set of
joints, resolved by name once the robot is attached. It reads the end-effector pose, the Jacobian of
its frame origin and the joint state through the Robot contract, all in one chosen frame:

* ``"base"``: the robot's base (root link) frame, as the SDK samples give their targets;
* ``"world"``: the simulation's world frame, each environment's origin included.

Orientation maths is w-first (``[qw, qx, qy, qz]``) on :mod:`simulo.math.batched`; the axis-angle
conversions below are the two it lacks.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from simulo.errors import NameNotFoundError, ShapeError, SimuloValueError
from simulo.math.batched import normalize_quat, quat_conjugate, quat_mul, quat_rotate_inverse
from simulo.sim.robot import Robot
from simulo.sim.tensors import Tensors, to_numpy

Frame = Literal["base", "world"]
FRAMES: tuple[str, ...] = ("base", "world")


def check_choice(value: Any, choices: tuple[str, ...], name: str) -> None:
    """Raise unless ``value`` is one of ``choices``.

    Raises:
        SimuloValueError: naming the value and the choices.
    """
    if not isinstance(value, str) or value not in choices:
        raise SimuloValueError(f"{name} must be one of {list(choices)}, got {value!r}")


def positive(value: Any, name: str, allow_zero: bool = False) -> float:
    """``value`` as a float, checked finite and > 0 (>= 0 with ``allow_zero``).

    Raises:
        SimuloValueError: ``value`` is not such a number.
    """
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value) \
        and (value >= 0 if allow_zero else value > 0)
    if not ok:
        raise SimuloValueError(f"{name} must be a finite number {'>=' if allow_zero else '>'} 0, got {value!r}")
    return float(value)


def axis_angle_from_quat(q: np.ndarray) -> np.ndarray:
    """Rotation vectors (..., 3), angle in (-pi, pi], of unit quaternions (..., 4); the shorter way round."""
    q = np.where(q[..., :1] < 0, -q, q)
    sin_half = np.linalg.norm(q[..., 1:], axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(sin_half, q[..., :1])
    # angle / sin(angle / 2) tends to 2 / w as the angle goes to zero
    scale = np.where(sin_half > 1e-9, angle / np.maximum(sin_half, 1e-12), 2.0 / q[..., :1])
    return q[..., 1:] * scale


def quat_from_axis_angle(v: np.ndarray) -> np.ndarray:
    """Unit quaternions (..., 4) of rotation vectors ``v`` (..., 3) (axis times angle in rad)."""
    angle = np.linalg.norm(v, axis=-1, keepdims=True)
    half = 0.5 * angle
    # sin(half) / angle tends to 1/2 as the angle goes to zero
    scale = np.where(angle > 1e-9, np.sin(half) / np.maximum(angle, 1e-12), 0.5)
    return np.concatenate([np.cos(half), v * scale], axis=-1)


def pose_error(pos: np.ndarray, quat: np.ndarray, pos_des: np.ndarray, quat_des: np.ndarray) -> np.ndarray:
    """Errors (n, 6) ``[dp, rotation vector]`` that take poses (pos, quat) onto (pos_des, quat_des).

    The rotation vector is that of ``quat_des * conj(quat)``, in the same axes as the positions, which
    is what the angular rows of a Jacobian in those axes map joint velocities onto.
    """
    return np.concatenate([pos_des - pos, axis_angle_from_quat(quat_mul(quat_des, quat_conjugate(quat)))], axis=1)


class ControlledChain:
    """A robot's end effector and the joints that move it, read in one frame, batched over environments.

    Args:
        robot: The robot; it need not be attached yet. Names resolve on first use once it is.
        end_effector: Exact name of the body the controller drives.
        joints: Joint name or regex (full match) of the joints the controller may move.
        frame: ``"base"`` or ``"world"``: the frame of targets, poses and Jacobians.

    Raises:
        SimuloValueError: An argument has the wrong type or value.
    """

    def __init__(self, robot: Robot, end_effector: str, joints: str, frame: Frame) -> None:
        if not isinstance(robot, Robot):
            raise SimuloValueError(f"robot must be a simulo.Robot, got {type(robot).__name__}: {robot!r}")
        if not isinstance(end_effector, str) or not end_effector:
            raise SimuloValueError(f"end_effector must be a body name, got {end_effector!r}")
        if not isinstance(joints, str) or not joints:
            raise SimuloValueError(f"joints must be a joint name or regex, got {joints!r}")
        check_choice(frame, FRAMES, "frame")
        self.robot = robot
        self.end_effector = end_effector
        self.joints = joints
        self.frame: Frame = frame
        self._body: int | None = None
        self._joint_ids: list[int] | None = None

    def resolve(self) -> None:
        """Look the names up (once); the robot must be attached.

        Raises:
            NotAttachedError: The robot is not attached yet.
            NameNotFoundError: No body is called ``end_effector`` or no joint matches ``joints``.
        """
        if self._joint_ids is not None:
            return
        bodies = self.robot.get_body_names()  # raises NotAttachedError before attachment
        joint_ids = self.robot.find_joints(self.joints)
        if self.end_effector not in bodies:
            raise NameNotFoundError(f"end_effector {self.end_effector!r} is not a body of robot "
                                    f"{self.robot.name!r}; available bodies: {bodies}")
        self._body = bodies.index(self.end_effector)
        self._joint_ids = joint_ids

    @property
    def joint_ids(self) -> list[int]:
        """Robot joint indices the controller moves, in the robot's column order."""
        self.resolve()
        assert self._joint_ids is not None
        return list(self._joint_ids)

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return self.robot.data.num_envs

    @property
    def tensors(self) -> Tensors:
        """The robot's tensor converter (the library its simulation was built with)."""
        return self.robot.data.tensors

    def env_ids(self, env_ids: Any) -> np.ndarray:
        """Validated environment indices; ``None`` is every environment."""
        self.resolve()
        return self.tensors.env_ids(env_ids, self.robot.data.num_envs)

    def ee_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """End-effector ``(position (num_envs, 3), quaternion (num_envs, 4))`` in the chain's frame."""
        self.resolve()
        if self.frame == "base":
            pos, quat = self.robot.get_body_pose_in_base_frame(self.end_effector)
            return to_numpy(pos, "position").astype(float), to_numpy(quat, "quaternion").astype(float)
        pose = to_numpy(self.robot.get_body_pose(self.end_effector), "pose").astype(float)
        return pose[:, :3], pose[:, 3:]

    def jacobian(self) -> np.ndarray:
        """Jacobian (num_envs, 6, len(joint_ids)) of the end effector's frame origin, in the chain's axes."""
        self.resolve()
        jac = to_numpy(self.robot.get_jacobians([self._body or 0]), "jacobian")[:, 0][:, :, self.joint_ids]
        jac = np.array(jac, dtype=float)
        if self.frame == "base":
            base_q = to_numpy(self.robot.get_root_pose(), "pose")[:, 3:].astype(float)[:, None, :]
            jac[:, :3] = quat_rotate_inverse(base_q, np.swapaxes(jac[:, :3], 1, 2)).swapaxes(1, 2)
            jac[:, 3:] = quat_rotate_inverse(base_q, np.swapaxes(jac[:, 3:], 1, 2)).swapaxes(1, 2)
        return jac

    def joint_state(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions and velocities (num_envs, len(joint_ids)) of the controlled joints (copies)."""
        ids = self.joint_ids
        q, qd = self.robot.get_joint_state()
        return to_numpy(q, "q")[:, ids].astype(float), to_numpy(qd, "qd")[:, ids].astype(float)

    def rows(self, value: Any, n: int, width: int, name: str) -> np.ndarray:
        """A validated float array (n, width); one row (width,) is repeated for every environment.

        Raises:
            ShapeError: The shape is neither (n, width) nor (width,).
            NonFiniteError: A value is NaN or infinite.
        """
        arr = to_numpy(value, name)
        if arr.shape == (width,):
            arr = np.broadcast_to(arr, (n, width))
        elif arr.shape != (n, width):
            raise ShapeError(f"{name} must have shape ({n}, {width}) or ({width},), got {tuple(arr.shape)}")
        return self.tensors.floats(arr, (n, width), name)

    def quats(self, value: Any, n: int, name: str) -> np.ndarray:
        """Validated unit quaternions (n, 4) ``[qw, qx, qy, qz]`` (normalised; one row is repeated).

        Raises:
            ShapeError, NonFiniteError: As :meth:`rows`. SimuloValueError: A quaternion has zero length.
        """
        return normalize_quat(self.rows(value, n, 4, name), name)


class ChainController:
    """Base of the controllers: the members that describe the :class:`ControlledChain` they drive."""

    _chain: ControlledChain

    @property
    def robot(self) -> Robot:
        """The controlled robot."""
        return self._chain.robot

    @property
    def end_effector(self) -> str:
        """Name of the driven body."""
        return self._chain.end_effector

    @property
    def frame(self) -> Frame:
        """``"base"`` or ``"world"``: the frame of targets."""
        return self._chain.frame

    @property
    def joint_ids(self) -> list[int]:
        """Robot joint indices the controller moves, in column order of :meth:`compute`'s result."""
        return self._chain.joint_ids
