"""Review fixes in simulo run: a --runs-dir that cannot hold run folders is a usage error, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulo.cli import run
from simulo.errors import JobError
from simulo.platform.runner import EXIT_USAGE, RunRequest, run_job

APP = '''
import simulo

app = simulo.App("tiny")


@app.job
def hello() -> dict:
    return {"ok": True}
'''


def test_run_job_refuses_a_runs_dir_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    request = RunRequest(file=tmp_path / "app.py", app="tiny", job="hello", argv=(), params={})
    with pytest.raises(JobError, match=r"cannot create a run folder under the runs folder .*not-a-folder"):
        run_job(request, blocker)


def test_simulo_run_bad_runs_dir_exits_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app_file = tmp_path / "app.py"
    app_file.write_text(APP)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    assert run.main([str(app_file), "--runs-dir", str(blocker)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "simulo run: error: cannot create a run folder" in err
    assert "Traceback" not in err
