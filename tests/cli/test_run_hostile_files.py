"""Hostile app files: whatever an app file does at import or in its job, `simulo run` says what happened.

Each file is generated in tmp_path. A crash, an exit or a hang at import (discovery) is one line and
exit 2 without a run folder; the same in the job process is the job's failure (exit 1) or its timeout
(exit 124), naming the signal or the exit code.

Only the cases that hang run under a short bound (3 s at discovery, a 4 s job timeout): they never finish,
so the bound alone decides how long they take. The others end by themselves and get a generous bound, so
that a slow interpreter start on a loaded machine cannot turn their crash or exit into a timeout.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from simulo.cli import run
from simulo.platform.isolated_import import DISCOVERY_TIMEOUT_VARIABLE

# the cases that never finish: the bound their message names, and how long they take
HANG_DISCOVERY_S, HANG_JOB_S = 3, 4
# the cases that end by themselves: room for a slow start on a loaded machine, never waited out
ENDS_DISCOVERY_S, ENDS_JOB_S = 120, 120

_HEADER = "import os, sys, time, ctypes\nimport simulo\napp = simulo.App('hostile')\n"
_JOB = "\n@app.job\ndef main() -> dict:\n    return {'ok': True}\n"

# (case, top-level code, expected one-line message)
AT_IMPORT = [
    ("segfault", "ctypes.string_at(0)", "importing hostile.py killed the process by SIGSEGV"),
    ("sys_exit", "sys.exit(3)", "importing hostile.py exited the process (sys.exit(3)); an app file must not exit"),
    ("sys_exit_0", "sys.exit()", "importing hostile.py exited the process (sys.exit(None))"),
    ("os_exit", "print('leaving now', flush=True); os._exit(5)",
     "importing hostile.py ended the process with exit code 5 (os._exit at import?) (its last output: leaving now)"),
    ("hang", "time.sleep(600)", "importing hostile.py did not finish within 3 s"),
    ("raises", "raise RuntimeError('boom')", "importing hostile.py failed: RuntimeError: boom"),
    ("recursion", "def f(): return f()\nf()", "importing hostile.py failed: RecursionError"),
    ("thread", "import threading\nthreading.Thread(target=time.sleep, args=(600,), name='poller').start()",
     "importing hostile.py left a thread running (poller), which would keep simulo run from exiting"),
    ("keyboard_interrupt", "raise KeyboardInterrupt('from the file')",
     "importing hostile.py raised KeyboardInterrupt: from the file"),
]


def _write(tmp_path: Path, body: str, name: str = "hostile.py") -> str:
    path = tmp_path / name
    path.write_text(_HEADER + body + "\n" + _JOB, encoding="utf-8")
    return str(path)


def _one_line_error(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("argv", [[], ["--list"]], ids=["run", "list"])
@pytest.mark.parametrize(("case", "code", "message"), AT_IMPORT, ids=[c[0] for c in AT_IMPORT])
def test_a_hostile_import_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    case: str, code: str, message: str, argv: list[str],
) -> None:
    monkeypatch.setenv(DISCOVERY_TIMEOUT_VARIABLE, str(HANG_DISCOVERY_S if case == "hang" else ENDS_DISCOVERY_S))
    runs = tmp_path / "runs"
    status = run.main([_write(tmp_path, code), *argv, "--runs-dir", str(runs)])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    line = _one_line_error(err)
    assert line.startswith("simulo run: error: ") and message in line
    assert not runs.exists()  # no run folder was taken


def test_a_bad_discovery_timeout_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DISCOVERY_TIMEOUT_VARIABLE, "soon")
    assert run.main([_write(tmp_path, "pass")]) == 2
    line = _one_line_error(capsys.readouterr().err)
    assert "SIMULO_DISCOVERY_TIMEOUT='soon': expected a number of seconds > 0" in line


# (case, job body, sibling module imported only in execution mode, expected status, expected message)
IN_THE_JOB = [
    ("segfault", "ctypes.string_at(0)", None, 1, "failed on attempt 1/1: the job process was killed by SIGSEGV"),
    ("os_exit", "os._exit(7)", None, 1, "failed on attempt 1/1: the job process exited with code 7"),
    ("sys_exit_at_import", "pass", "import sys\nsys.exit(4)\n", 1,
     "JobError: importing hostile.py exited the process (sys.exit(4))"),
    ("import_never_returns", "pass", "import time\ntime.sleep(600)\n", 124,
     "job 'main' timed out after 4 s and was stopped (phase: import)"),
]


@pytest.mark.parametrize(("case", "body", "sibling", "status", "message"), IN_THE_JOB, ids=[c[0] for c in IN_THE_JOB])
def test_a_hostile_job_process_is_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
    case: str, body: str, sibling: str | None, status: int, message: str,
) -> None:
    text = _HEADER
    if sibling is not None:  # discovery answers this import with a placeholder; the job process runs it
        (tmp_path / "hostile_sibling.py").write_text(sibling, encoding="utf-8")
        text += "with app.runtime.imports():\n    import hostile_sibling\n"
    timeout = HANG_JOB_S if status == 124 else ENDS_JOB_S
    text += textwrap.dedent(f"""
        @app.job(timeout={timeout})
        def main() -> dict:
            {body}
            return {{'ok': True}}
        """)
    (tmp_path / "hostile.py").write_text(text, encoding="utf-8")
    code = run.main([str(tmp_path / "hostile.py"), "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code == status and out == ""
    assert message in err.strip().splitlines()[-1]
    assert "Traceback" not in err
