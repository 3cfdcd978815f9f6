"""A job is bounded by its timeout from ``simulo run``'s start, its app file's import included, and nothing
``simulo run`` starts outlives it, even when it is killed with SIGKILL (issue 28, item 1)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from simulo.cli import run
from simulo.platform.isolated_import import DISCOVERY_TIMEOUT_VARIABLE
from simulo.platform.static_jobs import DeclaredJob, declared_job

JOB_TIMEOUT_S = 3
BUSY_AT_IMPORT = f"""
import simulo
app = simulo.App("hostile")
while True:
    pass

@app.job(timeout={JOB_TIMEOUT_S})
def main() -> dict:
    return {{"ok": True}}
"""


def test_an_import_that_hangs_is_stopped_at_the_jobs_timeout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DISCOVERY_TIMEOUT_VARIABLE, "600")  # the job's timeout is the shorter bound
    (tmp_path / "busy.py").write_text(BUSY_AT_IMPORT, encoding="utf-8")
    runs = tmp_path / "runs"
    started = time.monotonic()
    code = run.main([str(tmp_path / "busy.py"), "--runs-dir", str(runs)])
    took = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 124 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert f"job 'main' timed out after {JOB_TIMEOUT_S} s and was stopped (phase: import)" in lines[0]
    assert JOB_TIMEOUT_S <= took < JOB_TIMEOUT_S + 30
    record = json.loads((runs / "hostile" / "main" / "0001" / "run.json").read_text(encoding="utf-8"))
    assert record["status"] == "timed_out" and record["phase"] == "import" and record["exit_code"] == 124
    assert record["attempts"] == 0
    assert "timed out" in (runs / "hostile" / "main" / "0001" / "log.txt").read_text(encoding="utf-8")


def test_list_keeps_the_discovery_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DISCOVERY_TIMEOUT_VARIABLE, "2")
    (tmp_path / "busy.py").write_text(BUSY_AT_IMPORT.replace(f"timeout={JOB_TIMEOUT_S}", "timeout=600"),
                                      encoding="utf-8")
    code = run.main([str(tmp_path / "busy.py"), "--list", "--runs-dir", str(tmp_path / "runs")])
    assert code == 2
    assert "importing busy.py did not finish within 2 s" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("text", "name", "expected"), [
    ("import simulo\napp = simulo.App('a')\n@app.job(timeout=5)\ndef t(): pass\n", None, DeclaredJob("a", "t", 5.0)),
    ("from simulo import App\napp = App(name='a')\n@app.job\ndef t(): pass\n@app.job(timeout=2.5)\ndef u(): pass\n",
     "u", DeclaredJob("a", "u", 2.5)),
    ("import simulo\napp = simulo.App('a')\n@app.job(timeout=T)\ndef t(): pass\n", None, DeclaredJob("a", "t", None)),
    ("import simulo\napp = simulo.App(NAME)\n@app.job(timeout=5)\ndef t(): pass\n", None, None),
    ("import simulo\napp = simulo.App('a')\n@app.job\ndef t(): pass\n@app.job\ndef u(): pass\n", None, None),
    ("def broken(:\n", None, None),
], ids=["literal", "by_name", "computed_timeout", "computed_app", "ambiguous", "syntax_error"])
def test_declared_job_reads_the_plain_form_only(
    tmp_path: Path, text: str, name: str | None, expected: DeclaredJob | None
) -> None:
    (tmp_path / "app.py").write_text(text, encoding="utf-8")
    assert declared_job(tmp_path / "app.py", name) == expected


def _processes_with(marker: str) -> list[int]:
    """The pids of this user's processes whose environment holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in environ and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; the parent-death signal is Linux's")
def test_sigkill_of_simulo_run_leaves_no_process_behind(tmp_path: Path) -> None:
    marker = f"simulo-orphan-test-{uuid.uuid4().hex}"
    (tmp_path / "busy.py").write_text(BUSY_AT_IMPORT.replace(f"timeout={JOB_TIMEOUT_S}", "timeout=600"),
                                      encoding="utf-8")
    env = {**os.environ, "SIMULO_ORPHAN_MARKER": marker, DISCOVERY_TIMEOUT_VARIABLE: "600"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulo.cli.main", "run", str(tmp_path / "busy.py"), "--runs-dir", str(tmp_path)],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_processes_with(marker)) < 2:  # simulo run and its discovery import, busy at import
            assert proc.poll() is None and time.monotonic() < deadline, "the discovery import never started"
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while (left := _processes_with(marker)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert left == [], f"processes of the killed run still running: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _processes_with(marker):  # what a failure left behind: only the processes this test started
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize(("setup", "body", "phase"), [
    ("class Hang:\n    def on_job_start(self, job_id):\n        time.sleep(600)\n", "pass", "build"),
    ("class Hang:\n    def on_job_start(self, job_id):\n        pass\n", "time.sleep(600)", "run"),
], ids=["build", "run"])
def test_a_timed_out_attempt_records_its_phase(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, setup: str, body: str, phase: str
) -> None:
    (tmp_path / "phases.py").write_text(
        f"import time\nimport simulo\napp = simulo.App('phases')\n{setup}\n"
        f"@app.job(timeout=8, callbacks=[Hang()])\ndef main() -> dict:\n    {body}\n    return {{}}\n",
        encoding="utf-8")
    code = run.main([str(tmp_path / "phases.py"), "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 124
    assert f"job 'main' timed out after 8 s and was stopped (phase: {phase})" in err.strip().splitlines()[-1]
    record = json.loads((tmp_path / "runs" / "phases" / "main" / "0001" / "run.json").read_text(encoding="utf-8"))
    assert (record["status"], record["phase"], record["attempts"]) == ("timed_out", phase, 1)
