"""`simulo run FILE ...` end to end: each job attempt runs in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulo.cli import run

FIXTURES = Path(__file__).parents[1] / "platform" / "fixtures"
JOBS = str(FIXTURES / "jobs_app.py")


def simulo_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run.main([*argv[:1], "--json", *argv[1:]] if argv else [])  # the whole result on stdout
    out, err = capsys.readouterr()
    return code, out, err


def test_list_does_not_import_torch_or_pybullet() -> None:
    script = (
        "import sys\n"
        "from simulo.cli import run\n"
        f"code = run.main([{str(FIXTURES / 'lean_app.py')!r}, '--list'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'pybullet'))\n"
        "print('HEAVY', heavy, 'CODE', code)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "HEAVY [] CODE 0" in done.stdout
    assert "--num-envs INT  (int; default 4)" in done.stdout
    assert "--render/--no-render  (bool; default False)" in done.stdout
    assert "--mode {fast,slow}" in done.stdout


def test_without_json_a_short_summary_ends_with_the_policy_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = run.main([JOBS, "--job", "echo", "--count", "3", "--runs-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    run_dir = tmp_path / "jobs_demo" / "echo" / "0001"
    policy = json.loads((run_dir / "policy.json").read_text())["policy_id"]
    assert out.splitlines() == [
        "count: 3", "scale: 1.5", "label: x", "verbose: false", "mode: a", "limit: null", "color: red",
        "out: out", "tags: null", "attempt: 1", "app: jobs demo",
        f"result: {run_dir / 'result.json'}  (whole: simulo result jobs_demo/echo/0001 --runs-dir {tmp_path})",
        f"policy: {policy}  (simulo policy inspect {policy} --runs-dir {tmp_path})",
    ]
    assert json.loads((run_dir / "result.json").read_text())["count"] == 3  # the whole result is saved


def test_a_result_that_is_not_an_object_is_shown_when_short(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    app = tmp_path / "short.py"
    app.write_text("import simulo\napp = simulo.App('short')\n\n@app.job\ndef main() -> list:\n"
                   "    return [1, 2]\n", encoding="utf-8")
    assert run.main([str(app), "--runs-dir", str(tmp_path / "runs")]) == 0
    result = tmp_path / "runs" / "short" / "main" / "0001" / "result.json"
    assert capsys.readouterr().out.splitlines() == [
        "returned: [1, 2]", f"result: {result}  (whole: simulo result short/main/0001 --runs-dir {tmp_path / 'runs'})"]


def test_result_is_printed_and_saved_with_params(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(
        capsys, JOBS, "--job", "echo", "--count", "3", "--verbose", "--color", "blue", "--runs-dir", str(tmp_path)
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["count"] == 3 and result["verbose"] is True and result["color"] == "blue"
    assert result["attempt"] == 1 and result["app"] == "jobs demo"
    assert "echo: count=3" in err and "echo: to stderr" in err  # the job's output streams to the terminal
    run_dir = tmp_path / "jobs_demo" / "echo" / "0001"
    assert json.loads((run_dir / "result.json").read_text()) == result
    params = json.loads((run_dir / "params.json").read_text())
    assert params == {
        "count": 3, "scale": 1.5, "label": "x", "verbose": True, "mode": "a", "limit": None,
        "color": "blue", "out": "out", "tags": None,
    }
    assert "echo: count=3" in (run_dir / "log.txt").read_text()
    assert json.loads((run_dir / "run.json").read_text())["status"] == "completed"


def test_runs_dir_from_environment_and_counter(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMULO_RUNS_DIR", str(tmp_path))
    for _ in range(2):
        code, _, err = simulo_run(capsys, str(FIXTURES / "split_train.py"), "--iterations", "5")
        assert code == 0, err
    runs = sorted(p.name for p in (tmp_path / "split" / "train").iterdir())
    assert runs == ["0001", "0002"]
    assert json.loads((tmp_path / "split" / "train" / "0002" / "result.json").read_text()) == {"iterations": 5}


def test_torch_app_runs_scripted(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(
        capsys, str(FIXTURES / "lean_app.py"), "--num-envs", "3", "--mode", "slow", "--seed", "7",
        "--runs-dir", str(tmp_path),
    )
    assert code == 0, err
    assert json.loads(out) == {
        "total": 7.5, "scripted": "ScriptFunction", "render": False, "mode": "slow", "seed": 7,
        "policy_is_module": True,
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--job", "echo", "--count", "x"], "--count: invalid value 'x'; expected int"),
        (["--job", "echo", "--count", "1", "--colour", "red"], "unknown flag '--colour'; did you mean --color?"),
        (["--job", "echo"], "missing required flag(s): --count (int)"),
        ([], "declares 6 jobs (echo, fail, sleepy, flaky, always_fails, with_callback); choose one with --job NAME"),
        (["--job", "nope"], "has no job 'nope'; its jobs are: echo"),
        (["--job"], "--job needs a value"),
    ],
)
def test_usage_errors_exit_2_before_running(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    code, out, err = simulo_run(capsys, JOBS, *argv, "--runs-dir", str(tmp_path))
    assert code == 2
    assert message in err and out == ""
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_file_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = simulo_run(capsys, str(FIXTURES / "no_jobs.py"))
    assert code == 2 and "declares no job" in err
    code, _, err = simulo_run(capsys, str(tmp_path / "absent.py"))
    assert code == 2 and "no such app file" in err
    code, out, err = simulo_run(capsys)
    assert code == 2 and out == ""
    assert err == ("simulo run: error: no app file given: simulo run FILE [--job NAME] [OPTIONS] "
                   "(see 'simulo run --help')\n")


def test_failing_job_exits_1_with_its_message(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(capsys, JOBS, "--job", "fail", "--message", "hi", "--runs-dir", str(tmp_path))
    assert code == 1 and out == ""
    assert "Traceback" in err and "ValueError: the job broke: hi" in err
    assert "job 'fail' failed on attempt 1/1: ValueError: the job broke: hi" in err
    record = json.loads((tmp_path / "jobs_demo" / "fail" / "0001" / "attempt-1.error.json").read_text())
    assert record["type"] == "ValueError" and record["message"] == "the job broke: hi"


# jobs_app.py's sleepy job with a timeout that leaves a loaded machine room to start the job process (the
# timeout covers its start and imports, about half a second on a quiet machine): the job must be asleep when
# the timeout stops it, whatever the load, and the test takes the timeout's length
SLEEPY_TIMEOUT_S = 20
SLEEPY_APP = f"""
import os
import time

