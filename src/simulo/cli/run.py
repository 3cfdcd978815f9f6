"""``simulo run FILE [--job NAME] [--list] [--runs-dir DIR] [--param value ...]``: run a job locally.

The app file is imported in discovery mode (torch and other heavy imports inside
``app.runtime.imports()`` are not loaded) to find its jobs and check the flags; the job then runs
in a child process (see :mod:`simulo.platform.runner`). Its output streams to stderr and to the
run's ``log.txt``; its return value is printed on stdout as JSON and saved as ``result.json``.

Exit status: 0 the job completed, 1 it failed (after its retries) or, as in the cloud's client, it is a
preview job whose report failed a check, 2 usage error (bad file, no or ambiguous job, unknown flag, bad
value), 124 it ran past its timeout, 130 interrupted.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from simulo.errors import JobError, SimuloValueError
from simulo.platform.app import JobFunction
from simulo.platform.jobs import JobFile, check_runnable, load_app_file
from simulo.platform.params import Flag, job_flags, jsonable_params, parse_flags
from simulo.platform.runner import EXIT_FAILED, EXIT_USAGE, RunRequest, run_job, runs_root
from simulo.platform.systems import JobType
from simulo.scale.settings import ScaleSettings

USAGE = """\
usage: simulo run FILE [--job NAME] [--list] [--runs-dir DIR] [--workers N] [--address ADDR] [--PARAM VALUE ...]

