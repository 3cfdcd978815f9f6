"""Import an app file once in a child process first, so a hostile file cannot take ``simulo run`` down.

``simulo run`` reads an app file's jobs and flags by importing it (discovery mode, see
:mod:`simulo.platform.discovery`). An app file is arbitrary code: its top level can segfault (a C
extension), call ``sys.exit`` or ``os._exit``, or never return. :func:`check_import` therefore imports
the file first in a fresh ``python -m simulo.platform.isolated_import`` process, bounded by
:data:`DISCOVERY_TIMEOUT_VARIABLE` seconds (default :data:`DEFAULT_DISCOVERY_TIMEOUT_S`), and turns
whatever ended it into a one-line :class:`~simulo.errors.JobError`:

* killed by a signal: ``importing app.py killed the process by SIGSEGV``;
* ``sys.exit(n)`` / ``os._exit(n)`` at import: ``importing app.py exited the process (...)``;
* no return within the bound: ``importing app.py did not finish within 60 s``; when the job's own timeout
  is the shorter bound (``simulo run``, not ``--list``, passes it), :class:`ImportTimedOut` instead, which
  ``simulo run`` records as the job timing out in its import phase;
* a thread the file started and left running (it would keep ``simulo run`` from ever exiting):
  ``importing app.py left a thread running``;
* an ordinary import error: the same message the in-process import gives.

Only a file whose import ended normally in the child is imported again in the CLI's own process. The
child's output (what the file prints at import) is kept back; its last line is quoted when the import
failed. The child dies with the process that started it (:mod:`simulo.platform.orphans`), and a timeout
stops its whole process group.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from simulo.errors import JobError
from simulo.platform.orphans import child_environ, die_with_parent
from simulo.platform.runner import stop_process_group

DISCOVERY_TIMEOUT_VARIABLE = "SIMULO_DISCOVERY_TIMEOUT"
"""Environment variable: seconds an app file's discovery import may take (default 60)."""
DEFAULT_DISCOVERY_TIMEOUT_S = 60.0
_THREAD_GRACE_S = 1.0  # how long threads the file started may take to end after its import


def discovery_timeout() -> float:
    """The bound on a discovery import: ``$SIMULO_DISCOVERY_TIMEOUT`` seconds, else 60.

    Raises:
        JobError: The variable is not a positive number.
    """
    raw = os.environ.get(DISCOVERY_TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_DISCOVERY_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise JobError(f"{DISCOVERY_TIMEOUT_VARIABLE}={raw!r}: expected a number of seconds > 0")
    return value


def _last_line(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - 4096))
            lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return f" (its last output: {lines[-1][:200]})" if lines else ""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class ImportTimedOut(JobError):
    """The import did not finish within the job's own timeout (shorter than the discovery limit)."""


def check_import(path: str | Path, job_timeout: float | None = None) -> None:
    """Import the app file at ``path`` in discovery mode in a child process, bounded in time.

    Args:
        path: The app file.
        job_timeout: Seconds left of the job's timeout, when known: the import is bounded by the shorter of
            it and :func:`discovery_timeout`.

    Raises:
        ImportTimedOut: The import did not finish within ``job_timeout`` seconds, the shorter bound.
        JobError: The import failed, exited, was killed by a signal or did not finish within
            :func:`discovery_timeout` seconds; one line naming the file and what happened.
    """
    limit = discovery_timeout()
    timeout = limit if job_timeout is None else max(0.0, min(limit, job_timeout))
    name = Path(path).name
    with tempfile.TemporaryDirectory(prefix="simulo-discovery-") as tmp:
        result, output = Path(tmp) / "result.json", Path(tmp) / "output.txt"
        with open(output, "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "simulo.platform.isolated_import", str(path), str(result)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                env=child_environ({**os.environ, "PYTHONIOENCODING": "utf-8"}),
            )
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                stop_process_group(proc)
                if timeout < limit:
                    raise ImportTimedOut(f"importing {name} did not finish within the job's timeout") from None
                raise JobError(f"importing {name} did not finish within {timeout:g} s; an app file's top level "
                               f"should only declare its app and jobs (more time: {DISCOVERY_TIMEOUT_VARIABLE}="
                               "SECONDS)") from None
            except BaseException:
                stop_process_group(proc)
                raise
        if code < 0:
            raise JobError(f"importing {name} killed the process by {_signal_name(-code)}{_last_line(output)}")
        try:
            outcome = json.loads(result.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise JobError(f"importing {name} ended the process with exit code {code} (os._exit at import?)"
                           f"{_last_line(output)}") from None
        if "error" in outcome:
            raise JobError(str(outcome["error"]))


def _left_running(name: str) -> dict[str, str]:
    """An error when the import left a non-daemon thread running (after :data:`_THREAD_GRACE_S`), else ``{}``."""
    deadline = time.monotonic() + _THREAD_GRACE_S
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    running = [t.name for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon
               and t.is_alive()]
    if not running:
        return {}
    return {"error": f"importing {name} left a thread running ({', '.join(running)}), which would keep simulo run "
                     "from exiting; start threads in the job, or make them daemon threads"}


def _main(path: str, result: str) -> int:
    from simulo.platform.jobs import load_app_file  # noqa: PLC0415 - only the child imports the app

    try:
        load_app_file(path, discovery=True)
        outcome: dict[str, str] = _left_running(Path(path).name)
    except JobError as exc:
        outcome = {"error": str(exc)}
    except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt or GeneratorExit raised by the file itself
        outcome = {"error": f"importing {Path(path).name} raised {type(exc).__name__}: {exc}"}
    Path(result).write_text(json.dumps(outcome), encoding="utf-8")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # no interpreter teardown: atexit handlers and threads the file started cannot hang or crash it


if __name__ == "__main__":
    die_with_parent()
    raise SystemExit(_main(sys.argv[1], sys.argv[2]))
