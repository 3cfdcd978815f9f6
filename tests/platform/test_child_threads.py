"""The job process ends after its job even when the job leaves a non-daemon thread running (no hang)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

APP = str(Path(__file__).parent / "fixtures" / "thread_app.py")


def test_a_thread_the_job_leaves_running_does_not_keep_the_run_from_ending(tmp_path: Path) -> None:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "simulo.cli.main", "run", APP, "--json", "--runs-dir",
                           str(tmp_path / "runs")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"served": True}
    assert "left 1 non-daemon thread(s) running ('left-behind')" in done.stderr
    assert time.monotonic() - start < 240  # the thread sleeps an hour; the job's timeout is ten minutes
    results = list((tmp_path / "runs").glob("threads/serve/*/result.json"))
    assert len(results) == 1 and json.loads(results[0].read_text()) == {"served": True}