Run a job of an app file on this computer.

  FILE            a Python file declaring jobs with @app.job
  --job NAME      the job to run (needed when FILE declares several)
  --list          list the jobs and their flags, without loading torch or the engine
  --runs-dir DIR  where runs are saved (default: $SIMULO_RUNS_DIR, else ./runs)
  --workers N     shard the job's simulo.LearningEnv over N Ray workers (default 1: one process,
                  no Ray); needs the ray extra (see docs/scale-out.md)
  --address ADDR  use the Ray cluster at ADDR (HOST:6379 or ray://HOST:10001) instead of a local one
  --PARAM VALUE   the job's parameters: num_envs is --num-envs; booleans are --x/--no-x

Exit status: 0 completed, 1 failed (a preview: a check failed), 2 usage error, 124 timed out."""

_OWN = ("--job", "--list", "--runs-dir", "--workers", "--address", "-h", "--help")


@dataclass(frozen=True)
class _Options:
    job: str | None
    list_jobs: bool
    runs_dir: str | None
    help: bool
    workers: int = 1
    address: str | None = None


def _split(argv: Sequence[str]) -> tuple[_Options, list[str]]:
    """Separate simulo run's own options from the job's flags."""
    job: str | None = None
    runs_dir: str | None = None
    workers = "1"
    address: str | None = None
    list_jobs = show_help = False
    rest: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        key, eq, inline = token.partition("=")
        if key in ("--job", "--runs-dir", "--workers", "--address"):
            if eq:
                value = inline
            elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                i += 1
                value = argv[i]
            else:
                raise JobError(f"{key} needs a value")
            if key == "--job":
                job = value
            elif key == "--workers":
                workers = value
            elif key == "--address":
                address = value
            else:
                runs_dir = value
        elif token == "--list":
            list_jobs = True
        elif token in ("-h", "--help"):
            show_help = True
        else:
            rest.append(token)
        i += 1
    try:
        scale = ScaleSettings(int(workers), address)
    except (ValueError, SimuloValueError):
        raise JobError(f"--workers needs a whole number >= 1 and --address a Ray address (HOST:6379 or "
                       f"ray://HOST:10001), got --workers {workers!r}, --address {address!r}") from None
    return _Options(job, list_jobs, runs_dir, show_help, scale.workers, scale.address), rest


def _flags_of(job: JobFunction) -> list[Flag]:
    flags = job_flags(job.spec.fn)
    for flag in flags:
        if flag.flag in _OWN or f"--no-{flag.flag[2:]}" in _OWN:
            raise JobError(
                f"job {job.spec.name!r}: parameter {flag.name!r} would be flag {flag.flag}, which simulo run "
                "uses itself; rename the parameter"
            )
    return flags


def _describe_job(job: JobFunction) -> str:
    spec = job.spec
    facts = [f"type {spec.job_type.value}" if spec.job_type else "untyped"]
    if spec.timeout is not None:
        facts.append(f"timeout {spec.timeout:g} s")
    if spec.retries:
        facts.append(f"retries {spec.retries}")
    if spec.system is not None:
        facts.append(f"system {spec.system.value}")
    if spec.gpu is not None:
        facts.append(f"gpu {spec.gpu}")
    lines = [f"  {spec.name}  [{', '.join(facts)}]  (app {job.app.name!r})"]
    doc = (spec.fn.__doc__ or "").strip().splitlines()
    if doc:
        lines.append(f"      {doc[0]}")
    flags = _flags_of(job)
    lines.extend(f"      {flag.usage()}" for flag in flags)
    if not flags:
        lines.append("      (no flags)")
    return "\n".join(lines)


def _listing(job_file: JobFile) -> str:
    if not job_file.jobs:
        return f"{job_file.path.name}: no jobs (decorate a function with @app.job)"
    header = f"{job_file.path.name}: {len(job_file.jobs)} job(s)"
    return "\n".join([header, *(_describe_job(job) for job in job_file.jobs)])


def _error(message: str) -> int:
    print(f"simulo run: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str]) -> int:
    """Run ``simulo run``; returns the exit status."""
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else EXIT_USAGE
    if argv[0].startswith("-"):
        return _error(f"the first argument must be the app file, got {argv[0]!r}\n{USAGE}")
    try:
        options, job_argv = _split(argv[1:])
        job_file = load_app_file(argv[0], discovery=True)
        if options.list_jobs or options.help:
            print(_listing(job_file))
            return 0
        job = job_file.select(options.job)
        check_runnable(job)
        flags = _flags_of(job)
        values = parse_flags(flags, job_argv)
    except JobError as exc:
        return _error(str(exc))
    params = {f.name: values.get(f.name, f.default) for f in flags if f.name in values or not f.required}
    request = RunRequest(
        file=job_file.path,
        app=job.app.name,
        job=job.spec.name,
        argv=tuple(job_argv),
        params=jsonable_params(params),
        timeout=job.spec.timeout,
        retries=job.spec.retries,
        env=tuple(job.app.runtime.runtime_env.items()),
        workers=options.workers,
        address=options.address,
    )
    try:
        outcome = run_job(request, runs_root(options.runs_dir))
    except JobError as exc:
        return _error(str(exc))
    if outcome.status == "completed":
        print(json.dumps(outcome.result, indent=2))
        print(f"simulo run: result saved to {outcome.run_dir / 'result.json'}", file=sys.stderr)
        failed_preview = _failed_preview_summary(job, outcome.result)
        if failed_preview is not None:
            print(f"simulo run: the preview did not pass: {failed_preview}", file=sys.stderr)
            return EXIT_FAILED
    else:
        print(f"simulo run: error: {outcome.error} (log: {outcome.run_dir / 'log.txt'})", file=sys.stderr)
    return outcome.exit_code


def _failed_preview_summary(job: JobFunction, result: object) -> str | None:
    """The summary of a preview job's report that did not pass, else None.

    The cloud's ``simulo run`` exits 1 when a preview completes with a failed check, 0 only when every
    check passed; a preview job here returns :func:`simulo.preview`'s report, recognised by its schema.
    """
    if job.spec.job_type != JobType.PREVIEW or not isinstance(result, dict):
        return None
    from simulo.rl.preview import REPORT_SCHEMA_VERSION

    if result.get("report_schema_version") != REPORT_SCHEMA_VERSION or result.get("passed") is not False:
        return None
    return str(result.get("summary", "a check failed"))
