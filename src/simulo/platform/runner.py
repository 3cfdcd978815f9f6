r"""Run one job of an app file locally: a child process per attempt, a timeout, retries, a runs folder.

Layout of a run (``RUNS`` is ``--runs-dir``, else ``$SIMULO_RUNS_DIR``, else ``./runs``)::

    RUNS/<app>/<job>/<NNNN>/        one folder per ``simulo run`` (0001, 0002, ...)
        params.json                 the job's parameters (given flags and defaults)
        run.json                    file, job, flags, tags, status ("running" until it ends), attempts, error
        request.json                the run's request (what a ``--detach`` run's background process reads)
        log.txt                     everything the job printed, all attempts, and the runner's progress lines
        checkpoints/                RunContext.checkpoint_dir, shared by the attempts
        attempt-<n>.error.json      type, message and traceback of a failed attempt
        attempt-<n>.phase           the phase the attempt reached: build, then run (absent: import)
        result.json                 the job's return value, on success

Each attempt runs in a fresh Python process (``python -m simulo.platform._child``) in its own
process group, so a timeout can stop it and everything it started. Its stdout and stderr are
streamed to this process's stderr and to ``log.txt``. ``timeout`` is one budget for all attempts
together, counted from ``simulo run``'s start (the app file's discovery import included, see
:mod:`simulo.platform.isolated_import`; a ``--detach`` run's clock starts in its background process); when it
runs out the job is stopped (SIGTERM, then SIGKILL after a short grace) and not retried, and ``run.json``
says ``"timed_out"`` with the ``phase`` the job was in: ``import`` (the app file), ``build`` (its flags,
checkpoints and environments' backend) or ``run`` (the job function). The attempt dies with this process
(:mod:`simulo.platform.orphans`), even when this process is killed with SIGKILL. A failed attempt is retried
while ``retries`` allow; the retry finds the earlier attempts' checkpoints through
:func:`simulo.platform.context.current_run`. An attempt whose error a retry cannot fix (the child marks it
``"retryable": false``: bad input, a missing dependency, a task that does not build) is not retried.

:func:`run_job` is :func:`start_run` (the run folder and its records) then :func:`execute_run` (the
attempts); ``simulo run --detach`` calls the second in a background process
(:mod:`simulo.platform.background`).

The attempt launcher :func:`_run_attempt` is the one place that decides where an attempt runs. The
attempt itself always runs here; ``--workers``/``--address`` reach it as :mod:`simulo.scale.settings`'s
environment variables, and the job process then installs the Ray backend
(:func:`simulo.scale.ray_env.backend_factory`) for the job's ``simulo.LearningEnv`` objects (see
:mod:`simulo.scale`). The flags are the only source: without them the variables are cleared.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from simulo._files import write_atomically
from simulo.errors import JobError
from simulo.platform.context import RunContext, RunFlags
from simulo.platform.orphans import child_environ
from simulo.scale.settings import ENV_ADDRESS, ScaleSettings

ENV_RUNS_DIR = "SIMULO_RUNS_DIR"
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 124
EXIT_INTERRUPTED = 130
KILL_GRACE_S = 2.0
PHASES = ("import", "build", "run")
"""The phases of an attempt, in order: importing the app file, preparing the job's call, running the job."""


