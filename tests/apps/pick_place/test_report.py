"""The printed lines of the friction sweep and the trials, from hand-made results (no simulation)."""

from __future__ import annotations

from simulo.apps.pick_place.config import DEFAULT_OPTIONS
from simulo.apps.pick_place.report import sample_line, sweep_lines, trial_lines
from simulo.apps.pick_place.results import PickResult, SweepResult, TrialsResult


def _pick(passed: bool, failure: str | None = None) -> PickResult:
    return PickResult(start_cube=(0.4, 0.0, 0.02), target=(0.25, 0.35, 0.02), approach_error_mm=0.0,
                      finger_gap_mm=39.9, contact_points=6, finger_contacts=(3, 3), grasped=failure is None,
                      lift_below_mm=10.5, lift_sideways_mm=0.4, slipped=False, tracking_mm={},
                      final_position=(0.2506, 0.3503, 0.02), final_rpy_deg=(0.0, 0.0, 17.2),
                      xy_error_mm=0.6 if passed else 150.0, passed=passed, failure=failure)


def test_sweep_lines_list_the_samples_by_friction_as_they_were_printed() -> None:
    result = SweepResult(samples=((0.2, False, 0.1), (0.1, True, 120.0)), slip_below=0.171, contact_friction=0.029241,
                         coulomb_estimate=0.024525, coulomb_lift_estimate=0.026325, grip_force=20.0)
    lines = sweep_lines(result)
    assert lines[:2] == [sample_line(0.1, True, 120.0), sample_line(0.2, False, 0.1)]
    assert lines[0] == "friction 0.1000: slips (cube sank 120.0 mm during the lift)"
    assert lines[2].startswith("slip threshold: friction 0.171 on the cube and the fingers")
    assert lines[3].endswith("i.e. a friction of 0.157 on each surface")


def test_trial_lines_show_the_estimate_only_with_noise_and_the_failure_reason() -> None:
    picks = (_pick(True), _pick(False, "grasp failed: finger gap 70.0 mm"))
    result = TrialsResult(seed=3, noise_mm=0.0, noise_deg=0.0, starts=((0.4, 0.0, 0.1), (0.35, -0.2, -0.3)),
                          estimates=((0.4, 0.0, 0.1), (0.35, -0.2, -0.3)), picks=picks, passed=1, steps=2880,
                          sim_time=12.0, worlds=1, options=DEFAULT_OPTIONS)
    lines = trial_lines(result)
    assert lines[0] == "trial 0: cube at (0.4000, 0.0000) yaw   5.7 deg: xy error 0.6 mm, z 0.0200 m: PASS"
    assert lines[1].endswith(": xy error 150.0 mm, z 0.0200 m: FAIL (grasp failed: finger gap 70.0 mm)")
    assert lines[2] == ("trials: 1/2 passed (seed 3); 2 environments of one simulation in 1 world, "
                        "simulated 12.0 s in 2880 steps each")
