"""`simulo run --detach` returns at once; `simulo logs RUN --follow` reads the run to its end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulo.cli import logs, run

JOBS = str(Path(__file__).parents[1] / "platform" / "fixtures" / "jobs_app.py")


def test_a_detached_run_is_followed_to_its_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    runs = str(tmp_path / "runs")
    code = run.main([JOBS, "--job", "echo", "--count", "4", "--detach", "--tag", "bg", "--runs-dir", runs])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip() == "jobs_demo/echo/0001"
    assert "simulo logs jobs_demo/echo/0001" in err and "--follow" in err
    code = logs.main(["jobs_demo/echo/0001", "--follow", "--runs-dir", runs])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "echo: count=4" in out and "the run ended completed" in err and "tags bg" in err
    run_dir = tmp_path / "runs" / "jobs_demo" / "echo" / "0001"
    assert json.loads((run_dir / "result.json").read_text())["count"] == 4
    record = json.loads((run_dir / "run.json").read_text())
    assert record["detached"] is True and record["status"] == "completed" and record["exit_code"] == 0


def test_follow_exits_with_the_status_of_a_failed_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    runs = str(tmp_path / "runs")
    assert run.main([JOBS, "--job", "fail", "--detach", "--runs-dir", runs]) == 0
    capsys.readouterr()
    code = logs.main(["--follow", "--runs-dir", runs])  # no RUN: the latest run
    out, err = capsys.readouterr()
    assert code == 1
    assert "the job broke: boom" in out and "the run ended failed" in err


def test_logs_prints_a_finished_run_its_tail_and_refuses_an_unknown_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    runs = str(tmp_path / "runs")
    assert run.main([JOBS, "--job", "echo", "--count", "1", "--runs-dir", runs]) == 0
    capsys.readouterr()
    run_dir = tmp_path / "runs" / "jobs_demo" / "echo" / "0001"
    assert logs.main([str(run_dir)]) == 0
    out, _ = capsys.readouterr()
    assert "echo: count=1" in out and out.startswith("simulo run: jobs demo/echo attempt 1/1")
    assert logs.main(["jobs_demo/echo/0001", "--tail", "1", "--runs-dir", runs]) == 0
    out, _ = capsys.readouterr()
    assert len(out.strip().splitlines()) == 1
    assert logs.main(["jobs_demo/echo/0009", "--runs-dir", runs]) == 2
    assert "no run 'jobs_demo/echo/0009'" in capsys.readouterr().err
    assert logs.main(["--runs-dir", str(tmp_path / "empty")]) == 2
    assert "no runs under" in capsys.readouterr().err
