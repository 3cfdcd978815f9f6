"""simulo run --runs-dir: a runs folder that cannot hold run folders is a usage error (exit 2), not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulo.cli import run
from simulo.platform.runner import EXIT_USAGE

APP = '''
import simulo

app = simulo.App("tiny")


@app.job
def hello() -> dict:
    return {"ok": True}
'''


def test_simulo_run_bad_runs_dir_exits_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app_file = tmp_path / "app.py"
    app_file.write_text(APP)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    assert run.main([str(app_file), "--runs-dir", str(blocker)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "simulo run: error: cannot create a run folder" in err
    assert "Traceback" not in err
