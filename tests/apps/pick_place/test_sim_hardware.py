"""The simulated arm and gripper: the hardware protocols, one environment each, the sequence's grasp check."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from simulo.apps.pick_place.cell import PickPlaceCell
from simulo.apps.pick_place.config import ARM_JOINTS, CUBE_YAW, GRASP_Z, PICK, seed_plan
from simulo.apps.pick_place.hardware import Gripper, RobotArm, run_pick_and_place
from simulo.apps.pick_place.sim_hardware import SimulatedArm, SimulatedGripper
from simulo.errors import SimuloValueError


def test_simulated_arm_and_gripper_satisfy_the_hardware_protocols(make_cell: Callable[..., PickPlaceCell]) -> None:
    cell = make_cell([PICK[:2]], [CUBE_YAW])
    try:
        assert isinstance(SimulatedArm(cell), RobotArm)
        assert isinstance(SimulatedGripper(cell), Gripper)
        joints = cell.robot.get_joint_names()
        assert [joints[i] for i in cell.arm_ids] == list(ARM_JOINTS)
        assert cell.gripper.coupled and cell.gripper.gear_ratio == -1.0
    finally:
        cell.close()


def test_adapters_need_a_one_environment_cell(make_cell: Callable[..., PickPlaceCell]) -> None:
    cell = make_cell([(0.42, -0.12), (0.40, 0.0)], [0.3, 0.0])
    try:
        with pytest.raises(SimuloValueError, match="one-environment cell, got 2 environments"):
            SimulatedArm(cell)
        with pytest.raises(SimuloValueError, match="one-environment cell, got 2 environments"):
            SimulatedGripper(cell)
    finally:
        cell.close()


def test_a_missed_grasp_stops_before_the_lift(make_cell: Callable[..., PickPlaceCell]) -> None:
    cell = make_cell([PICK[:2]], [CUBE_YAW], home=[(0.42, -0.06)])  # plans 60 mm beside the cube
    try:
        outcome = run_pick_and_place(SimulatedArm(cell), SimulatedGripper(cell), seed_plan((0.42, -0.06, 0.02)))
        assert outcome.completed == ("open", "hover", "approach", "close") and not outcome.grasped
        assert cell.tcp()[0, 2] == pytest.approx(GRASP_Z, abs=1e-3)  # never lifted
        assert cell.sim.step_count == 120 + 300 + 240
        reason = cell.grasp_failure(0)
        assert "finger gap" in reason and "contact points per finger [0, 0]" in reason
        assert reason.endswith("stopped before the lift")
    finally:
        cell.close()
