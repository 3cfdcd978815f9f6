"""The pick-and-place app's simulated cell, hardware adapters, batched runner and experiments (API level)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from simulo.apps.pick_place import app
from simulo.apps.pick_place.app import (
    AppOptions,
    CubeStart,
    PickPlaceCell,
    SimulatedArm,
    SimulatedGripper,
    run_batch,
    run_pick_place,
    run_trials,
    sample_trials,
    seed_plan,
    start_cell,
)
from simulo.apps.pick_place.hardware import Gripper, RobotArm, run_pick_and_place
from simulo.apps.pick_place.safety import BoxFixture
from simulo.errors import CollisionError, SimuloValueError, UnreachableError

SEED_X = 0.25055941223492234  # where the seed program lands the cube (pybullet 3.2.7)


def _cell(xy: list[tuple[float, float]], yaw: list[float], home: list[tuple[float, float]] | None = None,
          options: AppOptions = AppOptions()) -> PickPlaceCell:
    home_xy = np.array(home if home is not None else xy, dtype=float)
    start = np.column_stack([home_xy, np.full(len(home_xy), app.HOVER_Z)])
    return start_cell([CubeStart(np.array(xy, dtype=float), np.array(yaw, dtype=float))], start,
                      np.array(yaw, dtype=float), options)


def test_app_modules_use_the_contract_only() -> None:
    """No engine import in the app, its CLI or its sample; the catalog arm and name lookups are used."""
    root = Path(app.__file__).resolve().parents[4]
    for path in (Path(app.__file__), root / "src/simulo/cli/pick_place.py", root / "samples/pick_place.py",
                 Path(app.__file__).with_name("numeric_ik.py")):
        tree = ast.parse(path.read_text())
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not any(name.startswith(("pybullet", "simulo.engine")) for name in imported), path
    source = Path(app.__file__).read_text()
    assert "simulo/robot/pick_arm:v1" in source and "find_joints" in source


def test_simulated_arm_and_gripper_satisfy_the_hardware_protocols() -> None:
    cell = _cell([app.PICK[:2]], [app.CUBE_YAW])
    try:
        assert isinstance(SimulatedArm(cell), RobotArm)
        assert isinstance(SimulatedGripper(cell), Gripper)
        joints = cell.robot.get_joint_names()
        assert [joints[i] for i in cell.arm_ids] == list(app.ARM_JOINTS)
        assert cell.gripper.coupled and cell.gripper.gear_ratio == -1.0
    finally:
        cell.close()


def test_adapters_need_a_one_environment_cell() -> None:
    cell = _cell([(0.42, -0.12), (0.40, 0.0)], [0.3, 0.0])
    try:
        with pytest.raises(SimuloValueError, match="one-environment cell, got 2 environments"):
            SimulatedArm(cell)
        with pytest.raises(SimuloValueError, match="one-environment cell, got 2 environments"):
            SimulatedGripper(cell)
    finally:
        cell.close()


def test_batched_runner_with_one_environment_matches_the_hardware_sequence_bit_for_bit() -> None:
    cell = _cell([app.PICK[:2]], [app.CUBE_YAW])
    try:
        grasped = run_batch(cell, [seed_plan()])
        cell.hold(app.SETTLE_END)
        assert grasped.tolist() == [True]
        assert cell.cube_pose(0)[0, 0] == SEED_X
        assert cell.sim.step_count == 2580
    finally:
        cell.close()


def test_a_missed_grasp_stops_before_the_lift() -> None:
    cell = _cell([app.PICK[:2]], [app.CUBE_YAW], home=[(0.42, -0.06)])  # plans 60 mm beside the cube
    try:
        outcome = run_pick_and_place(SimulatedArm(cell), SimulatedGripper(cell), seed_plan((0.42, -0.06, 0.02)))
        assert outcome.completed == ("open", "hover", "approach", "close") and not outcome.grasped
        assert cell.tcp()[0, 2] == pytest.approx(app.GRASP_Z, abs=1e-3)  # never lifted
        assert cell.sim.step_count == 120 + 300 + 240
        reason = cell.grasp_failure(0)
        assert "finger gap" in reason and "contact points per finger [0, 0]" in reason
        assert reason.endswith("stopped before the lift")
    finally:
        cell.close()


def test_batched_grasp_check_is_per_environment() -> None:
    """Environment 1 plans beside its cube: it fails alone, holds still and opens; environment 0 goes on."""
    cell = _cell([(0.42, -0.12), (0.40, 0.05)], [0.3, 0.1], home=[(0.42, -0.12), (0.40, 0.11)])
    try:
        plans = [seed_plan((0.42, -0.12, 0.02), yaw=0.3), seed_plan((0.40, 0.11, 0.02), yaw=0.1)]
        grasped = run_batch(cell, plans)
        assert grasped.tolist() == [True, False]
        assert cell.active.tolist() == [True, False]
        assert cell.failures[0] is None and cell.failures[1].startswith("grasp failed")
        tcp = cell.tcp()
        assert tcp[1] == pytest.approx([0.40, 0.11, app.GRASP_Z], abs=1e-3)  # stayed where it grasped
        assert tcp[0] == pytest.approx([0.25, 0.35, app.HOVER_Z], abs=1e-3)  # retreated above the place
        assert cell.gripper_open.tolist() == [True, True]
        assert np.linalg.norm(cell.cube_pose(0)[0, :2] - [0.25, 0.35]) < 0.01
    finally:
        cell.close()


def test_collision_check_refuses_the_named_move() -> None:
    wall = BoxFixture("wall", (0.335, 0.115, 0.1), (0.02, 0.02, 0.1))
    with pytest.raises(CollisionError, match=r"move 'transfer' from \(0\.4200, -0\.1200, 0\.1500\) .* 'wall'"):
        run_pick_place(AppOptions(fixtures=(wall,)))


def test_a_refused_move_fails_only_its_environment_in_a_batch() -> None:
    cell = _cell([(0.42, -0.12), (0.40, 0.05)], [0.3, 0.1])
    try:
        cell.obstacles[1] = [BoxFixture("post", (0.40, 0.05, 0.05), (0.03, 0.03, 0.05))]
        cell.grip(0.0, app.GRIP_FORCE)
        goals = np.array([[0.42, -0.12, 0.1], [0.40, 0.05, 0.1]])
        cell.move("approach", goals, np.array([0.3, 0.1]), np.array([0.12, 0.12]), on_collision="fail")
        assert cell.active.tolist() == [True, False]
        assert "move 'approach' refused" in cell.failures[1] and "'post'" in cell.failures[1]
        assert cell.target[0] == pytest.approx([0.42, -0.12, 0.1])
        assert cell.target[1] == pytest.approx([0.40, 0.05, app.HOVER_Z])
        assert cell.gripper_open.tolist() == [False, False]  # a refused move does not open (drop) the gripper
    finally:
        cell.close()


def test_an_unreachable_move_is_refused_before_anything_moves() -> None:
    cell = _cell([app.PICK[:2]], [app.CUBE_YAW])
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


def test_wrist_roll_stays_continuous_across_the_wrap() -> None:
    """A transfer whose roll crosses +45 degrees must not flip the wrist a quarter turn mid-move."""
    x, y, yaw = 0.3416, -0.0374, 0.0192
    cell = _cell([(x, y)], [yaw])
    try:
        cell.move("transfer", np.array([[0.25, 0.35, app.HOVER_Z]]), np.array([yaw]), np.array([0.25]))
        roll = cell.robot.state.joint_positions[0, cell.arm_ids[4]]
        assert roll == pytest.approx(math.atan2(0.35, 0.25) - yaw, abs=2e-3)  # beyond the +-45 degree wrap
        assert roll > math.pi / 4
    finally:
        cell.close()


def test_options_are_validated() -> None:
    with pytest.raises(SimuloValueError, match="friction must be a finite number >= 0, got -1"):
        AppOptions(friction=-1)
    with pytest.raises(SimuloValueError, match="ik must be 'closed-form' or 'numeric', got 'pybullet'"):
        AppOptions(ik="pybullet")  # type: ignore[arg-type]
    with pytest.raises(SimuloValueError, match="speed must be a number between 0.1 and 8"):
        AppOptions(speed=0)
    with pytest.raises(SimuloValueError, match="fixtures must be BoxFixture values"):
        AppOptions(fixtures=((0, 0, 0),))  # type: ignore[arg-type]
    assert AppOptions(speed=2).position_gain == pytest.approx(0.6)
    assert AppOptions(speed=5).position_gain == 1.0
    assert AppOptions(speed=2, compensate_gain=False).position_gain == 0.3
    assert AppOptions(speed=0.5).position_gain == 0.3


def test_seed_plan_gives_the_seed_durations() -> None:
    """distance / speed, rounded up to quarter seconds: the seed's 1, 1, 2, 1, 1 s (hover: already there)."""
    plan = seed_plan()
    assert plan.place_z == 0.03 + 0.005  # the seed's GRASP_Z + 0.005, same float
    assert plan.descend_speed <= plan.lift_speed < plan.travel_speed
    here, seconds = (0.42, -0.12, app.HOVER_Z), {}
    for step in plan.steps():
        if step.kind == "move":
            ratio = math.dist(here, step.target) / step.speed / app.MOVE_QUANTUM
            seconds[step.phase] = math.ceil(ratio - 1e-9) * app.MOVE_QUANTUM
            here = step.target
    assert seconds == {"hover": 0.0, "approach": 1.0, "lift": 1.0, "transfer": 2.0, "lower": 1.0, "retreat": 1.0}


