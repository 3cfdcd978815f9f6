"""simulo.scale.worker_setup: a job's pip_install folders reach its Ray workers before they unpickle anything."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from simulo.scale import worker_setup
from simulo.scale.cluster import Cluster
from simulo.scale.worker_setup import JOB_PATH_VARIABLE


def test_extend_job_path_appends_the_named_folders_once_after_the_environments(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv(JOB_PATH_VARIABLE, f"{first}{worker_setup.os.pathsep}{second}")
    monkeypatch.setattr(sys, "path", [*sys.path])
    before = list(sys.path)
    worker_setup.extend_job_path()
    worker_setup.extend_job_path()
    assert sys.path == [*before, str(first), str(second)]


def test_an_unset_variable_names_no_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(JOB_PATH_VARIABLE, raising=False)
    assert worker_setup.job_path() == []


@pytest.mark.slow
def test_a_ray_worker_imports_a_module_that_only_the_jobs_folder_has(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("another test module's Ray cluster is running")
    folder = tmp_path / "pip-folder"
    folder.mkdir()
    (folder / "only_in_the_job_folder.py").write_text("ANSWER = 42\n", encoding="utf-8")
    monkeypatch.setenv(JOB_PATH_VARIABLE, str(folder))

    def answer() -> int:
        import only_in_the_job_folder  # type: ignore[import-not-found]

        return int(only_in_the_job_folder.ANSWER)

    with Cluster(1) as cluster:
        assert cluster.ray.get(cluster.ray.remote(answer).remote(), timeout=120) == 42
