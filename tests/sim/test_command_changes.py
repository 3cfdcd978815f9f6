"""The record of what changed since a robot's last flush, and what the settled modes let a write skip."""

from __future__ import annotations

import numpy as np

from simulo.engine.base import ControlMode
from simulo.sim.command_changes import (
    EFFORTS,
    MOTOR_FORCES,
    MOTOR_POSITIONS,
    TARGETS,
    TORQUE_EFFORTS,
    Changes,
    SettledModes,
)

P, T, V, Z = (int(ControlMode.POSITION_MOTOR), int(ControlMode.TORQUE), int(ControlMode.VELOCITY_MOTOR),
              int(ControlMode.PASSIVE))


def _settled(mode: list[list[int]], explicit: bool = False) -> SettledModes:
    m = np.array(mode, dtype=np.int8)
    return SettledModes(m, np.zeros(m.shape), np.full(m.shape[1], 5.0), explicit, engine_efforts=False)


def test_a_new_robot_runs_its_drives_and_a_flush_that_resends_records_nothing() -> None:
    changes = Changes()
    assert changes.modes_may_change and changes.bits == TARGETS | EFFORTS | MOTOR_FORCES
    changes.bits = 0
    changes.note(MOTOR_POSITIONS | TORQUE_EFFORTS)
    assert not changes.modes_may_change
    changes.note(MOTOR_FORCES)
    assert changes.modes_may_change


def test_writes_on_columns_whose_mode_holds_everywhere_keep_the_modes() -> None:
    settled = _settled([[P, T, V, Z], [P, T, P, Z]])
    assert settled.position_write(np.array([0])) == MOTOR_POSITIONS
    assert settled.position_write(np.array([0, 2])) == TARGETS  # column 2 runs a velocity motor in env 0
    assert settled.effort_write(np.array([1])) == TORQUE_EFFORTS
    assert settled.effort_write(np.array([1, 3])) == EFFORTS  # column 3 is passive: it becomes torque-driven
    assert settled.has_torque and settled.torque_block[0] == slice(1, 2)


def test_an_explicit_drive_makes_every_effort_write_run_the_drives() -> None:
    assert _settled([[T, T]], explicit=True).effort_write(np.array([0, 1])) == EFFORTS


def test_the_answer_for_a_cached_column_list_is_remembered_only_for_read_only_lists() -> None:
    settled = _settled([[P, Z]])
    kept = np.array([0])
    kept.setflags(write=False)
    assert settled.position_write(kept) == MOTOR_POSITIONS
    assert settled.position_write(np.array([1])) == TARGETS
    assert list(settled._motor_cols.values()) == [True]  # only the read-only list was remembered
