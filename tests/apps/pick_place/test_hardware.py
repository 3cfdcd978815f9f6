"""The pick-and-place sequence against a fake driver that records its calls."""

from __future__ import annotations

import itertools

import pytest

from simulo.apps.pick_place.hardware import (
    Gripper,
    PickPlaceOutcome,
    PickPlacePlan,
    RobotArm,
    run_pick_and_place,
)
from simulo.errors import SimuloValueError

Call = tuple


class FakeArm:
    def __init__(self, log: list[Call]) -> None:
        self.log = log

    def move_linear(self, x: float, y: float, z: float, yaw: float, speed: float) -> None:
        self.log.append(("move_linear", x, y, z, yaw, speed))


class FakeGripper:
    def __init__(self, log: list[Call], holds: bool) -> None:
        self.log = log
        self.holds = holds

    def open(self) -> None:
        self.log.append(("open",))

    def close(self, force: float) -> None:
        self.log.append(("close", force))

    def holding_object(self) -> bool:
        self.log.append(("holding_object",))
        return self.holds


SEED_PLAN = PickPlacePlan(pick=(0.42, -0.12, 0.02), place=(0.25, 0.35, 0.02), yaw=0.3)


def _run(holds: bool) -> tuple[list[Call], list[str], PickPlaceOutcome]:
    log: list[Call] = []
    phases: list[str] = []
    outcome = run_pick_and_place(FakeArm(log), FakeGripper(log, holds), SEED_PLAN, on_phase=phases.append)
    return log, phases, outcome


def test_fakes_satisfy_the_protocols() -> None:
    log: list[Call] = []
    assert isinstance(FakeArm(log), RobotArm)
    assert isinstance(FakeGripper(log, True), Gripper)
    assert not isinstance(FakeArm(log), Gripper)


def test_full_sequence_records_the_seed_calls() -> None:
    log, phases, outcome = _run(holds=True)
    assert log == [
        ("open",),
        ("move_linear", 0.42, -0.12, 0.15, 0.3, 0.1),
        ("move_linear", 0.42, -0.12, 0.03, 0.3, 0.02),
        ("close", 20.0),
        ("holding_object",),
        ("move_linear", 0.42, -0.12, 0.15, 0.3, 0.05),
        ("move_linear", 0.25, 0.35, 0.15, 0.3, 0.1),
        ("move_linear", 0.25, 0.35, 0.03 + 0.005, 0.3, 0.02),
        ("open",),
        ("move_linear", 0.25, 0.35, 0.15, 0.3, 0.05),
    ]
    assert phases == ["open", "hover", "approach", "close", "lift", "transfer", "lower", "release", "retreat"]
    assert outcome == PickPlaceOutcome(completed=tuple(phases), grasped=True, failure=None)
    assert outcome.ok


def test_vertical_moves_are_slower_than_horizontal_ones() -> None:
    log, _, _ = _run(holds=True)
    moves = [c for c in log if c[0] == "move_linear"]
    vertical, horizontal = [], []
    for before, after in itertools.pairwise(moves):
        (vertical if before[1:3] == after[1:3] else horizontal).append(after[5])
    assert len(vertical) == 4 and len(horizontal) == 1
    assert max(vertical) < min(horizontal)
    # towards contact slower still
    assert moves[1][5] < moves[3][5]


def test_failed_grasp_stops_before_any_lift() -> None:
    log, phases, outcome = _run(holds=False)
    assert log == [
        ("open",),
        ("move_linear", 0.42, -0.12, 0.15, 0.3, 0.1),
        ("move_linear", 0.42, -0.12, 0.03, 0.3, 0.02),
        ("close", 20.0),
        ("holding_object",),
    ]
    assert phases == ["open", "hover", "approach", "close"]
    assert not outcome.ok and not outcome.grasped
    assert outcome.completed == ("open", "hover", "approach", "close")
    assert "grasp failed" in outcome.failure and "before the lift" in outcome.failure  # type: ignore[operator]


def test_driver_errors_propagate_and_stop_the_sequence() -> None:
    class FaultyArm(FakeArm):
        def move_linear(self, x: float, y: float, z: float, yaw: float, speed: float) -> None:
            super().move_linear(x, y, z, yaw, speed)
            if z < 0.1:
                raise RuntimeError("protective stop")

    log: list[Call] = []
    with pytest.raises(RuntimeError, match="protective stop"):
        run_pick_and_place(FaultyArm(log), FakeGripper(log, True), SEED_PLAN)
    assert [c[0] for c in log] == ["open", "move_linear", "move_linear"]


def test_stacking_places_higher_by_the_height_difference() -> None:
    plan = PickPlacePlan(pick=(0.42, -0.12, 0.02), place=(0.25, 0.35, 0.06), yaw=0.0)
    assert plan.place_z == pytest.approx(0.03 + 0.04 + 0.005)
    assert SEED_PLAN.place_z == 0.03 + 0.005


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"descend_speed": 0.2}, "slower near contact"),
        ({"lift_speed": 0.1}, "slower near contact"),
        ({"grip_force": 0.0}, "grip_force"),
        ({"hover_z": 0.02}, "hover_z"),
        ({"pick": (0.4, 0.0)}, "pick"),
        ({"yaw": float("nan")}, "yaw"),
    ],
)
def test_bad_plans_are_rejected(kwargs: dict, match: str) -> None:
    base = {"pick": (0.42, -0.12, 0.02), "place": (0.25, 0.35, 0.02), "yaw": 0.3}
    with pytest.raises(SimuloValueError, match=match):
        PickPlacePlan(**{**base, **kwargs})
