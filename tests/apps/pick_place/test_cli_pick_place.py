"""``simulo pick-place``: the golden run, and one test per flag (numbers pinned as measured, pybullet 3.2.7)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from simulo.cli import main as simulo_main
from simulo.cli.pick_place import main

ROOT = Path(__file__).resolve().parents[3]

# The seed's lines as issue 3 quotes them (numpy prints two spaces before 0.15 and 0.02).
GOLDEN = [
    "start: tcp at [ 0.42 -0.12  0.15], cube at [ 0.42 -0.12  0.02]",
    "approach: tcp error 0.0 mm",
    "close: finger gap 39.9 mm (cube is 40 mm), contact points 6",
    "lift: cube centre 10.5 mm below the tcp, 0.4 mm off-centre sideways",
    "release: gripper open",
    "cube final position: x=0.2506 y=0.3503 z=0.0200 m",
    "cube final tilt: roll 0.00 deg, pitch -0.00 deg, yaw 17.2 deg",
    "xy error 0.6 mm, tolerance 10 mm: PASS",
    "simulated 10.8 s in 2580 steps",
]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    status = main(list(argv))
    return status, capsys.readouterr().out.splitlines()


def _simulo_command() -> list[str]:
    script = Path(sys.executable).parent / "simulo"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "simulo.cli.main"]


def test_no_flags_prints_the_seed_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys) == (0, GOLDEN)


def test_no_flags_as_the_installed_command() -> None:
    done = subprocess.run([*_simulo_command(), "pick-place"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == GOLDEN
    assert "pick-place" in simulo_main.COMMANDS


def test_sample_file_prints_the_same_lines() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "samples" / "pick_place.py")], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == GOLDEN
    assert "import pybullet" not in (ROOT / "samples" / "pick_place.py").read_text()


def test_json_is_one_object_with_every_number(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--json")
    assert status == 0 and len(lines) == 1
    data = json.loads(lines[0])
    pick = data["picks"][0]
    assert data["passed"] is True and data["steps"] == 2580 and data["sim_time"] == pytest.approx(10.75)
    assert pick["final_position"][0] == 0.25055941223492234  # the seed program's value, bit for bit
    assert round(pick["final_position"][1], 4) == 0.3503 and round(pick["xy_error_mm"], 1) == 0.6
    assert pick["contact_points"] == 6 and round(pick["finger_gap_mm"], 1) == 39.9
    assert [round(v, 1) for v in (pick["lift_below_mm"], pick["lift_sideways_mm"])] == [10.5, 0.4]
    assert pick["grasped"] is True and pick["slipped"] is False and pick["failure"] is None
    assert set(pick["tracking_mm"]) == {"approach", "lift", "transfer", "lower", "retreat"}
    assert data["options"]["coupled"] is True and data["options"]["friction"] == 1.0


def test_uncoupled_fingers_let_the_cube_drift_and_fail(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--uncoupled")
    assert status == 1
    assert "lift: cube centre 10.3 mm below the tcp, 6.9 mm off-centre sideways" in lines
    assert "xy error 15.1 mm, tolerance 10 mm: FAIL" in lines  # the seed reports 15.1 mm too


def test_low_friction_drops_the_cube_during_the_lift(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--friction", "0.1")
    assert status == 1
    assert "lift: cube centre 130.0 mm below the tcp, 56.8 mm off-centre sideways" in lines
    assert "cube: slipped in the grasp during the lift (it should hang 10 mm below the tcp)" in lines
    assert "xy error 443.1 mm, tolerance 10 mm: FAIL" in lines


def test_friction_sweep_finds_the_slip_threshold_beside_coulomb(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--friction-sweep", "--json")
    assert status == 0
    data = json.loads(lines[0])
    assert data["slip_below"] == pytest.approx(0.1707, abs=1e-4)
    assert data["contact_friction"] == pytest.approx(0.1707**2, rel=1e-3)
    assert data["coulomb_estimate"] == pytest.approx(0.1 * 9.81 / 40)
    assert data["coulomb_lift_estimate"] == pytest.approx(0.1 * (9.81 + 0.72) / 40)
    slipped = {round(mu, 4): s for mu, s, _ in data["samples"]}
    assert slipped[0.15] is True and slipped[0.2] is False and slipped[1.0] is False
    # the measured contact coefficient lies just above Coulomb's (the lift accelerates the cube too)
    assert data["coulomb_estimate"] < data["contact_friction"] < 1.2 * data["coulomb_lift_estimate"]


def test_friction_sweep_prints_both_numbers(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from simulo.apps.pick_place.config import AppOptions
    from simulo.apps.pick_place.experiments import friction
    from simulo.apps.pick_place.results import SweepResult

    def quick(options: AppOptions, on_sample: object = None) -> SweepResult:
        return SweepResult(samples=((0.1, True, 120.0), (0.2, False, 0.1)), slip_below=0.171,
                           contact_friction=0.029241, coulomb_estimate=0.024525, coulomb_lift_estimate=0.026325,
                           grip_force=20.0)

    monkeypatch.setattr(friction, "friction_sweep", quick)
    status, lines = _run(capsys, "--friction-sweep")
    assert status == 0
    assert lines[0].startswith("slip threshold: friction 0.171 on the cube and the fingers (contact coefficient 0.0292")
    assert "mu* = 0.0245 for the contact (0.0263 with the lift's peak acceleration)" in lines[1]


def test_numeric_ik_reports_both_solvers(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--ik", "numeric")
    assert status == 0
    assert "ik: tcp error after the approach: closed-form 0.002 mm, numeric (DLS on the tcp Jacobian) 0.002 mm" in lines
    assert "xy error 0.6 mm, tolerance 10 mm: PASS" in lines
    assert lines[0] == GOLDEN[0]


def test_speed_reports_tracking_with_and_without_gain_compensation(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--speed", "2", "--json")
    assert status == 0
    data = json.loads(lines[0])
    pick = data["picks"][0]
    assert data["steps"] == 1350 and pick["slipped"] is False and data["passed"] is True
    assert data["options"]["speed"] == 2.0
    compensated, seed_gain = pick["tracking_mm"], data["seed_gain_tracking_mm"]
    assert round(compensated["transfer"], 1) == 2.1 and round(seed_gain["transfer"], 1) == 7.3
    assert all(compensated[k] < 0.5 * seed_gain[k] for k in compensated)


def test_speed_lines(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--speed", "4")
    assert status == 0
    assert "lift: cube centre 10.0 mm below the tcp, 0.3 mm off-centre sideways" in lines
    assert "speed x4: lift: no slip" in lines
    assert any(line.startswith("speed x4: largest tcp tracking error per move, mm: approach 0.0") for line in lines)
    assert lines[-1] == "simulated 3.1 s in 735 steps"


def test_stack_puts_a_second_cube_on_the_first(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--stack")
    assert status == 0
    assert "stack: release: gripper open" in lines
    assert "cube final position: x=0.2510 y=0.3502 z=0.0200 m" in lines
    assert "second cube final position: x=0.2507 y=0.3509 z=0.0600 m" in lines
    assert "second cube: xy error 1.1 mm, tolerance 10 mm: PASS" in lines


def test_trials_run_batched_and_repeat_byte_for_byte() -> None:
    command = [*_simulo_command(), "pick-place", "--trials", "4", "--seed", "1"]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    second = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    lines = first.stdout.splitlines()
    assert lines[0] == "trial 0: cube at (0.3985, 0.1145) yaw -32.0 deg: xy error 0.5 mm, z 0.0200 m: PASS"
    assert lines[-1] == ("trials: 4/4 passed (seed 1); 4 environments of one simulation in 1 world, "
                         "simulated 11.2 s in 2700 steps each")


def test_noise_plans_from_an_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _run(capsys, "--trials", "4", "--noise", "3,2")
    assert status == 0
    assert lines[0] == ("trial 0: cube at (0.3432, -0.2722) yaw -41.3 deg, estimate off 1.6 mm +0.7 deg: "
                        "xy error 0.5 mm, z 0.0200 m: PASS")
    assert lines[3].startswith("trial 3: cube at (0.3333, -0.1639) yaw -42.5 deg, estimate off 4.6 mm +0.7 deg")
    assert lines[-1].startswith("trials: 4/4 passed (seed 0, noise 3 mm 2 deg)")


@pytest.mark.slow
def test_fifty_noisy_trials_meet_the_goal(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 3's goal: at least 48 of 50 pass with 3 mm and 2 degree noise (measured: 50 of 50, ~15 s)."""
    status, lines = _run(capsys, "--trials", "50", "--seed", "0", "--noise", "3,2", "--json")
    data = json.loads(lines[0])
    assert data["passed"] >= 48 and len(data["picks"]) == 50
    assert data["worlds"] == 4  # 16 environments per PyBullet world
    assert status == (0 if data["passed"] == 50 else 1)


@pytest.mark.parametrize(("argv", "message"), [
    (["--noise", "3,2"], "--noise needs --trials N"),
    (["--stack", "--trials", "3"], "--stack and --trials cannot be combined"),
    (["--friction-sweep", "--friction", "0.5"], "--friction-sweep runs its own frictions"),
    (["--speed", "0"], "expected a speed factor between 0.1 and 8, got '0'"),
    (["--noise", "3"], "expected MM,DEG such as 3,2"),
    (["--trials", "4", "--noise", "3,-1"], "noise levels must be finite numbers >= 0"),
    (["--trials", "0"], "expected a whole number >= 1, got '0'"),
    (["--seed", "x", "--trials", "2"], "expected a whole number >= 0, got 'x'"),
    (["--friction", "nan"], "expected a friction coefficient between 0 and 10, got 'nan'"),
    (["--ik", "pybullet"], "invalid choice: 'pybullet'"),
])
def test_bad_arguments_exit_2_with_a_message(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err  # one line
