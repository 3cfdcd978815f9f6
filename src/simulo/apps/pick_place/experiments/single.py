"""The seed's run in one environment: pick the cube and place it, optionally stacking a second cube on it.

This is ``simulo pick-place`` without ``--trials`` or ``--friction-sweep``: the hardware sequence of
:func:`~simulo.apps.pick_place.hardware.run_pick_and_place` on a one-environment cell, measured phase by
phase, with the numeric solver and faster runs compared against a second, reference run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from simulo.apps.pick_place.cell import PickPlaceCell, start_cell
from simulo.apps.pick_place.config import (
    CUBE_SIZE,
    CUBE_YAW,
    DEFAULT_OPTIONS,
    HOVER_Z,
    PICK,
    PLACE,
    SECOND_CUBE,
    SECOND_CUBE_YAW,
    SETTLE_END,
    AppOptions,
    one_cube,
    seed_plan,
)
from simulo.apps.pick_place.hardware import PickPlacePlan, run_pick_and_place
from simulo.apps.pick_place.recorder import PickRecorder
from simulo.apps.pick_place.report import phase_line
from simulo.apps.pick_place.results import RunResult
from simulo.apps.pick_place.safety import BoxFixture
from simulo.apps.pick_place.sim_hardware import SimulatedArm, SimulatedGripper
from simulo.math.scalar import rpy_from_quat


def _pick(cell: PickPlaceCell, arm: SimulatedArm, gripper: SimulatedGripper, plan: PickPlacePlan, cube: int,
          on_line: Callable[[str], None] | None, prefix: str) -> tuple[PickRecorder, bool, str | None]:
    """Run the hardware sequence for one cube of a one-environment cell, measuring as it goes."""
    cell.grasp_cube = cube
    cell.tracking_mm = {}
    recorder = PickRecorder(cell, cube, np.array([plan.place]))

    def on_phase(phase: str) -> None:
        recorder(phase)
        line = phase_line(phase, recorder.values[0])
        if on_line is not None and line is not None:
            on_line(prefix + line)

    arm.move_names = [s.phase for s in plan.steps() if s.kind == "move"]
    arm.moves = 0
    outcome = run_pick_and_place(arm, gripper, plan, on_phase=on_phase)
    recorder.snapshot_tracking()
    if outcome.failure is not None:
        reason = cell.grasp_failure(0)
        cell.fail(0, reason)
        if on_line is not None:
            on_line(prefix + reason)
    return recorder, outcome.grasped, cell.failures[0]


def _cube_fixture(cell: PickPlaceCell, k: int) -> BoxFixture:
    """Cube ``k`` of environment 0, where it is now, as an obstacle for the collision check."""
    pose = cell.cube_pose(k)[0]
    yaw = rpy_from_quat(pose[3:].tolist())[2]
    return BoxFixture(f"cube {k + 1}", tuple(pose[:3].tolist()), (CUBE_SIZE / 2,) * 3, yaw)


def run_pick_place(options: AppOptions = DEFAULT_OPTIONS, on_line: Callable[[str], None] | None = None,
                   stack: bool = False, video: Any = None, track: bool = True) -> RunResult:
    """The seed's run in one environment (and, with ``stack``, a second cube placed on the first).

    The sequence is :func:`~simulo.apps.pick_place.hardware.run_pick_and_place` on a
    :class:`~simulo.apps.pick_place.sim_hardware.SimulatedArm` and
    :class:`~simulo.apps.pick_place.sim_hardware.SimulatedGripper`. While one cube is moved, the other (when
    stacking) is a fixture of the collision check.

    Args:
        options: Cell options (coupling, friction, IK solver, speed, fixtures).
        on_line: Called with each phase line as the run goes (``start``, ``approach``, ``close``, ``lift``,
            ``release``, and why a grasp failed); :func:`~simulo.apps.pick_place.report.report_lines` gives
            the summary lines.
        stack: After the first cube, pick a second one from :data:`~simulo.apps.pick_place.config.SECOND_CUBE`
            and put it on the first.
        video: A :class:`simulo.VideoWriter` that receives frames of the run (drawn headless on the CPU; the
            physics is the same with and without it).
        track: Measure each move's tcp tracking error (``PickResult.tracking_mm``); False leaves it empty and
            the physics unchanged (see :attr:`PickPlaceCell.track`).

    Returns:
        The result. With the numeric solver or a speed factor above 1, a second run is made for the
        comparison fields (see :class:`~simulo.apps.pick_place.results.RunResult`).

    Raises:
        CollisionError: A move would collide with the floor or a fixture (named in the message).
    """
    cubes = [one_cube(PICK, CUBE_YAW)] + ([one_cube(SECOND_CUBE, SECOND_CUBE_YAW)] if stack else [])
    cell = start_cell(cubes, np.array([[PICK[0], PICK[1], HOVER_Z]]), np.array([CUBE_YAW]), options, video)
    cell.track = track
    try:
        start_tcp = tuple(cell.tcp()[0].tolist())
        start_cube = tuple(cell.cube_pose(0)[0, :3].tolist())
        if on_line is not None:
            on_line(f"start: tcp at {np.round(np.asarray(start_tcp), 4)}, "
                    f"cube at {np.round(np.asarray(start_cube), 4)}")
        arm, gripper = SimulatedArm(cell), SimulatedGripper(cell)
        plans = [seed_plan(speed=options.speed)]
        if stack:
            top = (PLACE[0], PLACE[1], PLACE[2] + CUBE_SIZE)
            plans.append(seed_plan(SECOND_CUBE, top, SECOND_CUBE_YAW, speed=options.speed))
        done = []
        for k, plan in enumerate(plans):
            if not cell.active[0]:
                break
            cell.obstacles[0] = [_cube_fixture(cell, j) for j in range(len(cubes)) if j != k]
            done.append(_pick(cell, arm, gripper, plan, k, on_line, "stack: " if k else ""))
        cell.hold(cell.settle_steps(SETTLE_END))
        picks = tuple(rec.result(0, grasped, failure) for rec, grasped, failure in done)
        steps, sim_time = cell.sim.step_count, cell.sim.time
    finally:
        cell.close()
    ik_comparison: dict[str, float] = {}
    if options.ik == "numeric":
        reference = run_pick_place(replace(options, ik="closed-form"))
        ik_comparison = {"closed-form": reference.picks[0].approach_error_mm or 0.0,
                         "numeric": picks[0].approach_error_mm or 0.0}
    seed_gain: dict[str, float] = {}
    if options.speed > 1.0 and options.compensate_gain:
        seed_gain = run_pick_place(replace(options, compensate_gain=False, ik="closed-form")).picks[0].tracking_mm
    return RunResult(start_tcp=start_tcp, start_cube=start_cube, picks=picks,
                     passed=len(picks) == len(cubes) and all(p.passed for p in picks), steps=steps,
                     sim_time=sim_time, options=options, ik_comparison_mm=ik_comparison,
                     seed_gain_tracking_mm=seed_gain)
