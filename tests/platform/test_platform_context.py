"""RunContext: checkpoints, attempts, environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from simulo.platform.app import App
from simulo.platform.context import ENV_RUN_DIR, RunContext, current_run, running


def test_latest_checkpoint_prefers_latest_then_newest(tmp_path: Path) -> None:
    run = RunContext.create(tmp_path / "0001", attempt=2, max_attempts=3)
    assert run.checkpoint_dir.is_dir() and run.is_retry
    assert run.latest_checkpoint() is None
    older, newer = run.checkpoint_dir / "iter-1.pt", run.checkpoint_dir / "iter-2.pt"
    older.write_text("1")
    newer.write_text("2")
    os.utime(older, ns=(1_000_000_000, 1_000_000_000))
    os.utime(newer, ns=(2_000_000_000, 2_000_000_000))
    (run.checkpoint_dir / "partial.tmp").write_text("x")
    (run.checkpoint_dir / ".hidden").write_text("x")
    assert run.latest_checkpoint() == newer
    best = run.checkpoint_dir / "best.pt"
    best.write_text("b")
    os.utime(best, ns=(3_000_000_000, 3_000_000_000))
    assert run.latest_checkpoint() == best
    (run.checkpoint_dir / "latest.pt").write_text("l")
    os.utime(run.checkpoint_dir / "latest.pt", ns=(500_000_000, 500_000_000))
    assert run.latest_checkpoint() == run.checkpoint_dir / "latest.pt"


def test_current_run_from_context_and_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_RUN_DIR, raising=False)
    assert current_run() is None
    run = RunContext.create(tmp_path, attempt=1, max_attempts=2)
    with running(App("a"), run):
        assert current_run() is run
    assert current_run() is None
    for key, value in run.environ().items():
        monkeypatch.setenv(key, value)
    assert current_run() == run
