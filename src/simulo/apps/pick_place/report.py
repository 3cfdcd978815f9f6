"""The lines ``simulo pick-place`` prints: phase lines, the single run's summary, trials and the friction sweep."""

from __future__ import annotations

import math
from typing import Any

from simulo.apps.pick_place.config import CUBE_MASS, CUBE_SIZE, GRASP_Z, POSITION_GAIN, TOLERANCE
from simulo.apps.pick_place.results import RunResult, SweepResult, TrialsResult


def phase_line(phase: str, v: dict[str, Any]) -> str | None:
    """The line printed as a phase of the single run completes, or None for a phase without one.

    Args:
        phase: The phase just completed.
        v: The pick's measurements so far (one environment's :attr:`.recorder.PickRecorder.values`).
    """
    if phase == "approach":
        return f"approach: tcp error {v['approach']:.1f} mm"
    if phase == "close":
        return (f"close: finger gap {v['gap']:.1f} mm (cube is {CUBE_SIZE * 1000:.0f} mm), "
                f"contact points {v['contacts']}")
    if phase == "lift" and "below" in v:
        return f"lift: cube centre {v['below']:.1f} mm below the tcp, {v['sideways']:.1f} mm off-centre sideways"
    if phase == "release":
        return "release: gripper open"
    return None


def report_lines(result: RunResult) -> list[str]:
    """The summary lines printed after the phase lines: final pose and tilt, verdict, comparisons, steps."""
    lines = []
    names = ["cube", "second cube"]
    for name, pick in zip(names, result.picks):
        x, y, z = pick.final_position
        roll, pitch, yaw = pick.final_rpy_deg
        lines.append(f"{name} final position: x={x:.4f} y={y:.4f} z={z:.4f} m")
        lines.append(f"{name} final tilt: roll {roll:.2f} deg, pitch {pitch:.2f} deg, yaw {yaw:.1f} deg")
    for k, pick in enumerate(result.picks):
        label = f"{names[k]}: " if k else ""
        lines.append(f"{label}xy error {pick.xy_error_mm:.1f} mm, tolerance {TOLERANCE * 1000:.0f} mm: "
                     f"{'PASS' if pick.passed else 'FAIL'}")
    for k, pick in enumerate(result.picks):
        if pick.slipped:
            lines.append(f"{names[k]}: slipped in the grasp during the lift (it should hang "
                         f"{(GRASP_Z - CUBE_SIZE / 2) * 1000:.0f} mm below the tcp)")
    if result.ik_comparison_mm:
        c = result.ik_comparison_mm
        lines.append(f"ik: tcp error after the approach: closed-form {c['closed-form']:.3f} mm, "
                     f"numeric (DLS on the tcp Jacobian) {c['numeric']:.3f} mm")
    if result.seed_gain_tracking_mm and result.picks:
        pick = result.picks[0]
        now = ", ".join(f"{k} {v:.1f}" for k, v in pick.tracking_mm.items())
        seed = ", ".join(f"{k} {v:.1f}" for k, v in result.seed_gain_tracking_mm.items())
        slip = "n/a (no lift)" if pick.slipped is None else ("the cube slipped" if pick.slipped else "no slip")
        lines.append(f"speed x{result.options.speed:g}: largest tcp tracking error per move, mm: {now} "
                     f"(position gain {result.options.position_gain:.2f}); at the seed's gain {POSITION_GAIN}: {seed}")
        lines.append(f"speed x{result.options.speed:g}: lift: {slip}")
    lines.append(f"simulated {result.sim_time:.1f} s in {result.steps} steps")
    return lines


def trial_lines(result: TrialsResult) -> list[str]:
    """One line per trial (where the cube was, how far off the estimate, the verdict), then the pass count."""
    lines = []
    for i, (start, est, pick) in enumerate(zip(result.starts, result.estimates, result.picks)):
        off_mm = math.hypot(est[0] - start[0], est[1] - start[1]) * 1000
        off_deg = math.degrees(est[2] - start[2])
        verdict = "PASS" if pick.passed else "FAIL"
        line = (f"trial {i:>{len(str(len(result.picks) - 1))}}: cube at ({start[0]:.4f}, {start[1]:.4f}) yaw "
                f"{math.degrees(start[2]):5.1f} deg")
        if result.noise_mm or result.noise_deg:
            line += f", estimate off {off_mm:.1f} mm {off_deg:+.1f} deg"
        line += f": xy error {pick.xy_error_mm:.1f} mm, z {pick.final_position[2]:.4f} m: {verdict}"
        if pick.slipped:
            line += " (slipped in the grasp during the lift)"
        if pick.failure is not None:
            line += f" ({pick.failure})"
        lines.append(line)
    noise = f", noise {result.noise_mm:g} mm {result.noise_deg:g} deg" if result.noise_mm or result.noise_deg else ""
    lines.append(f"trials: {result.passed}/{len(result.picks)} passed (seed {result.seed}{noise}); "
                 f"{len(result.picks)} environments of one simulation in {result.worlds} "
                 f"world{'s' if result.worlds != 1 else ''}, "
                 f"simulated {result.sim_time:.1f} s in {result.steps} steps each")
    return lines


def sample_line(friction: float, slipped: bool, sink_mm: float) -> str:
    """The line of one run of the friction sweep (printed as the sweep goes, and again by :func:`sweep_lines`)."""
    return f"friction {friction:.4f}: {'slips' if slipped else 'holds'} (cube sank {sink_mm:.1f} mm during the lift)"


def sweep_lines(result: SweepResult) -> list[str]:
    """Lines describing a friction sweep: every sample by friction, the threshold, the Coulomb estimate."""
    lines = [sample_line(mu, slipped, sink) for mu, slipped, sink in sorted(result.samples)]
    lines.append(f"slip threshold: friction {result.slip_below:.3f} on the cube and the fingers "
                 f"(contact coefficient {result.contact_friction:.4f}: PyBullet multiplies the two surfaces' values)")
    lines.append(f"Coulomb estimate: holding needs 2 mu F >= m g; F = {result.grip_force:.0f} N per finger and "
                 f"m = {CUBE_MASS} kg give mu* = {result.coulomb_estimate:.4f} for the contact "
                 f"({result.coulomb_lift_estimate:.4f} with the lift's peak acceleration), "
                 f"i.e. a friction of {math.sqrt(result.coulomb_estimate):.3f} on each surface")
    return lines
