"""Private: one attempt of a job, in its own process (started by :mod:`simulo.platform.runner`).

Usage: ``python -m simulo.platform._child SPEC_JSON``. Imports the app file in execution mode,
parses the job flags (resolving ``--policy``-style checkpoint references against the app's runs
folder), sets the run context, calls the job and writes ``result.json``; on an
exception it prints the traceback and writes ``attempt-<n>.error.json``, and exits with 1.
"""

from __future__ import annotations

import contextlib
import enum
import json
import sys
import traceback
from pathlib import Path
from typing import Any

from simulo.errors import JobError, SimuloValueError
from simulo.platform.context import RunContext, running
from simulo.platform.jobs import load_app_file
from simulo.platform.params import Flag, job_flags, parse_flags
from simulo.platform.policies import PolicyCheckpoint
from simulo.rl.env import env_backend
from simulo.scale.settings import current_settings


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


def _hook(callbacks: tuple[Any, ...], name: str, *args: Any) -> None:
    for callback in callbacks:
        method = getattr(callback, name, None)
        if callable(method):
            method(*args)


def _sharded_environments() -> contextlib.AbstractContextManager[None]:
    """Under ``--workers N`` (N > 1) or ``--address``, the job's LearningEnvs step over Ray actors."""
    settings = current_settings()
    if not settings.uses_ray:
        return contextlib.nullcontext()
    from simulo.scale.ray_env import backend_factory  # noqa: PLC0415 - imports Ray only when asked to

    return env_backend(backend_factory(settings.workers, settings.address))


def main(spec_text: str) -> int:
    """Run one attempt described by ``spec_text`` (JSON); return the process exit code."""
    spec = json.loads(spec_text)
    run = RunContext.create(Path(spec["run_dir"]), int(spec["attempt"]), int(spec["max_attempts"]))
    job_id = f"{run.run_dir.parent.parent.name}/{run.run_dir.parent.name}/{run.run_dir.name}"
    callbacks: tuple[Any, ...] = ()
    try:
        job = load_app_file(spec["file"], discovery=False).select(spec["job"])
        callbacks = job.spec.callbacks
        flags = job_flags(job.spec.fn)
        kwargs = _resolve_checkpoints(flags, parse_flags(flags, spec["argv"]), run)
        _hook(callbacks, "on_job_start", job_id)
        with running(job.app, run), _sharded_environments():
            result = job.spec.fn(**kwargs)
        text = json.dumps(result, indent=2, default=_to_json, allow_nan=True)
    except Exception as exc:  # noqa: BLE001 - every failure of the job is reported, then retried or not
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next  # start the traceback at the app's code, not at this runner
        text = "".join(traceback.format_exception(type(exc), exc, tb))
        sys.stderr.write(text)
        sys.stderr.flush()
        record = {"type": type(exc).__name__, "message": str(exc), "traceback": text}
        (run.run_dir / f"attempt-{run.attempt}.error.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
        _hook(callbacks, "on_job_end", job_id, "failed")
        return 1
    tmp = run.run_dir / "result.json.tmp"
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(run.run_dir / "result.json")
    _hook(callbacks, "on_job_end", job_id, "completed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