import simulo
from simulo.platform.context import current_run

app = simulo.App("jobs demo")


@app.job(timeout={SLEEPY_TIMEOUT_S})
def sleepy(seconds: float = 600.0) -> dict:
    (current_run().run_dir / "pid.txt").write_text(str(os.getpid()))
    print("sleepy: going to sleep", flush=True)
    time.sleep(seconds)
    return {{"slept": seconds}}
"""


def test_timeout_stops_the_job(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    app = tmp_path / "sleepy_app.py"
    app.write_text(SLEEPY_APP, encoding="utf-8")
    runs = tmp_path / "runs"
    started = time.monotonic()
    code, out, err = simulo_run(capsys, str(app), "--job", "sleepy", "--runs-dir", str(runs))
    assert time.monotonic() - started < 300  # stopped long before the 600 s sleep would have ended
    assert code == 124 and out == ""
    assert "sleepy: going to sleep" in err
    assert f"job 'sleepy' timed out after {SLEEPY_TIMEOUT_S} s and was stopped" in err
    run_info = json.loads((runs / "jobs_demo" / "sleepy" / "0001" / "run.json").read_text())
    assert run_info["status"] == "timed_out" and run_info["attempts"] == 1 and run_info["phase"] == "run"
    pid = int((runs / "jobs_demo" / "sleepy" / "0001" / "pid.txt").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the job process is gone


def test_callbacks_hear_start_and_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(capsys, JOBS, "--job", "with_callback", "--runs-dir", str(tmp_path))
    assert code == 0, err
    hooks = (tmp_path / "jobs_demo" / "with_callback" / "0001" / "hooks.txt").read_text()
    assert hooks == "start jobs_demo/with_callback/0001\nend completed\n"


def test_retries_resume_from_latest_checkpoint(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(capsys, JOBS, "--job", "flaky", "--runs-dir", str(tmp_path))
    assert code == 0, err
    assert json.loads(out) == {"attempt": 3, "resumed_step": 20, "previous": "latest.pt"}
    assert "attempt 1 failed (RuntimeError: attempt 1 failed at step 10); retrying from" in err
    assert "attempt 2 failed (RuntimeError: attempt 2 failed at step 20)" in err
    assert "checkpoints/latest.pt" in err


def test_retries_exhausted_exit_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = simulo_run(capsys, JOBS, "--job", "always_fails", "--runs-dir", str(tmp_path))
    assert code == 1
    assert "retrying from the start (no checkpoint yet)" in err
    assert "job 'always_fails' failed on attempt 2/2: RuntimeError: attempt 2 failed" in err


def test_run_is_a_simulo_command() -> None:
    from simulo.cli.main import COMMANDS

    assert COMMANDS["run"][0] == "simulo.cli.run"


PREVIEWS = str(FIXTURES / "preview_app.py")


def test_a_preview_that_passes_exits_0(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(capsys, PREVIEWS, "--job", "sound", "--runs-dir", str(tmp_path))
    assert code == 0, err
    assert json.loads(out)["verdict"] == "passed" and "did not pass" not in err


def test_a_preview_with_a_failed_check_exits_1_naming_the_summary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the cloud's client: 0 only when every check passed, 1 when a preview completed with a failed check
    code, out, err = simulo_run(capsys, PREVIEWS, "--job", "broken", "--runs-dir", str(tmp_path))
    report = json.loads(out)
    assert code == 1 and [s["status"] for s in report["stages"]] == ["skipped", "skipped", "skipped", "failed"]
    assert f"the preview did not pass: {report['summary']}" in err
    assert json.loads((tmp_path / "preview_demo" / "broken" / "0001" / "result.json").read_text()) == report


def test_only_preview_jobs_are_judged_by_their_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = simulo_run(capsys, PREVIEWS, "--job", "not_a_preview", "--runs-dir", str(tmp_path))
    assert code == 0, err
