"""What the pick-and-place experiments return: frozen records of every number, ready for JSON.

:class:`PickResult` is one cube in one environment; :class:`RunResult` is the single run
(:func:`~simulo.apps.pick_place.experiments.single.run_pick_place`), :class:`TrialsResult` the batched
trials (:mod:`~simulo.apps.pick_place.experiments.trials`) and :class:`SweepResult` the friction sweep
(:func:`~simulo.apps.pick_place.experiments.friction.friction_sweep`).
"""

from __future__ import annotations

from dataclasses import asdict, field
from typing import Any

from simulo.apps.pick_place.config import AppOptions
from simulo.frozen import frozen_dataclass


@frozen_dataclass
class PickResult:
    """What happened to one cube in one environment (positions in the environment's frame, m).

    Attributes:
        start_cube: Cube centre before the pick.
        target: Where the cube should end (its centre).
        approach_error_mm: Tcp distance from the grasp point after the approach and settling.
        finger_gap_mm: Finger gap after closing.
        contact_points: Contact points between the robot and the cube after closing.
        finger_contacts: Contact points of each finger with the cube after closing.
        grasped: Whether the grasp check passed.
        lift_below_mm: Cube centre below the tcp after the lift (None without a lift).
        lift_sideways_mm: Horizontal cube offset from the tcp after the lift.
        slipped: Whether the cube sank more than :data:`.config.SLIP_THRESHOLD` relative to the tcp during the lift.
        tracking_mm: Largest tcp distance from the moving target during each move.
        final_position: Cube centre at the end of the run.
        final_rpy_deg: Cube roll, pitch, yaw at the end of the run, degrees.
        xy_error_mm: Horizontal distance from the target at the end.
        passed: The grasp held, nothing failed, and the cube ends within :data:`.config.TOLERANCE`
            horizontally and :data:`.config.Z_TOLERANCE` vertically of the target.
        failure: Why this environment stopped early, or None.
    """

    start_cube: tuple[float, ...]
    target: tuple[float, ...]
    approach_error_mm: float | None
    finger_gap_mm: float | None
    contact_points: int | None
    finger_contacts: tuple[int, ...] | None
    grasped: bool
    lift_below_mm: float | None
    lift_sideways_mm: float | None
    slipped: bool | None
    tracking_mm: dict[str, float]
    final_position: tuple[float, ...]
    final_rpy_deg: tuple[float, ...]
    xy_error_mm: float
    passed: bool
    failure: str | None


@frozen_dataclass
class RunResult:
    """One run of the app in one environment.

    Attributes:
        start_tcp: Tcp position after the start settle.
        start_cube: First cube's centre then.
        picks: One :class:`PickResult` per cube (two when stacking; fewer if the run stopped early).
        passed: Every cube of the run was picked and passed.
        steps: Physics steps simulated.
        sim_time: Simulated seconds.
        options: The options of the run.
        ik_comparison_mm: With the numeric solver, the approach tcp error of both solvers
            (``{"closed-form": ..., "numeric": ...}``, from a second, closed-form run); else empty.
        seed_gain_tracking_mm: With a speed factor above 1, each move's largest tracking error in a second
            run at the seed's position gain 0.3 (what the gain compensation saves); else empty.
    """

    start_tcp: tuple[float, ...]
    start_cube: tuple[float, ...]
    picks: tuple[PickResult, ...]
    passed: bool
    steps: int
    sim_time: float
    options: AppOptions
    ik_comparison_mm: dict[str, float] = field(default_factory=dict)
    seed_gain_tracking_mm: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every number (the options included)."""
        return asdict(self)


@frozen_dataclass
class TrialsResult:
    """``N`` random-start trials run as ``N`` environments of one simulation.

    Attributes:
        seed: Generator seed.
        noise_mm: Position noise of the estimate (standard deviation), mm.
        noise_deg: Yaw noise of the estimate (standard deviation), degrees.
        starts: True cube starts ``[x, y, yaw]`` per trial.
        estimates: The planner's estimates ``[x, y, yaw]`` per trial.
        picks: Result per trial.
        passed: Number of trials that passed.
        steps: Physics steps (every environment ran them all).
        sim_time: Simulated seconds.
        worlds: PyBullet worlds the environments were split over.
        options: The options of the run.
    """

    seed: int
    noise_mm: float
    noise_deg: float
    starts: tuple[tuple[float, float, float], ...]
    estimates: tuple[tuple[float, float, float], ...]
    picks: tuple[PickResult, ...]
    passed: int
    steps: int
    sim_time: float
    worlds: int
    options: AppOptions

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every number (the options included)."""
        return asdict(self)


@frozen_dataclass
class SweepResult:
    """Where the cube starts to slip out of the grasp during the lift.

    Attributes:
        samples: ``(friction, slipped, sink_mm)`` for every run, in the order run; ``sink_mm`` is how far the
            cube sank relative to the tcp during the lift.
        slip_below: The measured threshold: the cube slips at frictions below this, holds above it.
        contact_friction: The coefficient of the finger-cube contact at the threshold. PyBullet combines
            two surfaces' coefficients by multiplying them, and the sweep sets both to the same value.
        coulomb_estimate: ``m g / (2 F)``: the contact coefficient below which two fingers squeezing with
            ``F`` each cannot hold the cube's weight.
        coulomb_lift_estimate: ``m (g + a) / (2 F)`` with ``a`` the lift's peak acceleration (``6 h / T^2``
            for the smooth 3s^2 - 2s^3 profile over height ``h`` in ``T`` seconds).
        grip_force: ``F``, N per finger.
    """

    samples: tuple[tuple[float, bool, float], ...]
    slip_below: float
    contact_friction: float
    coulomb_estimate: float
    coulomb_lift_estimate: float
    grip_force: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every number."""
        return asdict(self)
