"""Private: one attempt of a job, in its own process (started by :mod:`simulo.platform.runner`).

Usage: ``python -m simulo.platform._child SPEC_JSON``. Appends the run's extra import folders
(``Runtime.pip_install``'s cache) to ``sys.path``, imports the app file in execution mode, parses the
job flags (resolving ``--policy``-style checkpoint references against the app's runs folder), sets the
run context, calls the job and writes ``result.json`` (and the outputs the job saved with
``simulo.save_output``). It records the phase it reaches (``build`` once the app file is imported, ``run`` when
the job is called) in the spec's ``phase_file``, so a timeout names it, and dies with its parent
(:mod:`simulo.platform.orphans`). The job's callbacks hear of its start, its checkpoints, an anomaly and its end
(:mod:`simulo.platform.job_hooks`).

On an exception it writes ``attempt-<n>.error.json`` (type, message, traceback, and whether a retry
could help) and exits with 1. A failure a retry cannot fix (see :func:`retryable`) prints one line,
``Type: message (at FILE:LINE)``; any other prints its traceback.
"""

from __future__ import annotations

import contextlib
import enum
import json
import math
import os
import reprlib
import sys
import threading
import time
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

from simulo._files import write_atomically
from simulo.errors import JobError, NonFiniteError, SimuloError, SimuloValueError, WorkerError
from simulo.platform.context import RunContext, RunFlags, running
from simulo.platform.job_hooks import JobHooks
from simulo.platform.jobs import load_app_file
from simulo.platform.orphans import die_with_parent
from simulo.platform.outputs import collecting_outputs
from simulo.platform.params import Flag, job_flags, parse_flags
from simulo.platform.policies import PolicyCheckpoint
from simulo.platform.repeatable import call_job
from simulo.platform.runner import mark_phase
from simulo.platform.training_policy import training_policy
from simulo.rl.env import env_backend
from simulo.rl.recordings.live_settings import ENABLED_VARIABLE
from simulo.rl.recordings.training_3d_settings import requested_copies
from simulo.scale.settings import current_settings
from simulo.scale.worker_setup import JOB_PATH_VARIABLE

_PACKAGE_DIR = str(Path(__file__).resolve().parents[1])


def _to_json(value: Any) -> Any:
    """JSON form of values json cannot write: arrays and tensors, numpy scalars, paths, enums."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    raise TypeError(f"the job returned a {type(value).__name__}, which cannot be saved as JSON: {value!r}")


def _finite_json(value: Any, where: str, found: list[str]) -> Any:
    """``value`` (parsed JSON) with each NaN or infinity replaced by ``None``; their paths go to ``found``."""
    if isinstance(value, float) and not math.isfinite(value):
        found.append(where or "the result")
        return None
    if isinstance(value, dict):
        return {k: _finite_json(v, f"{where}[{k!r}]", found) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite_json(v, f"{where}[{i}]", found) for i, v in enumerate(value)]
    return value


def _unsaveable(value: Any, where: str, inside: frozenset[int]) -> str | None:
    """Where ``value`` holds something JSON cannot (and what), as a path from ``where``; None when it holds none."""
    if id(value) in inside:
        return f"{where} contains itself (a circular structure)"
    if value is None or isinstance(value, (str, bool, int, float)):
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not (key is None or isinstance(key, (str, int, float, bool))):
                return (f"{where} has the key {key!r}, a {type(key).__name__}: keys must be str, int, float, bool "
                        "or None")
            found = _unsaveable(item, f"{where}[{key!r}]", inside | {id(value)})
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple, set, frozenset)):
        for index, item in enumerate(value):
            found = _unsaveable(item, f"{where}[{index}]", inside | {id(value)})
            if found is not None:
                return found
        return None
    try:
        converted = _to_json(value)
    except TypeError:
        return f"{where} is a {type(value).__name__}, which JSON cannot hold: {reprlib.repr(value)}"
    return _unsaveable(converted, where, inside | {id(value)})


def result_json(result: Any) -> str:
    """The job's return value as JSON text; NaN and infinities become ``null`` (JSON has neither).

    The paths of the values replaced are reported on stderr, so the job's log says what ``null`` stands for.

    Raises:
        JobError: The result holds a value JSON cannot hold, a key that is not a string or number, or itself; the
            message gives the path (``result['nested'][(1, 2)]``).
    """
    try:
        text = json.dumps(result, default=_to_json, allow_nan=True)
    except (TypeError, ValueError, RecursionError) as exc:
        where = _unsaveable(result, "result", frozenset()) or f"result: {exc}"
        raise JobError(f"the job's result cannot be saved as JSON: {where}") from None
    found: list[str] = []
    clean = _finite_json(json.loads(text), "", found)
    if found:
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        print(f"simulo run: the job's result holds {len(found)} NaN or infinite number(s), saved as null: {shown}",
              file=sys.stderr, flush=True)
    return json.dumps(clean, indent=2, allow_nan=False)


def _resolve_checkpoints(flags: list[Flag], kwargs: dict[str, Any], run: RunContext) -> dict[str, Any]:
    """Replace each ``--policy``-style reference by its :class:`PolicyCheckpoint`, found in the app's runs folder."""
    app_runs_dir = run.run_dir.parent.parent  # RUNS/<app>/<job>/<NNNN>
    for flag in flags:
        value = kwargs.get(flag.name)
        if flag.kind != "checkpoint" or not isinstance(value, str):
            continue
        try:
            resolved = PolicyCheckpoint.resolve(value, app_runs_dir)
        except SimuloValueError as exc:
            raise JobError(f"{flag.flag}: {exc}") from exc
        print(f"simulo run: {flag.flag} {value} -> {resolved.path} ({resolved.checkpoint})", file=sys.stderr,
              flush=True)
        kwargs[flag.name] = resolved
    return kwargs


