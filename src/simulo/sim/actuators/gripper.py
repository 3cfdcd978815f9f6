"""``simulo.ParallelGripperActuator``: a two-finger gripper added with ``robot.add_actuator(gripper, attach_to=...)``.

The SDK 0.34.0 names the class without defining it (its cloud backend's ``simulo.core`` does). The parameter
names are Isaac Sim's ``ParallelGripper`` (``isaacsim.robot.manipulators.grippers``): ``joint_prim_names`` (the
left and right finger joints), ``joint_opened_positions``, ``joint_closed_positions`` and ``action_deltas``; the
commands and states are Isaac Lab's (:mod:`simulo.sim.actuators.gripper_types`). ``force_limit`` and the gear
coupling (``coupled``, ``gear_ratio``, ``gear_erp``, ``gear_max_force``: PyBullet's ``JOINT_GEAR`` constraint
and its ``changeConstraint`` settings) are simulo-local's.

:class:`ParallelGripper` is the name simulo-local had for the same gripper (the pick-and-place app's): the same
implementation, coupled by default, whose ``get_state`` returns the finger positions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from simulo._sdk_protocols import ActuatorBase
from simulo.errors import NotAttachedError, SimuloValueError
from simulo.sim.actuators.gripper_types import GripperState, split_commands

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData

#: Finger speed (m/s or rad/s) below which closing fingers count as stopped: the gripper is then closed.
SETTLED_SPEED = 5e-3


def _finite(value: Any, what: str, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or (positive and value <= 0):
        raise SimuloValueError(f"{what} must be a finite number{' > 0' if positive else ''}, got {value!r}")
    return float(value)


def _pair(value: Any, what: str) -> np.ndarray | None:
    if value is None:
        return None
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (2,) or not np.isfinite(arr).all():
        raise SimuloValueError(f"{what} must be two finite numbers (left finger, right finger), got {value!r}")
    return arr


class ParallelGripperActuator(ActuatorBase):
    """A two-finger gripper on two joints of a robot, batched over environments.

    :meth:`close` drives both fingers to ``joint_closed_positions`` and :meth:`open` to
    ``joint_opened_positions`` (with ``action_deltas``, to the current positions minus / plus the deltas, as
    Isaac Sim's), with the engine's position motor at ``force_limit`` per finger; :meth:`command` drives them to
    any opening. With ``coupled`` the engine ties the two joints together (gear ``ratio`` -1 mirrors them, a rack
    and pinion), so the fingers close symmetrically and an object is held centred.

    States (:class:`~simulo.GripperState`, per environment): open after an opening command (and before any
    command), closing while closing fingers move, closed once they stop (on an object or at their closed
    positions) for a step.

    Args:
        joint_prim_names: Names (or regexes) of the two finger joints, left then right.
        joint_opened_positions: Joint positions when open (m or rad); ``None``: each joint's upper limit.
        joint_closed_positions: Joint positions when closed; ``None``: each joint's lower limit.
        action_deltas: Position steps per open / close command instead of the open and closed positions.
        force_limit: Force (or torque) limit of each finger's motor, N (> 0).
        coupled: Couple the fingers with a gear constraint.
        gear_ratio: Gear ratio of the coupling.
        gear_erp: Error-reduction parameter of the coupling constraint (0..1].
        gear_max_force: Largest force the coupling may apply, N.
        name: Actuator name.

    Raises:
        SimuloValueError: A parameter is malformed (the message names it and its value).
    """

    #: The constructor's name for the finger joints (in messages).
    _joints_arg: ClassVar[str] = "joint_prim_names"

    def __init__(self, joint_prim_names: Sequence[str], joint_opened_positions: Sequence[float] | None = None,
                 joint_closed_positions: Sequence[float] | None = None, action_deltas: Sequence[float] | None = None,
                 force_limit: float = 20.0, coupled: bool = False, gear_ratio: float = -1.0, gear_erp: float = 0.1,
                 gear_max_force: float = 50.0, name: str = "gripper") -> None:
        cls = type(self).__name__
        joints = joint_prim_names
        if isinstance(joints, str) or not hasattr(joints, "__len__") or len(joints) != 2 \
                or not all(isinstance(j, str) for j in joints):
            raise SimuloValueError(f"{cls}.{self._joints_arg} must be two joint names, got {joints!r}")
        self.force_limit = _finite(force_limit, f"{cls}.force_limit", positive=True)
        self.gear_ratio = _finite(gear_ratio, f"{cls}.gear_ratio")
        self.gear_erp = _finite(gear_erp, f"{cls}.gear_erp")
        self.gear_max_force = _finite(gear_max_force, f"{cls}.gear_max_force")
        if self.gear_max_force <= 0 or not 0 < self.gear_erp <= 1:
            raise SimuloValueError(f"{cls} needs gear_max_force > 0 and 0 < gear_erp <= 1, got "
                                   f"{gear_max_force!r}, {gear_erp!r}")
        if not isinstance(coupled, (bool, np.bool_)):
            raise SimuloValueError(f"{cls}.coupled must be True or False, got {coupled!r}")
        self._opened = _pair(joint_opened_positions, f"{cls}.joint_opened_positions")
        self._closed = _pair(joint_closed_positions, f"{cls}.joint_closed_positions")
        self.action_deltas = _pair(action_deltas, f"{cls}.action_deltas")
        self.joints = tuple(joints)
        self.coupled = bool(coupled)
        self._name = name
        self.path: str | None = None
        self.enabled = True
        self._data: RobotData | None = None
        self._cols = np.zeros(0, dtype=np.int64)
        self._goal = np.zeros(0, dtype=np.int8)  # per environment: -1 opening, 1 closing
        self._steps = 0  # physics steps since the simulation attached the gripper
        self._commanded_at = np.zeros(0, dtype=np.int64)  # the step of each environment's last command

    @property
    def name(self) -> str | None:
        """Actuator name."""
        return self._name

    @property
    def joint_prim_names(self) -> tuple[str, ...]:
        """The two finger joint names (or patterns) as given."""
        return self.joints

    @property
    def joint_ids(self) -> list[int]:
        """Robot joint indices of the two fingers."""
        return self._cols.tolist()

    @property
    def joint_opened_positions(self) -> np.ndarray | None:
        """Finger positions when open (left, right); resolved from the joint limits once attached."""
        return None if self._opened is None else self._opened.copy()

    @property
    def joint_closed_positions(self) -> np.ndarray | None:
        """Finger positions when closed (left, right); resolved from the joint limits once attached."""
        return None if self._closed is None else self._closed.copy()

    def runtime_bind(self, data: RobotData, attach_to: str) -> None:
        """Find the fingers and couple them (runtime hook: the robot calls it when it is attached).

        Raises:
            NameNotFoundError: ``attach_to`` or a finger joint matches nothing.
            SimuloValueError: The fingers are not two distinct joints, or an open / closed position is needed
                from a joint without limits.
        """
        cls = type(self).__name__
        data.find_bodies(attach_to)  # the hand must exist
        cols = [data.find_joints(j) for j in self.joints]
        if any(len(c) != 1 for c in cols) or cols[0] == cols[1]:
            raise SimuloValueError(f"{cls} joints {self.joints} must each match exactly one distinct joint, "
                                   f"matched {cols}")
        kinds = [data.joint_kinds[c[0]] for c in cols]
        if type(self) is ParallelGripper and kinds != ["prismatic", "prismatic"]:
            raise SimuloValueError(f"ParallelGripper fingers must be prismatic joints, {self.joints} are {kinds}")
        infos = [data.batch.joints[c[0]] for c in cols]
        for which, given in (("opened", self._opened), ("closed", self._closed)):
            if given is None and self.action_deltas is None:
                unlimited = [i.name for i in infos if i.lower > i.upper]
                if unlimited:
                    raise SimuloValueError(f"{cls}: joints {unlimited} have no limits; give joint_{which}_positions")
        if self._opened is None:
            self._opened = np.array([i.upper for i in infos])
        if self._closed is None:
            self._closed = np.array([i.lower for i in infos])
        self._data = data
        self._cols = np.array([cols[0][0], cols[1][0]])
        self._goal = np.full(data.num_envs, -1, dtype=np.int8)
        self._steps = 0
        self._commanded_at = np.zeros(data.num_envs, dtype=np.int64)
        if self.coupled:
            data.batch.add_gear(int(self._cols[0]), int(self._cols[1]), self.gear_ratio, self.gear_erp,
                                self.gear_max_force)

    def runtime_step(self, dt: float) -> None:
        """Count the physics step (runtime hook: the simulation calls it after every step)."""
        self._steps += 1

    def _require(self) -> RobotData:
        if not self.enabled:
            raise SimuloValueError(f"gripper {self._name!r} is disabled (enabled=False)")
        if self._data is None or not self._data.attached:
            raise NotAttachedError(f"{type(self).__name__} is commanded after the simulation has attached its robot")
        return self._data

    def _drive(self, data: RobotData, targets: np.ndarray, ids: np.ndarray, force: float) -> None:
        data.set_position_targets(targets, self._cols, ids)
        data.set_motor_force(np.full((len(ids), 2), force), self._cols, ids)
        self._commanded_at[ids] = self._steps

    def set_grippers_command(self, states: Any, env_ids: Any = None) -> None:
        """Open or close the grippers of ``env_ids`` (all by default), Isaac Lab's way.

        Args:
            states: A :class:`~simulo.GripperCommand` or a number for every selected environment, or one value per
                environment (len(env_ids),), each in [-1, 1]: up to -0.3 opens, from 0.3 closes, between does
                nothing.
            env_ids: Environments to command; ``None`` for all.

        Raises:
            ShapeError, NonFiniteError, SimuloValueError: Malformed commands (nothing is commanded).
        """
        data = self._require()
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        opening, closing = split_commands(data.tensors, states, ids, f"{type(self).__name__} command")
        assert self._opened is not None and self._closed is not None
        q = data.q[:, self._cols]
        for group, goal, fixed, sign in ((opening, -1, self._opened, 1.0), (closing, 1, self._closed, -1.0)):
            if group.size:
                deltas = self.action_deltas
                targets = np.tile(fixed, (len(group), 1)) if deltas is None else q[group] + sign * deltas
                self._drive(data, targets, group, self.force_limit)
                self._goal[group] = goal

    def open(self, env_ids: Any = None) -> None:
        """Open the grippers of ``env_ids`` (all by default)."""
        self.set_grippers_command(-1.0, env_ids)

    def close(self, env_ids: Any = None) -> None:
        """Close the grippers of ``env_ids`` (all by default)."""
        self.set_grippers_command(1.0, env_ids)

    def command(self, opening: Any, force: float, env_ids: Any = None) -> None:
        """Drive each finger to ``opening`` (m from the centre line) with at most ``force`` N per finger.

        The state follows the direction: closing (then closed) when ``opening`` lies below the fingers' mean
        position, open otherwise.

        Args:
            opening: A number, or one value per environment in ``env_ids``.
            force: Force limit per finger, N (> 0).
            env_ids: Environments to command; None for all.
        """
        data = self._require()
        if isinstance(force, bool) or not isinstance(force, (int, float)) or not math.isfinite(force) or force <= 0:
            raise SimuloValueError(f"gripper force must be a finite number > 0 N, got {force!r}")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        if isinstance(opening, (int, float)):
            opening = np.full(len(ids), float(opening))
        target = data.tensors.floats(opening, (len(ids),), "opening")
        inward = target < data.q[np.ix_(ids, self._cols)].mean(axis=1)
        self._drive(data, np.stack([target, target], axis=1), ids, float(force))
        self._goal[ids] = np.where(inward, 1, -1)

    def set_command(self, command: Any) -> None:
        """Protocol form: a :class:`~simulo.GripperCommand`, a number or one value per environment (see
        :meth:`set_grippers_command`); or a mapping with ``command`` (and optional ``env_ids``), or with
        ``opening`` and ``force`` (and optional ``env_ids``, see :meth:`command`)."""
        if isinstance(command, dict):
            if {"opening", "force"} <= set(command):
                self.command(command["opening"], command["force"], command.get("env_ids"))
                return
            if "command" in command:
                self.set_grippers_command(command["command"], command.get("env_ids"))
                return
            raise SimuloValueError(f"gripper command must be a dict with 'opening' and 'force', got {command!r} (or a "
                                   "dict with 'command'; each with optional 'env_ids')")
        self.set_grippers_command(command)

    @property
    def state(self) -> Any:
        """:class:`~simulo.GripperState` of each environment (num_envs,) float32: -1 open, 0 closing, 1 closed."""
        data = self._require()
        still = (np.abs(data.qd[:, self._cols]) < SETTLED_SPEED).all(axis=1) & (self._commanded_at < self._steps)
        closing = np.where(still, float(GripperState.CLOSED), float(GripperState.CLOSING))
        return data.tensors.out(np.where(self._goal > 0, closing, float(GripperState.OPEN)).astype(np.float32))

    def get_state(self) -> Any:
        """:attr:`state`: each environment's :class:`~simulo.GripperState` (num_envs,) float32."""
        return self.state

    def joint_positions(self) -> Any:
        """Finger joint positions (num_envs, 2): left, right."""
        data = self._require()
        return data.tensors.out(data.q[:, self._cols].copy())

    def gap(self) -> Any:
        """Distance between the fingers (sum of the two openings), m, per environment (num_envs,)."""
        data = self._require()
        return data.tensors.out(data.q[:, self._cols[0]] + data.q[:, self._cols[1]])

    def reset(self) -> None:
        """Clear the finger targets and force limits in every environment (the fingers go passive; state open)."""
        self._require().release_joints(self._cols)
        self._goal[:] = -1


class ParallelGripper(ParallelGripperActuator):
    """simulo-local's first name for :class:`ParallelGripperActuator` (the pick-and-place app's gripper).

    The same gripper with two differences kept for the code written against it: the fingers are coupled by
    default, and :meth:`get_state` returns the finger positions (num_envs, 2) rather than the gripper states.
    Both fingers must be prismatic; each finger's position is its distance from the centre line.

    Args:
        joints: Names (or regexes) of the two finger joints.
        coupled: Couple the fingers with a gear constraint.
        gear_ratio: Gear ratio of the coupling.
        gear_erp: Error-reduction parameter of the coupling constraint.
        gear_max_force: Largest force the coupling may apply, N.
        name: Actuator name.
    """

    _joints_arg: ClassVar[str] = "joints"

    def __init__(self, joints: tuple[str, str], coupled: bool = True, gear_ratio: float = -1.0,
                 gear_erp: float = 0.1, gear_max_force: float = 50.0, name: str = "gripper") -> None:
        super().__init__(joints, coupled=coupled, gear_ratio=gear_ratio, gear_erp=gear_erp,
                         gear_max_force=gear_max_force, name=name)

    def get_state(self) -> Any:
        """Finger openings (num_envs, 2), m (see :meth:`joint_positions`)."""
        return self.joint_positions()
