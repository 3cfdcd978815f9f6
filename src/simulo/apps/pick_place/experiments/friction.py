"""The friction sweep: the friction below which the cube slips out of the grasp during the lift.

``simulo pick-place --friction-sweep`` bisects the seed's approach, close and lift over the friction of
the cube and the fingers, and sets the threshold beside Coulomb's estimate for two fingers squeezing
with 20 N each.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from simulo.apps.pick_place.cell import start_cell
from simulo.apps.pick_place.config import (
    CUBE_MASS,
    CUBE_YAW,
    DEFAULT_OPTIONS,
    GRASP_Z,
    GRAVITY,
    GRIP_FORCE,
    HOVER_Z,
    MOVE_QUANTUM,
    PICK,
    SLIP_THRESHOLD,
    AppOptions,
    one_cube,
    seed_plan,
)
from simulo.apps.pick_place.results import SweepResult
from simulo.errors import SimuloValueError


def lift_slips(friction: float, options: AppOptions = DEFAULT_OPTIONS) -> tuple[bool, float]:
    """Run the seed's approach, close and lift at one friction coefficient (cube and fingers); report slip.

    Args:
        friction: Lateral friction coefficient of the cube and both fingers.
        options: Cell options (their ``friction`` is replaced by ``friction``).

    Returns:
        ``(slipped, sink_mm)``: how far the cube sank relative to the tcp during the lift, and whether that
        is more than :data:`~simulo.apps.pick_place.config.SLIP_THRESHOLD`. A cube that was not held at all
        sinks the whole lift.
    """
    opts = replace(options, friction=friction)
    above = np.array([[PICK[0], PICK[1], HOVER_Z]])
    cell = start_cell([one_cube(PICK, CUBE_YAW)], above, np.array([CUBE_YAW]), opts)
    try:
        plan = seed_plan(speed=opts.speed)
        yaw = np.array([CUBE_YAW])
        cell.move("approach", np.array([[PICK[0], PICK[1], GRASP_Z]]), yaw, np.array([plan.descend_speed]))
        cell.grip(0.0, GRIP_FORCE)
        before = cell.tcp()[0, 2] - cell.cube_pose(0)[0, 2]
        cell.move("lift", above, yaw, np.array([plan.lift_speed]))
        sink = (cell.tcp()[0, 2] - cell.cube_pose(0)[0, 2]) - before
        return bool(sink > SLIP_THRESHOLD), float(sink * 1000)
    finally:
        cell.close()


def friction_sweep(options: AppOptions = DEFAULT_OPTIONS, grid: Sequence[float] = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0),
                   resolution: float = 0.001, on_sample: Callable[[float, bool, float], None] | None = None
                   ) -> SweepResult:
    """Find the friction coefficient (cube and fingers alike) below which the cube slips during the lift.

    Runs :func:`lift_slips` over ``grid``, then bisects between the highest slipping and the lowest
    holding value until the bracket is narrower than ``resolution``.

    Args:
        options: Cell options (``friction`` is overridden by the sweep).
        grid: Frictions to try first, ascending; the first should slip and the last hold.
        resolution: Width of the final bracket.
        on_sample: Called with ``(friction, slipped, sink_mm)`` after every run.

    Returns:
        The samples, the measured threshold and the Coulomb estimate.

    Raises:
        SimuloValueError: The grid is not ascending, or no value slips or none holds.
    """
    values = [float(g) for g in grid]
    if not values or any(b <= a for a, b in itertools.pairwise(values)) or values[0] < 0:
        raise SimuloValueError(f"grid must be ascending frictions >= 0, got {list(grid)!r}")
    samples: list[tuple[float, bool, float]] = []

    def sample(mu: float) -> bool:
        slipped, sink = lift_slips(mu, options)
        samples.append((mu, slipped, sink))
        if on_sample is not None:
            on_sample(mu, slipped, sink)
        return slipped

    outcomes = [sample(mu) for mu in values]
    holds = [mu for mu, slipped in zip(values, outcomes) if not slipped]
    if not holds or all(not s for s in outcomes) or holds[0] == values[0]:
        raise SimuloValueError(f"the grid {values} must start with a friction that slips and end with one that "
                               f"holds; slipped: {outcomes}")
    hi = holds[0]
    lo = max(mu for mu, slipped in zip(values, outcomes) if slipped and mu < hi)
    while hi - lo > resolution:
        mid = round((lo + hi) / 2, 6)
        if sample(mid):
            lo = mid
        else:
            hi = mid
    threshold = round((lo + hi) / 2, 4)
    plan = seed_plan(speed=options.speed)
    lift_time = math.ceil((HOVER_Z - GRASP_Z) / plan.lift_speed / (MOVE_QUANTUM / options.speed) - 1e-9) \
        * MOVE_QUANTUM / options.speed
    peak_accel = 6 * (HOVER_Z - GRASP_Z) / lift_time**2
    return SweepResult(samples=tuple(samples), slip_below=threshold, contact_friction=threshold * threshold,
                       coulomb_estimate=CUBE_MASS * GRAVITY / (2 * GRIP_FORCE),
                       coulomb_lift_estimate=CUBE_MASS * (GRAVITY + peak_accel) / (2 * GRIP_FORCE),
                       grip_force=GRIP_FORCE)