@dataclass(frozen=True)
class RunRequest:
    """Everything needed to run one job.

    Attributes:
        file: The app file.
        app: The app's name.
        job: The job's name.
        argv: The job flags as given (each attempt parses them again).
        params: The effective parameters, JSON-ready (saved as ``params.json``).
        timeout: Seconds for all attempts together, or ``None``.
        retries: Extra attempts after a failure.
        env: Extra environment variables for the job process (``app.runtime.env(...)``).
        workers: Ray workers of the job's sharded environments (1: one process, no Ray).
        address: An existing Ray cluster for them, or ``None``.
        flags: The ``simulo run`` options the job acts on (``--from``, ``--compare``, ``--tag``, ...).
        python_path: Folders appended to the job process's ``sys.path`` (``Runtime.pip_install``'s cache).
    """

    file: Path
    app: str
    job: str
    argv: tuple[str, ...]
    params: dict[str, Any]
    timeout: float | None = None
    retries: int = 0
    env: tuple[tuple[str, str], ...] = ()
    workers: int = 1
    address: str | None = None
    flags: RunFlags = field(default_factory=RunFlags)
    python_path: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the request (read back by :meth:`from_json`)."""
        return {
            "file": str(self.file), "app": self.app, "job": self.job, "argv": list(self.argv),
            "params": self.params, "timeout": self.timeout, "retries": self.retries,
            "env": [list(pair) for pair in self.env], "workers": self.workers, "address": self.address,
            "flags": self.flags.to_json(), "python_path": list(self.python_path),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRequest:
        """The request :meth:`to_json` wrote."""
        return cls(
            file=Path(data["file"]), app=data["app"], job=data["job"], argv=tuple(data["argv"]),
            params=dict(data["params"]), timeout=data["timeout"], retries=int(data["retries"]),
            env=tuple((str(k), str(v)) for k, v in data["env"]), workers=int(data["workers"]),
            address=data["address"], flags=RunFlags.from_json(data["flags"]),
            python_path=tuple(data["python_path"]),
        )


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended.

    Attributes:
        status: ``"completed"``, ``"failed"``, ``"timed_out"`` or ``"interrupted"``.
        exit_code: 0, 1, 124 or 130.
        run_dir: The run's folder.
        attempts: Attempts started.
        result: The job's return value (when completed).
        error: One line saying what went wrong (otherwise).
        phase: The phase a timed-out job was stopped in (one of :data:`PHASES`), else ``None``.
    """

    status: str
    exit_code: int
    run_dir: Path
    attempts: int
    result: Any = None
    error: str | None = None
    phase: str | None = None


def runs_root(option: str | Path | None) -> Path:
    """The runs folder: the option, else ``$SIMULO_RUNS_DIR``, else ``./runs``."""
    if option is not None:
        return Path(option)
    return Path(os.environ.get(ENV_RUNS_DIR) or "runs")


_NUMBERED = re.compile(r"[0-9]{1,12}")


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "_"


def new_run_dir(root: Path, app: str, job: str) -> Path:
    """Create and return the next numbered run folder ``root/<app>/<job>/<NNNN>``."""
    parent = root / _safe(app) / _safe(job)
    parent.mkdir(parents=True, exist_ok=True)
    while True:
        numbers = [int(p.name) for p in parent.iterdir() if _NUMBERED.fullmatch(p.name)]  # stray names skipped
        candidate = parent / f"{max(numbers, default=0) + 1:04d}"
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically (a temporary file, then a rename).

    Raises:
        RecordWriteError: The file cannot be written (a full disk); it keeps its previous content.
    """
    write_atomically(path, json.dumps(data, indent=2, default=str) + "\n", "run record")


class _Tee(threading.Thread):
    """Copies a child's output to a text stream and a log file as it arrives."""

    def __init__(self, source: IO[bytes], stream: IO[str], log: IO[bytes]) -> None:
        super().__init__(daemon=True)
        self._source, self._stream, self._log = source, stream, log
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def run(self) -> None:
        fd = self._source.fileno()
        while chunk := os.read(fd, 65536):
            self._log.write(chunk)
            self._log.flush()
            self._stream.write(self._decoder.decode(chunk))
            self._stream.flush()
        tail = self._decoder.decode(b"", final=True)
        if tail:
            self._stream.write(tail)
            self._stream.flush()


def phase_file(run_dir: Path, attempt: int) -> Path:
    """The file where attempt ``attempt`` records the phase it has reached (see :func:`mark_phase`)."""
    return run_dir / f"attempt-{attempt}.phase"


def mark_phase(path: Path, phase: str) -> None:
    """Record that the attempt has reached ``phase`` (one of :data:`PHASES`), atomically."""
    write_atomically(path, phase, "phase record")


def _reached_phase(path: Path) -> str:
    try:
        phase = path.read_text(encoding="utf-8").strip()
    except OSError:
        return PHASES[0]
    return phase if phase in PHASES else PHASES[0]