def test_sample_trials_are_seeded_reachable_and_noise_leaves_starts_alone() -> None:
    true, est = sample_trials(200, 7)
    again, noisy = sample_trials(200, 7, noise_mm=3, noise_deg=2)
    np.testing.assert_array_equal(true, again)
    np.testing.assert_array_equal(true, est)
    r = np.hypot(true[:, 0], true[:, 1])
    bearing = np.arctan2(true[:, 1], true[:, 0])
    assert r.min() >= 0.30 and r.max() <= 0.50
    assert bearing.min() >= -math.pi / 3 and bearing.max() <= math.pi / 9
    assert np.abs(true[:, 2]).max() <= math.pi / 4
    offsets = (noisy - true)
    assert np.std(offsets[:, :2]) == pytest.approx(0.003, rel=0.15)
    assert np.degrees(np.std(offsets[:, 2])) == pytest.approx(2.0, rel=0.15)
    assert not np.array_equal(sample_trials(5, 8)[0], sample_trials(5, 7)[0])
    np.testing.assert_array_equal(sample_trials(5, 7, 3, 2)[1], noisy[:5])  # trial i does not depend on N
    with pytest.raises(SimuloValueError, match="number of trials must be an integer >= 1, got 0"):
        sample_trials(0, 1)
    with pytest.raises(SimuloValueError, match="seed must be an integer >= 0, got -1"):
        sample_trials(3, -1)
    with pytest.raises(SimuloValueError, match="noise_mm must be a finite number >= 0"):
        sample_trials(3, 1, noise_mm=float("nan"))


