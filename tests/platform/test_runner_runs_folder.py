"""run_job: a runs folder that is a file is refused with a JobError that names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulo.errors import JobError
from simulo.platform.runner import RunRequest, run_job


def test_run_job_refuses_a_runs_dir_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    request = RunRequest(file=tmp_path / "app.py", app="tiny", job="hello", argv=(), params={})
    with pytest.raises(JobError, match=r"cannot create a run folder under the runs folder .*not-a-folder"):
        run_job(request, blocker)
