"""``simulo.ParallelGripper``: a two-finger gripper added with ``robot.add_actuator(gripper, attach_to=...)``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from simulo._sdk_protocols import ActuatorBase
from simulo.errors import NotAttachedError, SimuloValueError

if TYPE_CHECKING:
    from simulo.sim.robot_data import RobotData


class ParallelGripper(ActuatorBase):
    """A two-finger parallel gripper, optionally gear-coupled like a rack and pinion.

    Each finger is a prismatic joint whose position is its distance from the centre line. With
    ``coupled=True`` the engine ties the two joints together (PyBullet ``JOINT_GEAR`` with ``gear_ratio``
    -1 for mirrored axes), so the fingers close symmetrically and an object is held centred. Commands
    drive both fingers with the engine's position motor at a force limit per finger.

    Args:
        joints: Names (or regexes) of the two finger joints.
        coupled: Couple the fingers with a gear constraint.
        gear_ratio: Gear ratio of the coupling.
        gear_erp: Error-reduction parameter of the coupling constraint.
        gear_max_force: Largest force the coupling may apply, N.
        name: Actuator name.
    """

    def __init__(self, joints: tuple[str, str], coupled: bool = True, gear_ratio: float = -1.0,
                 gear_erp: float = 0.1, gear_max_force: float = 50.0, name: str = "gripper") -> None:
        if isinstance(joints, str) or not hasattr(joints, "__len__") or len(joints) != 2 \
                or not all(isinstance(j, str) for j in joints):
            raise SimuloValueError(f"ParallelGripper.joints must be two joint names, got {joints!r}")
        for key, value in (("gear_ratio", gear_ratio), ("gear_erp", gear_erp), ("gear_max_force", gear_max_force)):
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise SimuloValueError(f"ParallelGripper.{key} must be a finite number, got {value!r}")
        if gear_max_force <= 0 or not 0 < gear_erp <= 1:
            raise SimuloValueError(f"ParallelGripper needs gear_max_force > 0 and 0 < gear_erp <= 1, got "
                                   f"{gear_max_force!r}, {gear_erp!r}")
        self.joints = tuple(joints)
        self.coupled = bool(coupled)
        self.gear_ratio = float(gear_ratio)
        self.gear_erp = float(gear_erp)
        self.gear_max_force = float(gear_max_force)
        self._name = name
        self.path: str | None = None
        self.enabled = True
        self._data: RobotData | None = None
        self._cols = np.zeros(0, dtype=np.int64)

    @property
    def name(self) -> str | None:
        """Actuator name."""
        return self._name

    @property
    def joint_ids(self) -> list[int]:
        """Robot joint indices of the two fingers."""
        return self._cols.tolist()

    def runtime_bind(self, data: RobotData, attach_to: str) -> None:
        """Find the fingers and couple them (runtime hook: the robot calls it when it is attached).

        Raises:
            NameNotFoundError: ``attach_to`` or a finger joint matches nothing.
            SimuloValueError: The fingers are not two distinct prismatic joints.
        """
        data.find_bodies(attach_to)  # the hand must exist
        cols = [data.find_joints(j) for j in self.joints]
        if any(len(c) != 1 for c in cols) or cols[0] == cols[1]:
            raise SimuloValueError(f"ParallelGripper joints {self.joints} must each match exactly one distinct joint, "
                                   f"matched {cols}")
        kinds = [data.joint_kinds[c[0]] for c in cols]
        if kinds != ["prismatic", "prismatic"]:
            raise SimuloValueError(f"ParallelGripper fingers must be prismatic joints, {self.joints} are {kinds}")
        self._data = data
        self._cols = np.array([cols[0][0], cols[1][0]])
        if self.coupled:
            data.batch.add_gear(int(self._cols[0]), int(self._cols[1]), self.gear_ratio, self.gear_erp,
                                self.gear_max_force)

    def _require(self) -> RobotData:
        if not self.enabled:
            raise SimuloValueError(f"gripper {self._name!r} is disabled (enabled=False)")
        if self._data is None or not self._data.attached:
            raise NotAttachedError("ParallelGripper is commanded after the simulation has attached its robot")
        return self._data

    def command(self, opening: Any, force: float, env_ids: Any = None) -> None:
        """Drive each finger to ``opening`` (m from the centre line) with at most ``force`` N per finger.

        Args:
            opening: A number, or one value per environment in ``env_ids``.
            force: Force limit per finger, N (> 0).
            env_ids: Environments to command; None for all.
        """
        data = self._require()
        if not isinstance(force, (int, float)) or not math.isfinite(force) or force <= 0:
            raise SimuloValueError(f"gripper force must be a finite number > 0 N, got {force!r}")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        if isinstance(opening, (int, float)):
            opening = np.full(len(ids), float(opening))
        target = data.tensors.floats(opening, (len(ids),), "opening")
        data.set_position_targets(np.stack([target, target], axis=1), self._cols, ids)
        data.set_motor_force(np.full((len(ids), 2), float(force)), self._cols, ids)

    def set_command(self, command: Any) -> None:
        """Protocol form of :meth:`command`: a mapping with ``opening``, ``force`` and optional ``env_ids``."""
        if not isinstance(command, dict) or not {"opening", "force"} <= set(command):
            raise SimuloValueError(f"gripper command must be a dict with 'opening' and 'force', got {command!r}")
        self.command(command["opening"], command["force"], command.get("env_ids"))

    def gap(self) -> Any:
        """Distance between the fingers (sum of the two openings), m, per environment (num_envs,)."""
        data = self._require()
        return data.tensors.out(data.q[:, self._cols[0]] + data.q[:, self._cols[1]])

    def get_state(self) -> Any:
        """Finger openings (num_envs, 2), m."""
        data = self._require()
        return data.tensors.out(data.q[:, self._cols].copy())

    def reset(self) -> None:
        """Clear the finger targets and force limits in every environment (the fingers go passive)."""
        self._require().release_joints(self._cols)