def _sharded_environments() -> contextlib.ExitStack[bool | None]:
    """Under ``--workers N`` (N > 1) or ``--address``, the job's LearningEnvs step over Ray actors.

    Under ``--viewstream`` they are also shown live (:mod:`simulo.rl.recordings.live`), served from here; under
    ``--record-3d COPIES`` they are recorded (:mod:`simulo.rl.recordings.training_3d`).
    """
    settings = current_settings()
    stack = contextlib.ExitStack()
    factory = None
    if settings.uses_ray:
        from simulo.scale.ray_env import backend_factory  # noqa: PLC0415 - imports Ray only when asked to

        factory = backend_factory(settings.workers, settings.address)
    copies = requested_copies()
    if copies is not None:
        from simulo.rl.recordings.training_3d import recording_backend  # noqa: PLC0415 - only when asked for

        factory = recording_backend(copies, factory)
    if os.environ.get(ENABLED_VARIABLE) == "1":
        from simulo.rl.recordings import live  # noqa: PLC0415 - the live view's modules only when asked for

        stream = live.serve_requested()
        assert stream is not None
        stack.callback(live.stop)
        factory = live.live_backend(stream, factory)
    if factory is not None:
        stack.enter_context(env_backend(factory))
    return stack


def retryable(exc: BaseException) -> bool:
    """Whether running the attempt again could end differently.

    Not retryable: simulo-local's own errors (bad input, a task that does not build or breaks its
    contract, a missing dependency), the SDK's contract errors, and import or syntax errors, which
    fail the same way every time. Retryable: a lost Ray worker, non-finite numbers (a retry resumes
    from the last checkpoint) and every other exception.
    """
    if isinstance(exc, (WorkerError, NonFiniteError)):
        return True
    if isinstance(exc, (SimuloError, ImportError, SyntaxError)):
        return False
    contract = sys.modules.get("simulo.interfaces.exceptions")
    return contract is None or not isinstance(exc, contract.SimuloError)


