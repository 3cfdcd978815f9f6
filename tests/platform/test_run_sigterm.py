"""A `simulo run` stopped with SIGTERM stops its job's processes and records the run as interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

APP = """
import os
import time

import simulo
from simulo.platform.context import current_run

app = simulo.App("sigterm demo")


@app.job(timeout=3600)
def nap() -> dict:
    (current_run().run_dir / "nap.pid").write_text(str(os.getpid()))
    print("nap: sleeping", flush=True)
    time.sleep(3600)
    return {}
"""


def _wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_sigterm_records_the_run_as_interrupted_and_stops_the_job(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    app = tmp_path / "nap_app.py"
    app.write_text(APP)
    proc = subprocess.Popen([sys.executable, "-m", "simulo.cli.main", "run", str(app), "--runs-dir", str(runs)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    run_dir = runs / "sigterm_demo" / "nap" / "0001"
    log = run_dir / "log.txt"
    try:
        assert _wait_for(lambda: log.is_file() and b"nap: sleeping" in log.read_bytes(), 120), "the job never started"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    record = json.loads((run_dir / "run.json").read_text())
    assert record["status"] == "interrupted" and record["error"] == "stopped by SIGTERM"
    assert record["exit_code"] == 130
    job_pid = int((run_dir / "nap.pid").read_text())
    assert _wait_for(lambda: not _alive(job_pid), 10), "the job's process outlived its run"
    assert proc.stderr is not None and b"stopped by SIGTERM" in proc.stderr.read()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