def stop_process_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the attempt's whole process group: SIGTERM, then SIGKILL after a grace period."""
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _run_attempt(
    request: RunRequest, context: RunContext, deadline: float | None, stream: IO[str], log: IO[bytes]
) -> int | None:
    """Run one attempt in a child process; its exit code, or ``None`` if the deadline passed."""
    spec = {
        "file": str(request.file),
        "job": request.job,
        "argv": list(request.argv),
        "run_dir": str(context.run_dir),
        "attempt": context.attempt,
        "max_attempts": context.max_attempts,
        "flags": context.flags.to_json(),
        "python_path": list(request.python_path),
        "phase_file": str(phase_file(context.run_dir, context.attempt)),
    }
    # the job writes UTF-8 whatever this terminal's encoding (the tee decodes UTF-8; stderr backslash-escapes)
    env = {**os.environ, **dict(request.env), **context.environ(), "PYTHONUNBUFFERED": "1",
           "PYTHONIOENCODING": "utf-8"}
    env.pop(ENV_ADDRESS, None)
    env.update(ScaleSettings(request.workers, request.address).environ())
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulo.platform._child", json.dumps(spec)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=child_environ(env),
        start_new_session=True,
    )
    assert proc.stdout is not None
    tee = _Tee(proc.stdout, stream, log)
    tee.start()
    try:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            code: int | None = proc.wait(timeout=remaining)
        except subprocess.TimeoutExpired:
            stop_process_group(proc)
            code = None
    except BaseException:
        stop_process_group(proc)
        raise
    finally:
        tee.join(timeout=5.0)
        proc.stdout.close()
    return code


def _attempt_error(run_dir: Path, attempt: int, code: int) -> tuple[str, bool]:
    """One line saying why an attempt failed, and whether a retry could help."""
    record = run_dir / f"attempt-{attempt}.error.json"
    if record.is_file():
        data = json.loads(record.read_text(encoding="utf-8"))
        return f"{data['type']}: {data['message']}", bool(data.get("retryable", True))
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the job process was killed by {name}", True
    return f"the job process exited with code {code}", True


def _meta(request: RunRequest) -> dict[str, Any]:
    return {
        "app": request.app,
        "job": request.job,
        "file": str(request.file),
        "argv": list(request.argv),
        "timeout": request.timeout,
        "retries": request.retries,
        "workers": request.workers,
        "address": request.address,
        "flags": request.flags.to_json(),
        "tags": list(request.flags.tags),
    }


def run_id(run_dir: Path) -> str:
    """The id of a run: ``<app>/<job>/<NNNN>``, its folder relative to the runs folder."""
    return f"{run_dir.parent.parent.name}/{run_dir.parent.name}/{run_dir.name}"


def start_run(request: RunRequest, root: Path, *, detached: bool = False) -> Path:
    """Create the run's folder under ``root`` and write its records (``run.json`` says ``"running"``).

    Args:
        request: The job and its flags.
        root: The runs folder.
        detached: The attempts run in a background process, which records its own ``pid`` (``run.json``
            holds ``null`` until then); otherwise this process's pid is recorded.

    Raises:
        JobError: No run folder can be created under ``root`` (not a folder, or not writable).
    """
    try:
        run_dir = new_run_dir(root, request.app, request.job).resolve()
    except OSError as exc:
        raise JobError(f"cannot create a run folder under the runs folder {str(root)!r}: "
                       f"{exc.strerror or exc}; expected a writable folder (--runs-dir DIR)") from exc
    write_json(run_dir / "params.json", request.params)
    write_json(run_dir / "request.json", request.to_json())
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    write_json(run_dir / "run.json", {**_meta(request), "status": "running", "attempts": 0, "error": None,
                                       "started": started, "pid": None if detached else os.getpid()})
    return run_dir


