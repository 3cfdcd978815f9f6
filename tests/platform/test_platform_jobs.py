"""Finding the jobs of an app file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from simulo.errors import JobError
from simulo.platform.jobs import check_runnable, load_app_file

FIXTURES = Path(__file__).parent / "fixtures"


def test_jobs_in_declaration_order_and_selection() -> None:
    job_file = load_app_file(FIXTURES / "jobs_app.py", discovery=True)
    assert job_file.job_names() == ["echo", "fail", "sleepy", "flaky", "always_fails", "with_callback"]
    assert job_file.select("sleepy").spec.timeout == 8
    jobs = r"declares 6 jobs \(echo, fail, sleepy, flaky, always_fails, with_callback\); choose one with --job NAME"
    with pytest.raises(JobError, match=jobs):
        job_file.select(None)
    with pytest.raises(JobError, match="has no job 'train'; its jobs are: echo, fail"):
        job_file.select("train")


def test_file_without_jobs_is_refused() -> None:
    job_file = load_app_file(FIXTURES / "no_jobs.py", discovery=True)
    with pytest.raises(JobError, match="no_jobs.py declares no job; decorate a function with @app.job"):
        job_file.select(None)


def test_split_file_finds_sibling_task_and_forgets_it_after_discovery() -> None:
    job_file = load_app_file(FIXTURES / "split_train.py", discovery=True)
    job = job_file.select(None)
    assert (job.spec.name, job.app.name) == ("train", "split")
    assert "split_task" not in sys.modules


def test_missing_or_broken_files(tmp_path: Path) -> None:
    with pytest.raises(JobError, match="no such app file"):
        load_app_file(tmp_path / "absent.py", discovery=True)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(JobError, match="ending in .py"):
        load_app_file(tmp_path / "notes.txt", discovery=True)
    (tmp_path / "broken.py").write_text("import simulo\nraise RuntimeError('bad module')\n")
    with pytest.raises(JobError, match="importing broken.py failed: RuntimeError: bad module"):
        load_app_file(tmp_path / "broken.py", discovery=True)


def test_eval_job_needs_exactly_one_success_rule() -> None:
    job = load_app_file(FIXTURES / "eval_app.py", discovery=True).select(None)
    with pytest.raises(JobError, match="needs exactly one @app.success rule on app 'evalapp'; found 0"):
        check_runnable(job)

    @job.app.success
    def done(task: object) -> bool:
        return True

    check_runnable(job)
