"""Failures a retry cannot fix fail at once: one line, no traceback, no new run folder (or no retry)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simulo.cli import run

FIXTURES = Path(__file__).parents[1] / "platform" / "fixtures" / "platform_features"
SPLIT = str(Path(__file__).parents[1] / "platform" / "fixtures" / "split_train.py")
SAMPLE_TRAIN = Path(__file__).parents[2] / "samples" / "cartpole" / "train.py"


def simulo_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_num_envs_zero_is_a_usage_error_without_a_run_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = simulo_run(capsys, str(FIXTURES / "bad_build.py"), "--num-envs", "0", "--runs-dir", str(tmp_path))
    assert code == 2 and err.strip() == "simulo run: error: --num-envs must be at least 1, got 0"
    assert list(tmp_path.iterdir()) == []


def test_a_missing_dependency_fails_before_the_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = simulo_run(capsys, str(FIXTURES / "missing_import.py"), "--runs-dir", str(tmp_path))
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "MissingDependencyError" in err and "'simulo_local_no_such_package'" in err and "pip install" in err
    assert list(tmp_path.iterdir()) == []


BLOCK_TRAIN_EXTRA = """\
import sys


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("torch", "skrl"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
"""


def test_a_training_job_without_the_train_extra_is_one_line_and_takes_no_run_folder(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(BLOCK_TRAIN_EXTRA)  # torch and skrl are not installed
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    done = subprocess.run([sys.executable, "-m", "simulo.cli.main", "run", str(SAMPLE_TRAIN), "--runs-dir",
                           str(tmp_path / "runs")], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "simulo run: error: MissingDependencyError: job 'train' is a training job (type=\"train\"), and "
        f"simulo.RLTrainer needs torch and skrl, which are not installed in {sys.executable}: "
        "pip install 'simulo-local[train]'"]
    assert not (tmp_path / "runs").exists()


def test_workers_without_ray_fail_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    code, _, err = simulo_run(capsys, SPLIT, "--workers", "2", "--runs-dir", str(tmp_path))
    assert code == 1 and "Ray, which is not installed" in err and "--workers 2" in err
    assert len(err.strip().splitlines()) == 1 and list(tmp_path.iterdir()) == []


def test_a_task_that_does_not_build_is_not_retried(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = simulo_run(capsys, str(FIXTURES / "bad_build.py"), "--runs-dir", str(tmp_path))
    assert code == 1
    assert "Traceback" not in err and "retrying" not in err
    assert "TaskError: Broken.observation_dim must be a positive integer" in err
    assert "(at " in err and "bad_build.py:" in err  # the line of the app that made it
    assert "a retry cannot fix this; not retried" in err
    run_dir = tmp_path / "bad_build" / "train" / "0001"
    assert sorted(p.name for p in run_dir.parent.iterdir()) == ["0001"]
    record = json.loads((run_dir / "run.json").read_text())
    assert record["attempts"] == 1 and record["status"] == "failed"
    error = json.loads((run_dir / "attempt-1.error.json").read_text())
    assert error["retryable"] is False and "Traceback" in error["traceback"]  # kept for whoever needs it


def test_an_unexpected_error_is_still_retried_with_its_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    app = tmp_path / "flaky.py"
    app.write_text(
        "import simulo\n"
        "app = simulo.App('flaky')\n"
        "@app.job(retries=1)\n"
        "def job() -> dict:\n"
        "    raise RuntimeError('the disk hiccuped')\n",
        encoding="utf-8",
    )
    code, _, err = simulo_run(capsys, str(app), "--runs-dir", str(tmp_path / "runs"))
    assert code == 1 and "retrying" in err and "Traceback" in err
    record = json.loads((tmp_path / "runs" / "flaky" / "job" / "0001" / "run.json").read_text())
    assert record["attempts"] == 2