class _Terminated(BaseException):
    """Raised in the main thread when this process gets SIGTERM (``timeout``, ``kill``, a service manager)."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise _Terminated


def _timed_out(request: RunRequest, run_dir: Path, attempts: int, phase: str) -> RunOutcome:
    message = f"job {request.job!r} timed out after {request.timeout:g} s and was stopped (phase: {phase})"
    return RunOutcome("timed_out", EXIT_TIMEOUT, run_dir, attempts, error=message, phase=phase)


def _record_outcome(request: RunRequest, outcome: RunOutcome) -> None:
    """Write the run's outcome into its ``run.json``."""
    record = json.loads((outcome.run_dir / "run.json").read_text(encoding="utf-8"))
    record.update({**_meta(request), "status": outcome.status, "attempts": outcome.attempts, "error": outcome.error,
                   "exit_code": outcome.exit_code, "ended": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    if outcome.phase is not None:
        record["phase"] = outcome.phase
    write_json(outcome.run_dir / "run.json", record)


def record_import_timeout(request: RunRequest, root: Path) -> RunOutcome:
    """Record a run whose app file's import (in ``simulo run`` itself) outlasted the job's timeout.

    The run gets its folder, a ``log.txt`` line and a ``run.json`` that says ``"timed_out"`` in phase ``import``,
    with no attempt started.

    Raises:
        JobError: No run folder can be created under ``root``.
    """
    run_dir = start_run(request, root)
    outcome = _timed_out(request, run_dir, 0, PHASES[0])
    with open(run_dir / "log.txt", "ab") as log:
        log.write(f"simulo run: error: {outcome.error}\n".encode())
    _record_outcome(request, outcome)
    return outcome


def execute_run(
    request: RunRequest, run_dir: Path, stream: IO[str] | None = None, *, started: float | None = None
) -> RunOutcome:
    """Run the attempts of a run that :func:`start_run` created; ``run.json`` gets the outcome.

    Ctrl-C or SIGTERM (in the main thread) stops the attempt's process group and records the run as
    ``"interrupted"``: a stopped run does not stay ``"running"`` in ``run.json``.

    Args:
        request: The job and its flags.
        run_dir: The run's folder.
        stream: Where the job's output and progress messages go (default: ``sys.stderr``); the
            output and the progress lines also go to ``log.txt``.
        started: When the job was launched (``time.monotonic()``; default: now); the timeout counts from then.
    """
    out = stream if stream is not None else sys.stderr
    max_attempts = request.retries + 1
    begin = time.monotonic() if started is None else started
    deadline = None if request.timeout is None else begin + request.timeout
    outcome: RunOutcome | None = None
    attempt = 0
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if in_main else None
    with open(run_dir / "log.txt", "ab") as log:

        def say(message: str) -> None:
            print(f"simulo run: {message}", file=out, flush=True)
            log.write(f"simulo run: {message}\n".encode())
            log.flush()

        try:
            while outcome is None:
                attempt += 1
                context = RunContext.create(run_dir, attempt, max_attempts, request.flags)
                say(f"{request.app}/{request.job} attempt {attempt}/{max_attempts} in {run_dir}")
                code = _run_attempt(request, context, deadline, out, log)
                if code is None:
                    outcome = _timed_out(request, run_dir, attempt, _reached_phase(phase_file(run_dir, attempt)))
                elif code == 0 and (run_dir / "result.json").is_file():
                    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
                    outcome = RunOutcome("completed", EXIT_OK, run_dir, attempt, result=result)
                else:
                    error, retryable = _attempt_error(run_dir, attempt, code)
                    if attempt < max_attempts and retryable:
                        checkpoint = context.latest_checkpoint()
                        resume = f"from {checkpoint}" if checkpoint else "from the start (no checkpoint yet)"
                        say(f"attempt {attempt} failed ({error}); retrying {resume}")
                    else:
                        why = "" if retryable or attempt == max_attempts else " (a retry cannot fix this; not retried)"
                        message = f"job {request.job!r} failed on attempt {attempt}/{max_attempts}: {error}{why}"
                        log.write(f"simulo run: error: {message}\n".encode())
                        outcome = RunOutcome("failed", EXIT_FAILED, run_dir, attempt, error=message)
        except KeyboardInterrupt:
            outcome = RunOutcome("interrupted", EXIT_INTERRUPTED, run_dir, attempt, error="interrupted")
        except _Terminated:
            outcome = RunOutcome("interrupted", EXIT_INTERRUPTED, run_dir, attempt, error="stopped by SIGTERM")
            say(f"stopped by SIGTERM during attempt {attempt}; the job's processes were stopped")
        finally:
            if in_main:
                signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
    _record_outcome(request, outcome)
    return outcome


def run_job(
    request: RunRequest, root: Path, stream: IO[str] | None = None, *, started: float | None = None
) -> RunOutcome:
    """Run a job with its timeout and retries; results go to a new run folder under ``root``.

    Args:
        request: The job and its flags.
        root: The runs folder.
        stream: Where the job's output and progress messages go (default: ``sys.stderr``).
        started: When the job was launched (``time.monotonic()``; default: now); the timeout counts from then.

    Returns:
        The outcome; ``result.json``, ``run.json`` and ``params.json`` are written.

    Raises:
        JobError: No run folder can be created under ``root`` (not a folder, or not writable).
    """
    return execute_run(request, start_run(request, root), stream, started=started)
