"""Collision check of planned tcp moves against the floor and box fixtures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulo.apps.pick_place.safety import DEFAULT_CLEARANCE, BoxFixture, check_path
from simulo.errors import CollisionError, NonFiniteError, ShapeError, SimuloValueError

HOVER, GRASP = 0.15, 0.03
PICK, PLACE = (0.42, -0.12), (0.25, 0.35)
SEED_MOVES = [
    ("approach", (*PICK, HOVER), (*PICK, GRASP)),
    ("lift", (*PICK, GRASP), (*PICK, HOVER)),
    ("transfer", (*PICK, HOVER), (*PLACE, HOVER)),
    ("lower", (*PLACE, HOVER), (*PLACE, GRASP + 0.005)),
    ("retreat", (*PLACE, GRASP + 0.005), (*PLACE, HOVER)),
]


def test_default_clearance_lets_the_seed_grasp_pass() -> None:
    assert DEFAULT_CLEARANCE < 0.005
    for name, start, goal in SEED_MOVES:
        check_path(name, start, goal, [])


def test_move_to_the_floor_is_refused_naming_the_move() -> None:
    with pytest.raises(CollisionError, match=r"move 'approach'.*floor") as info:
        check_path("approach", (*PICK, HOVER), (*PICK, 0.0), [])
    assert "z=-0.0250" in str(info.value)


def test_floor_clearance_boundary() -> None:
    # finger tips 0.025 m below the tcp: tcp z 0.029 puts them 4 mm above the floor (passes at 3 mm clearance)
    check_path("low", (0.4, 0.0, 0.1), (0.4, 0.0, 0.029), [])
    with pytest.raises(CollisionError):
        check_path("low", (0.4, 0.0, 0.1), (0.4, 0.0, 0.027), [])
    with pytest.raises(CollisionError):
        check_path("low", (0.4, 0.0, 0.1), (0.4, 0.0, 0.029), [], clearance=0.005)
    check_path("raised floor", (0.4, 0.0, 0.2), (0.4, 0.0, 0.15), [], floor_z=0.1)
    with pytest.raises(CollisionError, match="floor at z=0.1000"):
        check_path("raised floor", (0.4, 0.0, 0.2), (0.4, 0.0, 0.12), [], floor_z=0.1)


def test_transfer_through_a_wall_is_refused_and_around_it_passes() -> None:
    wall = BoxFixture("wall", center=(0.35, 0.1, 0.1), half_extents=(0.2, 0.01, 0.1))
    with pytest.raises(CollisionError, match=r"move 'transfer'.*fixture 'wall'"):
        check_path("transfer", (*PICK, HOVER), (*PLACE, HOVER), [wall])
    # the wall's top is at 0.2 m: with the tcp at 0.24 the finger tips pass 15 mm above it
    check_path("transfer", (*PICK, 0.24), (*PLACE, 0.24), [wall])
    # with the tcp at 0.226 the tips pass 1 mm above the top, inside the 3 mm clearance
    with pytest.raises(CollisionError):
        check_path("transfer", (*PICK, 0.226), (*PLACE, 0.226), [wall])


def test_fingers_below_tcp_are_part_of_the_swept_volume() -> None:
    table = BoxFixture("table", center=(0.4, 0.0, 0.05), half_extents=(0.1, 0.1, 0.05))  # top at 0.1
    # tcp stays above the table top, but the finger tips (tcp - 0.025) would dig in
    with pytest.raises(CollisionError, match="table"):
        check_path("skim", (0.2, 0.0, 0.11), (0.6, 0.0, 0.11), [table])
    check_path("skim", (0.2, 0.0, 0.13), (0.6, 0.0, 0.13), [table])


def test_yawed_box_is_checked_in_its_own_frame() -> None:
    # a thin board 0.3 m long along x, turned 90 degrees: it now lies along y at x = 0.3
    board = BoxFixture("board", center=(0.3, 0.0, 0.1), half_extents=(0.15, 0.01, 0.1), yaw=math.pi / 2)
    with pytest.raises(CollisionError, match="board"):
        check_path("cross", (0.3, -0.3, 0.15), (0.3, 0.3, 0.15), [board])  # along the board
    check_path("beside", (0.35, -0.3, 0.15), (0.35, 0.3, 0.15), [board])  # 5 cm beside it
    unturned = BoxFixture("board", center=(0.3, 0.0, 0.1), half_extents=(0.15, 0.01, 0.1))
    check_path("cross", (0.3, -0.3, 0.3), (0.3, 0.3, 0.3), [unturned])
    with pytest.raises(CollisionError):
        check_path("beside", (0.35, -0.3, 0.15), (0.35, 0.3, 0.15), [unturned])


def test_clearance_inflates_boxes() -> None:
    box = BoxFixture("box", center=(0.4, 0.0, 0.05), half_extents=(0.05, 0.05, 0.05))
    path = ((0.2, 0.06, 0.08), (0.6, 0.06, 0.08))  # passes 1 cm beside the box's +y face
    check_path("side", *path, [box], clearance=0.005)
    with pytest.raises(CollisionError):
        check_path("side", *path, [box], clearance=0.02)


def test_stationary_point_inside_a_box() -> None:
    box = BoxFixture("box", center=(0.4, 0.0, 0.2), half_extents=(0.05, 0.05, 0.05))
    with pytest.raises(CollisionError):
        check_path("hold", (0.4, 0.0, 0.2), (0.4, 0.0, 0.2), [box])


def test_bad_inputs() -> None:
    with pytest.raises(ShapeError):
        check_path("m", (0.0, 0.0), (0.0, 0.0, 0.1), [])
    with pytest.raises(NonFiniteError):
        check_path("m", (0.0, 0.0, np.nan), (0.0, 0.0, 0.1), [])
    with pytest.raises(SimuloValueError, match="clearance"):
        check_path("m", (0.4, 0.0, 0.1), (0.4, 0.0, 0.1), [], clearance=-1.0)
    with pytest.raises(SimuloValueError, match="BoxFixture"):
        check_path("m", (0.4, 0.0, 0.1), (0.4, 0.0, 0.1), [("box", (0, 0, 0))])  # type: ignore[list-item]
    with pytest.raises(SimuloValueError, match="half_extents"):
        BoxFixture("flat", center=(0, 0, 0), half_extents=(0.1, 0.0, 0.1))
    with pytest.raises(SimuloValueError, match="center"):
        BoxFixture("bad", center=(0, 0), half_extents=(0.1, 0.1, 0.1))
