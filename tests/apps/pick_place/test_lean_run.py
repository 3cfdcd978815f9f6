"""The flagship's lean path: targets solved per move, tracking only when reported, imports only what it uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from simulo.apps.pick_place.cell import PickPlaceCell
from simulo.apps.pick_place.experiments.single import run_pick_place


def test_a_moves_targets_solved_at_once_are_the_step_by_step_ones(make_cell: Callable[..., PickPlaceCell]) -> None:
    cell = make_cell([(0.42, -0.12), (0.40, 0.05)], [0.3, 1.4])
    try:
        rng = np.random.default_rng(3)
        points = cell.target + rng.uniform(-0.05, 0.05, size=(40, 2, 3)).cumsum(axis=0) / 10
        yaws = np.array([0.3, 1.4])
        roll = cell.control.roll.copy()
        stepped = np.array([cell.control.targets(p, yaws) for p in points])
        cell.control.roll = roll
        at_once = cell.control.path_targets(points, yaws)
        assert at_once.shape == (40, 2, 5)
        assert np.array_equal(at_once, stepped)
        assert np.array_equal(cell.control.roll, stepped[-1, :, 4])
    finally:
        cell.close()


def test_a_run_without_tracking_has_the_same_physics_and_no_tracking_error() -> None:
    tracked, untracked = run_pick_place(), run_pick_place(track=False)
    assert untracked.picks[0].tracking_mm == {}
    assert set(tracked.picks[0].tracking_mm) == {"approach", "lift", "transfer", "lower", "retreat"}
    assert untracked.picks[0].final_position == tracked.picks[0].final_position
    assert untracked.picks[0].final_rpy_deg == tracked.picks[0].final_rpy_deg
    assert untracked.steps == tracked.steps == 2580


def test_the_flagship_imports_neither_the_urdf_preparer_nor_json_nor_argparse_nor_xml_nor_pathlib(
        tmp_path: Path) -> None:
    code = ("import contextlib, io, sys\n"
            "from simulo.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    status = main(['pick-place'])\n"
            "print(status, sorted(m for m in sys.modules if m in NAMES))\n")
    names = ["json", "hashlib", "simulo.authoring.engine_urdf", "simulo.authoring.meshes",
             "simulo.authoring.catalog.organisation", "argparse", "gettext", "locale", "pkgutil",
             "simulo.cli.pick_place_flags", "simulo.authoring.urdf", "simulo.authoring.urdf_joints",
             "xml.etree.ElementTree", "defusedxml", "simulo.authoring.urdf_xml", "pyexpat",
             "simulo.engine.pybullet.grasp", "simulo.apps.pick_place.numeric_ik", "simulo._optional",
             "pathlib", "urllib.parse", "ipaddress"]
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # a fresh store of checked URDFs
    runs = [subprocess.run([sys.executable, "-c", f"NAMES = {names!r}\n" + code], capture_output=True, text=True,
                           check=True, timeout=300, env=env).stdout for _ in range(2)]
    # the arm's file checked (parsed), then its stored summary used: the engine takes its order from the summary
    checker = ["ipaddress", "pathlib", "pyexpat", "simulo.authoring.urdf", "simulo.authoring.urdf_joints",
               "simulo.authoring.urdf_xml", "urllib.parse"]
    assert runs[0] == f"0 {checker}\n"
    assert runs[1] == "0 []\n"


def test_the_json_output_still_carries_the_tracking_error() -> None:
    done = subprocess.run([sys.executable, "-m", "simulo.cli.main", "pick-place", "--json"], capture_output=True,
                          text=True, check=True, timeout=300)
    tracking = json.loads(done.stdout)["picks"][0]["tracking_mm"]
    assert set(tracking) == {"approach", "lift", "transfer", "lower", "retreat"}
    assert all(0.0 < v < 10.0 for v in tracking.values())