def _where(exc: BaseException) -> str:
    """``FILE:LINE`` of the innermost frame outside simulo-local that the error (or its cause) passed, or ''."""
    where = ""
    seen: BaseException | None = exc
    while seen is not None:
        tb: TracebackType | None = seen.__traceback__
        while tb is not None:
            name = tb.tb_frame.f_code.co_filename
            if not name.startswith(_PACKAGE_DIR) and not name.startswith("<"):
                where = f"{name}:{tb.tb_lineno}"
            tb = tb.tb_next
        seen = seen.__cause__
    return where


def _report_failure(exc: Exception, run: RunContext) -> None:
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next  # start the traceback at the app's code, not at this runner
    text = "".join(traceback.format_exception(type(exc), exc, tb))
    again = retryable(exc)
    if again:
        sys.stderr.write(text)
    else:
        where = _where(exc)
        sys.stderr.write(f"{type(exc).__name__}: {exc}{f' (at {where})' if where else ''}\n")
    sys.stderr.flush()
    record = {"type": type(exc).__name__, "message": str(exc), "traceback": text, "retryable": again}
    write_atomically(run.run_dir / f"attempt-{run.attempt}.error.json", json.dumps(record, indent=2), "error record")


def main(spec_text: str) -> int:
    """Run one attempt described by ``spec_text`` (JSON); return the process exit code."""
    spec = json.loads(spec_text)
    folders = [p for p in spec.get("python_path", ()) if p not in sys.path]
    sys.path.extend(folders)
    if folders:  # Ray workers of a --workers job need them too (simulo.scale.worker_setup)
        os.environ[JOB_PATH_VARIABLE] = os.pathsep.join(folders)
    flags_of_run = RunFlags.from_json(spec.get("flags", {}))
    run = RunContext.create(Path(spec["run_dir"]), int(spec["attempt"]), int(spec["max_attempts"]), flags_of_run)
    job_id = f"{run.run_dir.parent.parent.name}/{run.run_dir.parent.name}/{run.run_dir.name}"
    hooks = JobHooks((), job_id, run.checkpoint_dir)
    try:
        job = load_app_file(spec["file"], discovery=False).select(spec["job"])
        mark_phase(Path(spec["phase_file"]), "build")
        hooks = JobHooks(job.spec.callbacks, job_id, run.checkpoint_dir)
        flags = job_flags(job.spec.fn)
        kwargs = _resolve_checkpoints(flags, parse_flags(flags, spec["argv"]), run)
        hooks.start()
        with running(job.app, run), _sharded_environments(), training_policy(job, run), \
                collecting_outputs(run.run_dir) as outputs:
            mark_phase(Path(spec["phase_file"]), "run")
            result = call_job(job.spec.fn, kwargs, run)
            text = result_json(result)
            outputs.publish()
        write_atomically(run.run_dir / "result.json", text + "\n", "result")
    except Exception as exc:  # noqa: BLE001 - every failure of the job is reported, then retried or not
        _report_failure(exc, run)
        if isinstance(exc, NonFiniteError):
            hooks.anomaly(str(exc))
        hooks.end("failed")
        return 1
    hooks.end("completed")
    return 0


#: Seconds the job process waits, after the job, for threads the job left running before it ends without them.
STRAY_THREAD_GRACE_S = 2.0


def finish(code: int) -> int:
    """Return ``code`` once only daemon threads are left; end the process at once if the job's own stay running.

    Python waits for every non-daemon thread before the process may exit, so a job that leaves one running (a
    server, a worker loop) would keep its attempt, and ``simulo run``, from ever finishing. Its result is already
    saved by then: after a short grace the process ends without waiting (``os._exit``, so no ``atexit`` handler
    runs), saying which threads it left behind.
    """
    stray = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    deadline = time.monotonic() + STRAY_THREAD_GRACE_S
    for thread in stray:
        thread.join(max(0.0, deadline - time.monotonic()))
    stray = [t for t in stray if t.is_alive()]
    if not stray:
        return code
    names = ", ".join(repr(t.name) for t in stray)
    sys.stderr.write(f"simulo run: the job left {len(stray)} non-daemon thread(s) running ({names}); the job "
                     "process ends without waiting for them\n")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    die_with_parent()
    raise SystemExit(finish(main(sys.argv[1])))
