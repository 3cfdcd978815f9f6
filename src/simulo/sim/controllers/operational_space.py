"""``simulo.OperationalSpaceController``: end-effector pose targets to joint efforts, batched.

The task-space impedance law (Khatib's operational space formulation), with ``J`` the end effector's
Jacobian restricted to the controlled axes, ``M`` the joint-space mass matrix and ``g`` the gravity
efforts:

    a = Kp e - Kd (J q̇),        Kd = 2 ζ √Kp
    F = Λ a,   Λ = (J M⁻¹ Jᵀ)⁺  (inertial decoupling; F = a without it)
    τ = Jᵀ F + g                 (g with gravity compensation)

``e`` is the pose error ``[p* - p, rotation vector of q* q⁻¹]``. With ``partial_inertial_dynamics_decoupling``
Λ is computed for the linear and the angular block separately. With ``nullspace_control="position"``
and more joints than controlled axes, a joint-space posture law acts in the null space of the task:

    τ += (I - Jᵀ J̄ᵀ) M (kp (q₀ - q) - kd q̇),   J̄ᵀ = Λ J M⁻¹ (or (J⁺)ᵀ without full decoupling)

The efforts are sent with ``robot.set_joint_effort_target`` for every environment, so call
:meth:`OperationalSpaceController.apply` (or :meth:`~OperationalSpaceController.move_to`) every physics
step. Targets are in the robot's base frame by default (``frame="base"``) or in the world frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulo.errors import SimuloValueError
from simulo.math.batched import quat_mul
from simulo.sim.controllers._chain import (
    ChainController,
    ControlledChain,
    Frame,
    check_choice,
    pose_error,
    positive,
    quat_from_axis_angle,
)
from simulo.sim.robot import Robot

TARGET_TYPES: tuple[str, ...] = ("pose_abs", "pose_rel")
IMPEDANCE_MODES: tuple[str, ...] = ("fixed", "variable_kp", "variable")
NULLSPACE_CONTROLS: tuple[str, ...] = ("none", "position")


def _six(value: float | Sequence[float], name: str, allow_zero: bool = True) -> tuple[float, ...]:
    values = (value,) * 6 if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) != 6:
        raise SimuloValueError(f"{name} must be a number or 6 numbers (x, y, z, rx, ry, rz), got {value!r}")
    return tuple(positive(v, f"{name}[{i}]", allow_zero) for i, v in enumerate(values))


def _limits(value: tuple[float, float], name: str) -> tuple[float, float]:
    if not isinstance(value, Sequence) or len(value) != 2:
        raise SimuloValueError(f"{name} must be (min, max), got {value!r}")
    low, high = (positive(v, name, allow_zero=True) for v in value)
    if low > high:
        raise SimuloValueError(f"{name} must be (min, max) with min <= max, got {value!r}")
    return low, high


@dataclass(frozen=True)
class OperationalSpaceControllerCfg:
    """Configuration of an :class:`OperationalSpaceController` (Isaac Lab's names, without the task frame).

    Attributes:
        target_types: One of ``("pose_abs",)`` (``[x, y, z, qw, qx, qy, qz]``) or ``("pose_rel",)``
            (``[dx, dy, dz, rx, ry, rz]``, a change of the current pose, rotation vector in rad).
        motion_control_axes: 0/1 per axis ``(x, y, z, rx, ry, rz)``: which axes the controller drives.
        inertial_dynamics_decoupling: Multiply the desired acceleration by the task-space inertia Λ.
        partial_inertial_dynamics_decoupling: Ignore the inertia coupling between translation and rotation.
        gravity_compensation: Add the joint efforts that cancel gravity.
        impedance_mode: ``"fixed"``; ``"variable_kp"`` (commands end with 6 stiffnesses) or ``"variable"``
            (6 stiffnesses then 6 damping ratios).
        motion_stiffness: Kp per axis, N/m and N·m/rad with decoupling (1/s² without).
        motion_damping_ratio: ζ per axis; Kd = 2 ζ √Kp.
        motion_stiffness_limits: Clip range of commanded stiffnesses (variable modes).
        motion_damping_ratio_limits: Clip range of commanded damping ratios (``"variable"``).
        nullspace_control: ``"none"`` or ``"position"`` (pull the joints toward a posture, in the null space).
        nullspace_stiffness: kp of the posture law, 1/s².
        nullspace_damping_ratio: ζ of the posture law; kd = 2 ζ √kp.

    Raises:
        SimuloValueError: A value is unknown, out of range or of the wrong length.
    """

    target_types: tuple[str, ...] = ("pose_abs",)
    motion_control_axes: tuple[int, ...] = (1, 1, 1, 1, 1, 1)
    inertial_dynamics_decoupling: bool = True
    partial_inertial_dynamics_decoupling: bool = False
    gravity_compensation: bool = True
    impedance_mode: str = "fixed"
    motion_stiffness: float | tuple[float, ...] = 100.0
    motion_damping_ratio: float | tuple[float, ...] = 1.0
    motion_stiffness_limits: tuple[float, float] = (0.0, 1000.0)
    motion_damping_ratio_limits: tuple[float, float] = (0.0, 100.0)
    nullspace_control: str = "none"
    nullspace_stiffness: float = 10.0
    nullspace_damping_ratio: float = 1.0

    def __post_init__(self) -> None:
        types = tuple(self.target_types) if isinstance(self.target_types, (list, tuple)) else None
        if types is None or len(types) != 1 or types[0] not in TARGET_TYPES:
            raise SimuloValueError(f"target_types must be ('pose_abs',) or ('pose_rel',), got {self.target_types!r}")
        axes = self.motion_control_axes
        if not isinstance(axes, Sequence) or len(axes) != 6 or any(a not in (0, 1) for a in axes) or not any(axes):
            raise SimuloValueError(f"motion_control_axes must be six 0/1 flags with at least one 1, got {axes!r}")
        for flag in ("inertial_dynamics_decoupling", "partial_inertial_dynamics_decoupling", "gravity_compensation"):
            if not isinstance(getattr(self, flag), bool):
                raise SimuloValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        check_choice(self.impedance_mode, IMPEDANCE_MODES, "impedance_mode")
        check_choice(self.nullspace_control, NULLSPACE_CONTROLS, "nullspace_control")
        resolved = {
            "target_types": types,
            "motion_control_axes": tuple(int(a) for a in axes),
            "motion_stiffness": _six(self.motion_stiffness, "motion_stiffness"),
            "motion_damping_ratio": _six(self.motion_damping_ratio, "motion_damping_ratio"),
            "motion_stiffness_limits": _limits(self.motion_stiffness_limits, "motion_stiffness_limits"),
            "motion_damping_ratio_limits": _limits(self.motion_damping_ratio_limits, "motion_damping_ratio_limits"),
            "nullspace_stiffness": positive(self.nullspace_stiffness, "nullspace_stiffness", allow_zero=True),
            "nullspace_damping_ratio": positive(self.nullspace_damping_ratio, "nullspace_damping_ratio", True),
        }
        for key, value in resolved.items():
            object.__setattr__(self, key, value)

    @property
    def action_dim(self) -> int:
        """Width of a :meth:`OperationalSpaceController.set_command` row."""
        target = 7 if self.target_types[0] == "pose_abs" else 6
        return target + {"fixed": 0, "variable_kp": 6, "variable": 12}[self.impedance_mode]


class OperationalSpaceController(ChainController):
    """Operational space (task-space impedance) control of one end effector, batched over environments.

    Args:
        robot: The robot. It may be attached later; names resolve on first use once it is.
        end_effector: Name of the body to drive.
        joints: Joint name or regex (full match) of the joints to actuate.
        frame: ``"base"`` (default) or ``"world"``: the frame of targets.
        **cfg: Fields of :class:`OperationalSpaceControllerCfg` (e.g. ``motion_stiffness=150.0``).

    Raises:
        SimuloValueError: An argument has the wrong type or value, or null-space control on a chain
            with no more joints than controlled axes.
        NameNotFoundError: (Once attached) no such body, or no joint matches ``joints``.
    """

    def __init__(self, robot: Robot, end_effector: str, joints: str, frame: Frame = "base", **cfg: Any) -> None:
        fields = set(OperationalSpaceControllerCfg.__dataclass_fields__)
        unknown = sorted(set(cfg) - fields)
        if unknown:
            raise SimuloValueError(f"OperationalSpaceController got unknown settings {unknown}; "
                                   f"expected some of {sorted(fields)}")
        self.cfg = OperationalSpaceControllerCfg(**cfg)
        self._chain = ControlledChain(robot, end_effector, joints, frame)
        self._rows = np.flatnonzero(self.cfg.motion_control_axes)
        self._pose_des = np.empty((0, 7))
        self._kp = np.empty((0, 6))
        self._kd = np.empty((0, 6))
        self._posture = np.empty((0, 0))
        if robot.runtime_attached:
            self._bind()

    def _bind(self) -> None:
        if self._pose_des.shape[0] == self._chain.num_envs:
            return
        self._chain.resolve()
        n, k = self._chain.num_envs, len(self._chain.joint_ids)
        if self.cfg.nullspace_control == "position" and k <= self._rows.size:
            raise SimuloValueError(f"nullspace_control='position' needs more joints than controlled axes; "
                                   f"{self._chain.joints!r} matches {k} joints for {self._rows.size} axes")
        kp, kd = self._configured_gains()
        self._pose_des = np.full((n, 7), np.nan)
        self._kp = np.tile(kp, (n, 1))
        self._kd = np.tile(kd, (n, 1))
        default_q = np.asarray(self._chain.robot.default_joint_positions, dtype=float)
        self._posture = default_q[:, self._chain.joint_ids]

    def _configured_gains(self) -> tuple[np.ndarray, np.ndarray]:
        """Kp and Kd (6,) of the configuration; zero on the axes that are not controlled."""
        kp = np.array(self.cfg.motion_stiffness) * np.array(self.cfg.motion_control_axes)
        return kp, 2.0 * np.sqrt(kp) * np.array(self.cfg.motion_damping_ratio)

    # -- properties -------------------------------------------------------------------------------------
    @property
    def action_dim(self) -> int:
        """Width of a :meth:`set_command` row."""
        return self.cfg.action_dim

    @property
    def desired_pose(self) -> Any:
        """Desired poses ``[x, y, z, qw, qx, qy, qz]`` (num_envs, 7) in :attr:`frame`; NaN rows have none."""
        self._bind()
        return self._chain.tensors.out(self._pose_des.copy())

    # -- commands -----------------------------------------------------------------------------------------
    def reset(self, env_ids: Any = None) -> None:
        """Forget the pose targets of ``env_ids`` (all by default) and restore the configured gains."""
        self._bind()
        ids = self._chain.env_ids(env_ids)
        self._pose_des[ids] = np.nan
        self._kp[ids], self._kd[ids] = self._configured_gains()

    def set_command(self, command: Any, env_ids: Any = None) -> None:
        """Set the pose target (and, in variable impedance modes, the gains) of ``env_ids``.

        Args:
            command: (len(env_ids), :attr:`action_dim`) or one row: the target (``[x, y, z, qw, qx, qy, qz]``
                or ``[dx, dy, dz, rx, ry, rz]``, in :attr:`frame`), then 6 stiffnesses (variable modes),
                then 6 damping ratios (``"variable"``); gains are clipped to their configured limits.
            env_ids: Environments to command; None for all.

        Raises:
            ShapeError, NonFiniteError, EnvIdError: Bad command or env_ids; nothing is changed.
            SimuloValueError: A zero-length quaternion.
        """
        self._bind()
        ids = self._chain.env_ids(env_ids)
        rows = self._chain.rows(command, len(ids), self.action_dim, "command")
        width = 7 if self.cfg.target_types[0] == "pose_abs" else 6
        target, gains = rows[:, :width], rows[:, width:]
        if width == 7:
            pose = np.concatenate([target[:, :3], self._chain.quats(target[:, 3:], len(ids), "command quaternion")], 1)
        else:
            pos, quat = (a[ids] for a in self._chain.ee_pose())
            pose = np.concatenate([pos + target[:, :3], quat_mul(quat_from_axis_angle(target[:, 3:]), quat)], 1)
        axes = np.array(self.cfg.motion_control_axes)
        if gains.shape[1]:
            kp = np.clip(gains[:, :6], *self.cfg.motion_stiffness_limits) * axes
            zeta = np.array(self.cfg.motion_damping_ratio) if gains.shape[1] == 6 else \
                np.clip(gains[:, 6:], *self.cfg.motion_damping_ratio_limits)
            self._kp[ids] = kp
            self._kd[ids] = 2.0 * np.sqrt(kp) * zeta
        self._pose_des[ids] = pose

    def set_nullspace_target(self, joint_positions: Any, env_ids: Any = None) -> None:
        """Set the posture (len(env_ids), len(joint_ids)) the null-space law pulls toward (default: the
        robot's default joint positions)."""
        self._bind()
        ids = self._chain.env_ids(env_ids)
        self._posture[ids] = self._chain.rows(joint_positions, len(ids), len(self.joint_ids), "joint_positions")

    def compute(self) -> Any:
        """Joint efforts (num_envs, len(joint_ids)) from the current state; environments without a target
        get only gravity compensation and the null-space law."""
        self._bind()
        return self._chain.tensors.out(self._solve())

    def apply(self) -> None:
        """Compute the joint efforts of every environment and write them to the robot (every physics step)."""
        self._bind()
        self.robot.set_joint_effort_target(self._solve(), joint_ids=self.joint_ids)

    def move_to(self, position: Any, orientation: Any = None, env_ids: Any = None) -> None:
        """Set absolute pose targets for ``env_ids``, then :meth:`apply` (efforts go to every environment).

        Args:
            position: (len(env_ids), 3) or (3,), m, in :attr:`frame`.
            orientation: w-first quaternions (len(env_ids), 4) or (4,); ``None`` keeps the orientation last
                commanded (the current one if there is none).
            env_ids: Environments whose target changes; None for all.

        Raises:
            ShapeError, NonFiniteError, EnvIdError: Bad inputs; nothing is changed.
        """
        self._bind()
        ids = self._chain.env_ids(env_ids)
        pos = self._chain.rows(position, len(ids), 3, "position")
        if orientation is None:
            held = self._pose_des[ids, 3:]
            quat = np.where(np.isnan(held), self._chain.ee_pose()[1][ids], held)
        else:
            quat = self._chain.quats(orientation, len(ids), "orientation")
        self._pose_des[ids] = np.concatenate([pos, quat], axis=1)
        self.apply()

    # -- the control law --------------------------------------------------------------------------------------
    def _solve(self) -> np.ndarray:
        robot, ids = self.robot, self.joint_ids
        q, qd = self._chain.joint_state()
        jac = self._chain.jacobian()[:, self._rows]
        jac_t = np.swapaxes(jac, 1, 2)
        needs_mass = self.cfg.inertial_dynamics_decoupling or self.cfg.nullspace_control == "position"
        mass = np.asarray(robot.get_mass_matrix(ids), dtype=float) if needs_mass else None
        efforts = np.zeros_like(q)
        active = ~np.isnan(self._pose_des[:, 0])
        mass_inv = None if mass is None else np.linalg.inv(mass)
        lam = None if mass_inv is None or not self.cfg.inertial_dynamics_decoupling else \
            self._task_inertia(jac, mass_inv)
        if active.any():
            pos, quat = self._chain.ee_pose()
            err = pose_error(pos, quat, self._pose_des[:, :3], self._pose_des[:, 3:])[:, self._rows]
            vel = np.einsum("nmk,nk->nm", jac, qd)
            acc = self._kp[:, self._rows] * err - self._kd[:, self._rows] * vel
            force = acc if lam is None else np.einsum("nab,nb->na", lam, acc)
            efforts[active] = np.einsum("nkm,nm->nk", jac_t, force)[active]
        if self.cfg.nullspace_control == "position":
            assert mass is not None and mass_inv is not None
            kp, zeta = self.cfg.nullspace_stiffness, self.cfg.nullspace_damping_ratio
            acc_null = kp * (self._posture - q) - 2.0 * zeta * np.sqrt(kp) * qd
            if lam is not None and not self.cfg.partial_inertial_dynamics_decoupling:
                jbar_t = lam @ jac @ mass_inv
            else:
                jbar_t = np.swapaxes(np.linalg.pinv(jac), 1, 2)
            projector = np.eye(q.shape[1]) - jac_t @ jbar_t
            efforts += np.einsum("nij,nj->ni", projector, np.einsum("nij,nj->ni", mass, acc_null))
        if self.cfg.gravity_compensation:
            efforts += np.asarray(robot.get_gravity_compensation(ids), dtype=float)
        return efforts

    def _task_inertia(self, jac: np.ndarray, mass_inv: np.ndarray) -> np.ndarray:
        """Task-space inertia Λ (n, m, m); block-diagonal (linear, angular) with partial decoupling."""
        inv = jac @ mass_inv @ np.swapaxes(jac, 1, 2)
        if not self.cfg.partial_inertial_dynamics_decoupling:
            return np.linalg.pinv(inv, rcond=1e-8, hermitian=True)
        lam = np.zeros_like(inv)
        for block in (self._rows < 3, self._rows >= 3):
            if block.any():
                sub = np.ix_(block, block)
                lam[:, sub[0], sub[1]] = np.linalg.pinv(inv[:, sub[0], sub[1]], rcond=1e-8, hermitian=True)
        return lam

    def __repr__(self) -> str:
        return (f"OperationalSpaceController(end_effector={self.end_effector!r}, "
                f"target_types={self.cfg.target_types!r}, frame={self.frame!r})")