def test_trials_are_deterministic_and_judged_on_the_true_cube() -> None:
    first = run_trials(3, 5, noise_mm=3, noise_deg=2)
    second = run_trials(3, 5, noise_mm=3, noise_deg=2)
    assert first.to_json() == second.to_json()
    assert first.passed == sum(p.passed for p in first.picks) == 3
    for start, pick in zip(first.starts, first.picks):
        assert pick.start_cube[:2] == pytest.approx(start[:2], abs=1e-3)
        assert pick.target == (0.25, 0.35, 0.02)
        assert pick.grasped and pick.failure is None and pick.slipped is False


def test_friction_sweep_rejects_a_grid_that_does_not_bracket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app, "lift_slips", lambda mu, options: (False, 0.0))
    with pytest.raises(SimuloValueError, match="must start with a friction that slips"):
        app.friction_sweep(grid=(0.1, 0.2))
    with pytest.raises(SimuloValueError, match="grid must be ascending"):
        app.friction_sweep(grid=(0.2, 0.1))


def test_friction_sweep_bisects_between_slip_and_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app, "lift_slips", lambda mu, options: (mu < 0.1234, 100.0 if mu < 0.1234 else 0.0))
    result = app.friction_sweep(grid=(0.05, 0.1, 0.2), resolution=0.001)
    assert result.slip_below == pytest.approx(0.1234, abs=0.001)
    assert result.contact_friction == pytest.approx(result.slip_below**2)
    assert [s[0] for s in result.samples[:3]] == [0.05, 0.1, 0.2]
