"""``simulo.DifferentialIKController``: end-effector targets to joint position targets, batched.

Each call solves one step of differential inverse kinematics from the current joint positions:

    dq = J⁺ e,    q_target = q + dq

where ``J`` is the end effector's Jacobian (linear rows only for ``command_type="position"``), ``e`` the
error from the current to the desired end-effector position (and orientation, as a rotation vector) and
``J⁺`` an inverse chosen by ``ik_method``:

* ``"pinv"``: Moore-Penrose pseudo-inverse, scaled by ``k_val``;
* ``"svd"``: pseudo-inverse from the SVD with singular values below ``min_singular_value`` dropped,
  scaled by ``k_val``;
* ``"trans"``: the transpose ``k_val · Jᵀ`` (gradient descent on the squared error);
* ``"dls"``: damped least squares ``Jᵀ (J Jᵀ + λ² I)⁻¹`` with ``λ = lambda_val``.

The robot's joint drives then track ``q_target``; calling :meth:`DifferentialIKController.move_to` (or
:meth:`~DifferentialIKController.apply`) every control step closes the loop. Targets are in the robot's
base frame by default (``frame="base"``, as the SDK's samples give them) or in the world frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

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

IKMethod = Literal["pinv", "svd", "trans", "dls"]
CommandType = Literal["position", "pose"]
IK_METHODS: tuple[str, ...] = ("pinv", "svd", "trans", "dls")
COMMAND_TYPES: tuple[str, ...] = ("position", "pose")
#: Parameters of each method and their defaults (Isaac Lab's names and values).
DEFAULT_IK_PARAMS: Mapping[str, Mapping[str, float]] = MappingProxyType({
    "pinv": MappingProxyType({"k_val": 1.0}),
    "svd": MappingProxyType({"k_val": 1.0, "min_singular_value": 1e-5}),
    "trans": MappingProxyType({"k_val": 1.0}),
    "dls": MappingProxyType({"lambda_val": 0.01}),
})


@dataclass(frozen=True)
class DifferentialIKControllerCfg:
    """Configuration of a :class:`DifferentialIKController`.

    Attributes:
        command_type: ``"position"`` (3 values; orientation is free) or ``"pose"`` (position and orientation).
        ik_method: ``"pinv"``, ``"svd"``, ``"trans"`` or ``"dls"``.
        use_relative_mode: Whether :meth:`DifferentialIKController.set_command` takes changes of the current
            pose (``[dx, dy, dz]`` or ``[dx, dy, dz, rx, ry, rz]``, a rotation vector in rad) instead of
            absolute targets (``[x, y, z]`` or ``[x, y, z, qw, qx, qy, qz]``).
        ik_params: The method's parameters (see :data:`DEFAULT_IK_PARAMS`); missing ones take the defaults.
            After construction this holds every parameter of the method.

    Raises:
        SimuloValueError: An unknown command type, method or parameter, or a parameter that is not a
            finite number > 0.
    """

    command_type: CommandType = "pose"
    ik_method: IKMethod = "dls"
    use_relative_mode: bool = False
    ik_params: Mapping[str, float] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        check_choice(self.command_type, COMMAND_TYPES, "command_type")
        check_choice(self.ik_method, IK_METHODS, "ik_method")
        if not isinstance(self.use_relative_mode, bool):
            raise SimuloValueError(f"use_relative_mode must be True or False, got {self.use_relative_mode!r}")
        defaults = DEFAULT_IK_PARAMS[self.ik_method]
        given = {} if self.ik_params is None else self.ik_params
        if not isinstance(given, Mapping):
            raise SimuloValueError(f"ik_params must be a mapping of parameter names to numbers, got {given!r}")
        unknown = sorted(set(given) - set(defaults))
        if unknown:
            raise SimuloValueError(f"ik_params {unknown} are not parameters of ik_method={self.ik_method!r}; "
                                   f"expected some of {sorted(defaults)}")
        params = {key: positive(given.get(key, value), f"ik_params[{key!r}]") for key, value in defaults.items()}
        object.__setattr__(self, "ik_params", MappingProxyType(params))

    @property
    def action_dim(self) -> int:
        """Width of a :meth:`DifferentialIKController.set_command` row."""
        if self.command_type == "position":
            return 3
        return 6 if self.use_relative_mode else 7


class DifferentialIKController(ChainController):
    """Differential inverse kinematics for one end effector of a robot, batched over its environments.

    Args:
        robot: The robot. It may be attached later; names resolve on first use once it is.
        end_effector: Name of the body to drive (e.g. ``"panda_hand"``).
        joints: Joint name or regex (full match) of the joints to move (e.g. ``"panda_joint.*"``).
        ik_method: ``"dls"`` (default), ``"pinv"``, ``"svd"`` or ``"trans"``.
        command_type: ``"pose"`` (default) or ``"position"``.
        use_relative_mode: Whether :meth:`set_command` takes pose changes rather than absolute targets.
        ik_params: Parameters of ``ik_method`` (see :data:`DEFAULT_IK_PARAMS`).
        frame: ``"base"`` (default): targets are in the robot's base frame; ``"world"``: in the world frame,
            each environment's origin included.

    Raises:
        SimuloValueError: An argument has the wrong type or value.
        NameNotFoundError: (Once attached) no such body, or no joint matches ``joints``.
    """

    def __init__(self, robot: Robot, end_effector: str, joints: str, ik_method: IKMethod = "dls",
                 command_type: CommandType = "pose", use_relative_mode: bool = False,
                 ik_params: Mapping[str, float] | None = None, frame: Frame = "base") -> None:
        self.cfg = DifferentialIKControllerCfg(command_type, ik_method, use_relative_mode, ik_params)
        self._chain = ControlledChain(robot, end_effector, joints, frame)
        #: desired positions (num_envs, 3) and orientations (num_envs, 4); NaN rows have no command
        self._pos_des = np.empty((0, 3))
        self._quat_des = np.empty((0, 4))
        if robot.runtime_attached:
            self._bind()

    def _bind(self) -> None:
        if self._pos_des.shape[0] != self._chain.num_envs:
            self._chain.resolve()
            n = self._chain.num_envs
            self._pos_des = np.full((n, 3), np.nan)
            self._quat_des = np.full((n, 4), np.nan)

    # -- properties -------------------------------------------------------------------------------------
    @property
    def action_dim(self) -> int:
        """Width of a :meth:`set_command` row: 3 (position), 6 (relative pose) or 7 (absolute pose)."""
        return self.cfg.action_dim

    @property
    def desired_pose(self) -> Any:
        """Desired end-effector poses ``[x, y, z, qw, qx, qy, qz]`` (num_envs, 7) in :attr:`frame`; a copy.

        Rows of environments without a command are NaN.
        """
        self._bind()
        return self._chain.tensors.out(np.concatenate([self._pos_des, self._quat_des], axis=1))

    # -- commands -----------------------------------------------------------------------------------------
    def reset(self, env_ids: Any = None) -> None:
        """Forget the commands of ``env_ids`` (all by default); those environments then hold still."""
        self._bind()
        ids = self._chain.env_ids(env_ids)
        self._pos_des[ids] = np.nan
        self._quat_des[ids] = np.nan

    def set_command(self, command: Any, env_ids: Any = None) -> None:
        """Set the end-effector target of ``env_ids`` from one command row each.

        Args:
            command: (len(env_ids), :attr:`action_dim`), or one row for every listed environment:
                ``[x, y, z]`` / ``[x, y, z, qw, qx, qy, qz]`` (absolute), ``[dx, dy, dz]`` /
                ``[dx, dy, dz, rx, ry, rz]`` (relative: from the current pose, rotation vector in rad,
                about :attr:`frame`'s axes), in m and in :attr:`frame`.
            env_ids: Environments to command; None for all.

        Raises:
            ShapeError, NonFiniteError, EnvIdError: Bad command or env_ids; nothing is changed.
            SimuloValueError: A zero-length quaternion.
        """
        self._bind()
        ids = self._chain.env_ids(env_ids)
        rows = self._chain.rows(command, len(ids), self.action_dim, "command")
        pos, quat = (a[ids] for a in self._chain.ee_pose())
        if self.cfg.command_type == "position":
            pos_des = pos + rows if self.cfg.use_relative_mode else rows
            quat_des = quat
        elif self.cfg.use_relative_mode:
            pos_des = pos + rows[:, :3]
            quat_des = quat_mul(quat_from_axis_angle(rows[:, 3:]), quat)
        else:
            pos_des = rows[:, :3]
            quat_des = self._chain.quats(rows[:, 3:], len(ids), "command quaternion")
        self._pos_des[ids] = pos_des
        self._quat_des[ids] = quat_des

    def compute(self, env_ids: Any = None) -> Any:
        """Joint position targets (len(env_ids), len(joint_ids)) one IK step from the current state.

        Environments without a command get their current joint positions.
        """
        self._bind()
        ids = self._chain.env_ids(env_ids)
        return self._chain.tensors.out(self._solve(ids))

    def apply(self, env_ids: Any = None) -> None:
        """Compute joint position targets for ``env_ids`` and write them to the robot."""
        self._bind()
        ids = self._chain.env_ids(env_ids)
        self._write(ids, self._solve(ids))

    def move_to(self, position: Any, orientation: Any = None, env_ids: Any = None) -> None:
        """Drive the end effector toward an absolute target: set the command, then :meth:`apply` it.

        Call it every control step; each call is one IK step from where the arm is now.

        Args:
            position: (len(env_ids), 3) or (3,), m, in :attr:`frame`.
            orientation: w-first quaternions (len(env_ids), 4) or (4,) in :attr:`frame`, normalised;
                ``None`` keeps the orientation last commanded (the current one if there is none). Only
                for ``command_type="pose"``.
            env_ids: Environments to command; None for all.

        Raises:
            ShapeError, NonFiniteError, EnvIdError: Bad inputs; nothing is changed.
            SimuloValueError: An orientation for a position controller, or a zero-length quaternion.
        """
        self._bind()
        ids = self._chain.env_ids(env_ids)
        pos_des = self._chain.rows(position, len(ids), 3, "position")
        if orientation is not None and self.cfg.command_type == "position":
            raise SimuloValueError("orientation is tracked only by command_type='pose'; this controller has "
                                   "command_type='position' (pass orientation=None)")
        if orientation is None:
            held = self._quat_des[ids]
            quat_des = np.where(np.isnan(held), self._chain.ee_pose()[1][ids], held)
        else:
            quat_des = self._chain.quats(orientation, len(ids), "orientation")
        q_des = self._solve(ids, pos_des, quat_des)
        self._pos_des[ids] = pos_des
        self._quat_des[ids] = quat_des
        self._write(ids, q_des)

    # -- the solver ------------------------------------------------------------------------------------------
    def _write(self, ids: np.ndarray, q_des: np.ndarray) -> None:
        every = ids.size == self._chain.num_envs and bool((ids == np.arange(ids.size)).all())
        self.robot.set_joint_position_target(q_des, joint_ids=self.joint_ids, env_ids=None if every else ids)

    def _solve(self, ids: np.ndarray, pos_des: np.ndarray | None = None,
               quat_des: np.ndarray | None = None) -> np.ndarray:
        q = self._chain.joint_state()[0][ids]
        pos_des = self._pos_des[ids] if pos_des is None else pos_des
        quat_des = self._quat_des[ids] if quat_des is None else quat_des
        active = ~np.isnan(pos_des[:, 0])
        if not active.any():
            return q
        pos, quat = (a[ids][active] for a in self._chain.ee_pose())
        jac = self._chain.jacobian()[ids][active]
        err = pose_error(pos, quat, pos_des[active], quat_des[active])
        if self.cfg.command_type == "position":
            jac, err = jac[:, :3], err[:, :3]
        q = q.copy()
        q[active] += self._delta(jac, err)
        return q

    def _delta(self, jac: np.ndarray, err: np.ndarray) -> np.ndarray:
        """Joint changes (n, k) from Jacobians (n, m, k) and task errors (n, m) by the configured method."""
        params = self.cfg.ik_params
        assert params is not None
        jac_t = np.swapaxes(jac, 1, 2)
        if self.cfg.ik_method == "pinv":
            inverse = np.linalg.pinv(jac)
            return params["k_val"] * np.einsum("nkm,nm->nk", inverse, err)
        if self.cfg.ik_method == "svd":
            u, s, vh = np.linalg.svd(jac, full_matrices=False)
            s_inv = np.where(s > params["min_singular_value"], 1.0 / np.maximum(s, 1e-300), 0.0)
            inverse = np.swapaxes(vh, 1, 2) @ (s_inv[:, :, None] * np.swapaxes(u, 1, 2))
            return params["k_val"] * np.einsum("nkm,nm->nk", inverse, err)
        if self.cfg.ik_method == "trans":
            return params["k_val"] * np.einsum("nkm,nm->nk", jac_t, err)
        damping = params["lambda_val"] ** 2 * np.eye(jac.shape[1])
        return np.einsum("nkm,nm->nk", jac_t, np.linalg.solve(jac @ jac_t + damping, err[:, :, None])[:, :, 0])

    def __repr__(self) -> str:
        return (f"DifferentialIKController(end_effector={self.end_effector!r}, ik_method={self.cfg.ik_method!r}, "
                f"command_type={self.cfg.command_type!r}, frame={self.frame!r})")
