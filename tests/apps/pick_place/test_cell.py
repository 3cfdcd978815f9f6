"""The simulated cell: moves refused before anything moves, per-environment failures, a continuous wrist."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from simulo.apps.pick_place.cell import PickPlaceCell
from simulo.apps.pick_place.config import CUBE_YAW, GRIP_FORCE, HOVER_Z, PICK
from simulo.apps.pick_place.safety import BoxFixture
from simulo.errors import SimuloValueError, UnreachableError


def test_a_refused_move_fails_only_its_environment_in_a_batch(make_cell: Callable[..., PickPlaceCell]) -> None:
    cell = make_cell([(0.42, -0.12), (0.40, 0.05)], [0.3, 0.1])
    try:
        cell.obstacles[1] = [BoxFixture("post", (0.40, 0.05, 0.05), (0.03, 0.03, 0.05))]
        cell.grip(0.0, GRIP_FORCE)
        goals = np.array([[0.42, -0.12, 0.1], [0.40, 0.05, 0.1]])
        cell.move("approach", goals, np.array([0.3, 0.1]), np.array([0.12, 0.12]), on_collision="fail")
        assert cell.active.tolist() == [True, False]
        assert "move 'approach' refused" in cell.failures[1] and "'post'" in cell.failures[1]
        assert cell.target[0] == pytest.approx([0.42, -0.12, 0.1])
        assert cell.target[1] == pytest.approx([0.40, 0.05, HOVER_Z])
        assert cell.gripper_open.tolist() == [False, False]  # a refused move does not open (drop) the gripper
    finally:
        cell.close()


def test_an_unreachable_move_is_refused_before_anything_moves(make_cell: Callable[..., PickPlaceCell]) -> None:
    cell = make_cell([PICK[:2]], [CUBE_YAW])
    try:
        before = cell.sim.step_count
        with pytest.raises(UnreachableError, match="move 'far' refused: .* out of reach"):
            cell.move("far", np.array([[0.9, 0.0, 0.15]]), np.array([0.0]), np.array([0.1]))
        with pytest.raises(SimuloValueError, match="speeds must be finite numbers > 0"):
            cell.move("slow", np.array([[0.4, 0.0, 0.15]]), np.array([0.0]), np.array([0.0]))
        with pytest.raises(SimuloValueError, match=r"goals \(N, 3\)"):
            cell.move("bad", np.zeros((1, 2)), np.array([0.0]), np.array([0.1]))
        assert cell.sim.step_count == before
    finally:
        cell.close()


def test_wrist_roll_stays_continuous_across_the_wrap(make_cell: Callable[..., PickPlaceCell]) -> None:
    """A transfer whose roll crosses +45 degrees must not flip the wrist a quarter turn mid-move."""
    x, y, yaw = 0.3416, -0.0374, 0.0192
    cell = make_cell([(x, y)], [yaw])
    try:
        cell.move("transfer", np.array([[0.25, 0.35, HOVER_Z]]), np.array([yaw]), np.array([0.25]))
        roll = cell.robot.state.joint_positions[0, cell.arm_ids[4]]
        assert roll == pytest.approx(math.atan2(0.35, 0.25) - yaw, abs=2e-3)  # beyond the +-45 degree wrap
        assert roll > math.pi / 4
    finally:
        cell.close()
