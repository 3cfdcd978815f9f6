"""What a robot's next flush must do: the record of what changed since the last one, and what the modes settled.

Engines keep motor commands between steps but apply a torque for one step only, so a flush can often do less
than run every drive again. Two things decide how much less:

* :class:`Changes`, one record of what was written since the last flush (a bit per kind of write);
* :class:`SettledModes`, what the last full flush's modes imply (which columns run a position motor, or are
  torque-driven, in every environment), which tells a write that cannot change any mode from one that can.

Writes that cannot change a mode (:data:`MOTOR_POSITIONS`, :data:`TORQUE_EFFORTS`) let the flush resend the
commands it already has with the new values; any other write (:data:`TARGETS`, :data:`EFFORTS`,
:data:`MOTOR_FORCES`) runs every drive's ``compute`` again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulo.engine.base import ControlMode
from simulo.sim.drives import Saturation

_PASSIVE = int(ControlMode.PASSIVE)
_POSITION = int(ControlMode.POSITION_MOTOR)
_TORQUE = int(ControlMode.TORQUE)

#: Values of position targets of joints whose position motor runs in every environment.
MOTOR_POSITIONS = 1
#: Values of effort targets of joints torque-driven in every environment, no drive being explicit.
TORQUE_EFFORTS = 2
#: Position or velocity targets anywhere else (a target set or cleared: modes may change).
TARGETS = 4
#: Effort targets anywhere else.
EFFORTS = 8
#: Force limits of the engine motor.
MOTOR_FORCES = 16
#: The writes after which the last flush's modes still hold.
SAME_MODES = MOTOR_POSITIONS | TORQUE_EFFORTS


def run_index(cols: np.ndarray) -> slice | np.ndarray:
    """``cols`` as a slice when they are one ascending run of consecutive columns (basic indexing is faster than
    fancy indexing and selects the same elements), else ``cols`` itself."""
    if cols.size and int(cols[-1]) - int(cols[0]) + 1 == cols.size and bool((np.diff(cols) == 1).all()):
        return slice(int(cols[0]), int(cols[-1]) + 1)
    return cols


class Changes:
    """The record of what was written into a robot's commands since its last flush.

    Attributes:
        bits: An OR of :data:`MOTOR_POSITIONS`, :data:`TORQUE_EFFORTS`, :data:`TARGETS`, :data:`EFFORTS`,
            :data:`MOTOR_FORCES`; 0 when nothing changed. A new robot starts with every bit but the first two.
    """

    __slots__ = ("bits",)

    def __init__(self) -> None:
        self.bits = TARGETS | EFFORTS | MOTOR_FORCES

    def note(self, bits: int) -> None:
        """Record writes of the kinds ``bits``."""
        self.bits |= bits

    @property
    def modes_may_change(self) -> bool:
        """Whether a write since the last flush may change a joint's mode (the drives must run again)."""
        return bool(self.bits & ~SAME_MODES)


class SettledModes:
    """What the modes of the last full flush imply, recomputed only when a flush changes a mode.

    Args:
        mode: Each joint's :class:`~simulo.engine.base.ControlMode` (num_envs, num_joints), int8.
        torque: The robot's explicit torques (the array the effort overrides read).
        effort_limit: Effort limit per joint.
        any_explicit: Whether a drive computes torques from the state every physics step.
        engine_efforts: Whether the engine's joint reads report every joint's effort itself.

    Attributes:
        key: ``mode`` as bytes when these were computed.
        effort_overrides: ``(index, values)`` pairs for :class:`~simulo.sim.robot_buffers.StateBuffers`.
        has_torque: Whether any joint is torque-driven (the engine needs its torques again every step).
        torque_block: The columns torque-driven in every environment (an index) and their saturation, used
            only when no drive is explicit.
    """

    __slots__ = ("_motor", "_motor_cols", "_torque", "_torque_cols", "effort_overrides", "has_torque", "key",
                 "torque_block")

    def __init__(self, mode: np.ndarray, torque: np.ndarray, effort_limit: np.ndarray, any_explicit: bool,
                 engine_efforts: bool) -> None:
        self.key = mode.tobytes()
        overrides: list[tuple[Any, np.ndarray | None]] = []
        for kind, values in ((_TORQUE, torque), (_PASSIVE, None)):
            where = mode == kind
            if not where.any():
                continue
            run = run_index(np.flatnonzero(where[0]))
            index: Any = where
            if type(run) is slice and (where == where[0]).all():
                index = (slice(None), run)  # one run of columns everywhere
            overrides.append((index, values))
        self.effort_overrides = [] if engine_efforts else overrides
        self.has_torque = bool(overrides) and overrides[0][1] is not None
        self._motor = (mode == _POSITION).all(axis=0)
        # an explicit drive computes its torques from the state: no effort write may skip the drives then
        self._torque = (mode == _TORQUE).all(axis=0) & (not any_explicit)
        torque_cols = np.flatnonzero(self._torque)
        self.torque_block: tuple[Any, Saturation] = (run_index(torque_cols), Saturation(effort_limit[torque_cols]))
        #: id of a cached (read-only) column array -> whether all its columns are in ``_motor`` / ``_torque``
        self._motor_cols: dict[int, bool] = {}
        self._torque_cols: dict[int, bool] = {}

    def position_write(self, cols: np.ndarray) -> int:
        """The kind of a write of finite position targets at ``cols``: :data:`MOTOR_POSITIONS` when their position
        motor runs in every environment, else :data:`TARGETS`."""
        return MOTOR_POSITIONS if _all_set(cols, self._motor, self._motor_cols) else TARGETS

    def effort_write(self, cols: np.ndarray) -> int:
        """The kind of a write of finite effort targets at ``cols``: :data:`TORQUE_EFFORTS` when they are
        torque-driven in every environment and no drive is explicit, else :data:`EFFORTS`."""
        return TORQUE_EFFORTS if _all_set(cols, self._torque, self._torque_cols) else EFFORTS


def _all_set(cols: np.ndarray, mask: np.ndarray, cache: dict[int, bool]) -> bool:
    """Whether ``mask`` (num_joints,) holds at every column of ``cols``; remembered by id for a cached (read-only)
    ``cols``, whose id is not reused while the data lives."""
    found = cache.get(id(cols))
    if found is None:
        found = bool(mask[cols].all())
        if not cols.flags.writeable:
            cache[id(cols)] = found
    return found
