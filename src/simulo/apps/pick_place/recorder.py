"""Measurements of a pick as its phases complete, in every environment of a cell."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from simulo.apps.pick_place.cell import PickPlaceCell
from simulo.apps.pick_place.config import SLIP_THRESHOLD, TOLERANCE, Z_TOLERANCE
from simulo.apps.pick_place.results import PickResult
from simulo.math.scalar import rpy_from_quat


class PickRecorder:
    """Measures one cube in every environment of a cell as the phases complete, and judges the pick.

    Call it with each phase name once every environment has done that phase (it is an ``on_phase``
    callback of :func:`~simulo.apps.pick_place.hardware.run_pick_and_place` and of
    :func:`~simulo.apps.pick_place.experiments.trials.run_batch`). It measures after ``approach``
    (tcp error), ``close`` (finger gap, contact points) and ``lift`` (where the cube hangs, whether it
    slipped); :meth:`result` judges the cube where it ends.

    Args:
        cell: The cell.
        cube: Index of the cube measured.
        targets: Where the cube should end in each environment (N, 3), m.
    """

    def __init__(self, cell: PickPlaceCell, cube: int, targets: np.ndarray) -> None:
        self.cell = cell
        self.cube = cube
        self.targets = np.asarray(targets, dtype=np.float64)
        self.start = cell.cube_pose(cube)[:, :3].copy()
        self.values: list[dict[str, Any]] = [{} for _ in range(cell.num_envs)]
        self.grasp_height = np.zeros(cell.num_envs)

    def __call__(self, phase: str) -> None:
        """Measure what ``phase`` (just completed in every environment) is measured for."""
        cell, k = self.cell, self.cube
        if phase == "approach":
            err = np.linalg.norm(cell.tcp() - cell.target, axis=1) * 1000
            for v, e in zip(self.values, err):
                v["approach"] = float(e)
        elif phase == "close":
            gap, count, fingers = cell.finger_gap() * 1000, cell.contact_points(k), cell.finger_contacts(k)
            self.grasp_height = cell.tcp()[:, 2] - cell.cube_pose(k)[:, 2]
            for i, v in enumerate(self.values):
                v["gap"], v["contacts"] = float(gap[i]), int(count[i])
                v["fingers"] = tuple(int(c) for c in fingers[i])
        elif phase == "lift":
            offset = cell.cube_pose(k)[:, :3] - cell.tcp()
            for i, v in enumerate(self.values):
                if cell.active[i]:
                    v["below"] = float(-offset[i, 2] * 1000)
                    v["sideways"] = float(np.linalg.norm(offset[i, :2]) * 1000)
                    v["slipped"] = bool(-offset[i, 2] - self.grasp_height[i] > SLIP_THRESHOLD)

    def snapshot_tracking(self) -> None:
        """Keep this pick's tracking errors (a later pick's moves of the same name overwrite the cell's)."""
        for i, v in enumerate(self.values):
            v["tracking"] = {name: float(err[i]) for name, err in self.cell.tracking_mm.items()}

    def result(self, env: int, grasped: bool, failure: str | None) -> PickResult:
        """The pick's result in one environment, judged on the cube's pose now."""
        v = self.values[env]
        pose = self.cell.cube_pose(self.cube)[env]
        target = self.targets[env]
        xy_err = float(np.linalg.norm(pose[:2] - target[:2]))
        passed = failure is None and grasped and xy_err < TOLERANCE and abs(pose[2] - target[2]) < Z_TOLERANCE
        return PickResult(
            start_cube=tuple(self.start[env].tolist()), target=tuple(target.tolist()),
            approach_error_mm=v.get("approach"), finger_gap_mm=v.get("gap"), contact_points=v.get("contacts"),
            finger_contacts=v.get("fingers"), grasped=grasped, lift_below_mm=v.get("below"),
            lift_sideways_mm=v.get("sideways"), slipped=v.get("slipped"), tracking_mm=v.get("tracking", {}),
            final_position=tuple(pose[:3].tolist()),
            final_rpy_deg=tuple(math.degrees(a) for a in rpy_from_quat(pose[3:].tolist())),
            xy_error_mm=xy_err * 1000, passed=bool(passed), failure=failure)
