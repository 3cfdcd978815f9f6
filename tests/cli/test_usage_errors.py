"""Every `simulo` command: a usage error (bad flag, bad value, missing argument) exits 2 with one line, no traceback.

Table-driven through the `simulo` entry point, so each row is exactly what a user types after `simulo`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simulo.cli.main import main as simulo_main

JOBS = str(Path(__file__).parents[1] / "platform" / "fixtures" / "jobs_app.py")
ECHO = ["run", JOBS, "--job", "echo", "--count", "1"]

CASES: list[tuple[list[str], str]] = [
    (["bogus"], "simulo: unknown command 'bogus'"),
    # simulo run
    (["run"], "simulo run: error: no app file given"),
    (["run", "--bogus"], "the first argument must be the app file, got '--bogus'"),
    (["run", "/nonexistent/app.py"], "no such app file: /nonexistent/app.py"),
    (["run", JOBS, "--job", "nope"], "has no job 'nope'"),
    (["run", JOBS, "--job"], "--job needs a value"),
    (["run", JOBS, "--job", "echo", "--count", "abc"], "--count: invalid value 'abc'; expected int"),
    ([*ECHO, "--scale", "nan"], "--scale: invalid value 'nan'; expected a finite number"),
    ([*ECHO, "--scale", "-inf"], "--scale: invalid value '-inf'; expected a finite number"),
    ([*ECHO, "--bogus", "3"], "unknown flag '--bogus'"),
    ([*ECHO, "--workers", "0"], "--workers needs a whole number >= 1"),
    ([*ECHO, "--workers", "2", "--address", "foo"], "--address 'foo'"),
    ([*ECHO, "--address", "head:99999"], "--address 'head:99999'"),
    ([*ECHO, "--engine", "nope"], "--engine 'nope' is not an engine"),
    ([*ECHO, "--tag", "Bad Tag"], "--tag 'Bad Tag' is invalid"),
    ([*ECHO, "--require-success", "2"], "--require-success needs a rate from 0 to 1"),
    ([*ECHO, "--viewstream", "--viewstream-port", "x"], "--viewstream-port needs a port number from 1 to 65535"),
    ([*ECHO, "--record-3d", "65"], "--record-3d needs a number of copies from 1 to 64, got '65'"),
    # simulo pick-place
    (["pick-place", "--bogus"], "simulo pick-place: error: unrecognized arguments: --bogus"),
    (["pick-place", "--trials", "0"], "argument --trials: expected a whole number >= 1, got '0'"),
    (["pick-place", "--trials", "abc"], "argument --trials: expected a whole number >= 1, got 'abc'"),
    (["pick-place", "--seed", "3"], "--seed seeds the random cube starts of --trials N; it needs --trials N"),
    (["pick-place", "--trials", "2", "--seed", "-1"], "argument --seed: expected a whole number >= 0"),
    (["pick-place", "--friction", "nan"], "argument --friction: expected a friction coefficient between 0 and 10"),
    (["pick-place", "--speed", "inf"], "argument --speed: expected a speed factor between 0.1 and 8"),
    (["pick-place", "--trials", "2", "--noise", "1"], "argument --noise: expected MM,DEG"),
    (["pick-place", "--noise", "1,2"], "--noise needs --trials N"),
    (["pick-place", "--engine", "nope"], "argument --engine: invalid choice: 'nope'"),
    (["pick-place", "--ik", "nope"], "argument --ik: invalid choice: 'nope'"),
    (["pick-place", "--stack", "--trials", "2"], "--stack and --trials cannot be combined"),
    (["pick-place", "--workers", "2"], "--workers and --address shard a sweep: they need --trials N"),
    (["pick-place", "--trials", "2", "--address", "foo"], "--address: address 'foo' is not a Ray address"),
    (["pick-place", "--record", "x.txt"], "--record: 'x.txt' must end in .gif or .mp4"),
    (["pick-place", "--record", "x.gif", "--trials", "2"], "--record films one run"),
    (["pick-place", "--friction-sweep", "--stack"], "--friction-sweep runs its own frictions"),
    # the other commands
    (["check-urdf"], "simulo check-urdf: error: the following arguments are required: FILE"),
    (["check-urdf", "--bogus", "robot.urdf"], "unrecognized arguments: --bogus"),
    (["check-urdf", "/nonexistent/robot.urdf"], "/nonexistent/robot.urdf: no such file"),
    (["asset"], "simulo asset: no subcommand given"),
    (["asset", "bogus"], "simulo asset: unknown subcommand 'bogus'"),
    (["asset", "check"], "simulo asset check: no reference given"),
    (["policy"], "simulo policy: error: no subcommand given; expected list, inspect or get"),
    (["policy", "bogus"], "simulo policy: error: unknown subcommand 'bogus'"),
    (["policy", "inspect"], "inspect takes one POLICY_ID, got 0"),
    (["policy", "inspect", "nope"], "'nope' is not a policy ID"),
    (["export"], "simulo export: error: name the policy to export"),
    (["export", "--bogus"], "simulo export: error: unknown option '--bogus'"),
    (["export", "x", "--format", "bad"], "--format 'bad': expected one of onnx, torchscript"),
    (["logs", "--bogus"], "simulo logs: error: unexpected argument '--bogus'"),
    (["logs", "a/b/0001"], "simulo logs: error: no run 'a/b/0001'"),
    (["result", "--bogus"], "simulo result: error: unexpected argument '--bogus'"),
    (["result"], "simulo result: error: no runs under"),
    (["outputs", "--bogus"], "simulo outputs: error: unexpected argument '--bogus'"),
    (["create"], "simulo create: error: the app's NAME is missing"),
    (["create", "--bogus"], "simulo create: error: unexpected argument '--bogus'"),
    (["create", "bad name!"], "simulo create: error: app name 'bad name!' is not valid"),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(a[:1] + a[-2:]) for a, _ in CASES])
def test_usage_error_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    argv: list[str], message: str,
) -> None:
    runs = tmp_path / "runs"
    monkeypatch.setenv("SIMULO_RUNS_DIR", str(runs))
    monkeypatch.chdir(tmp_path)
    code = simulo_main(argv)
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert out == ""
    assert len(lines) == 1 and "Traceback" not in err, err
    assert message in lines[0]
    assert not runs.exists()  # nothing ran
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"] * runs.exists()  # nothing written either
