"""``simulo run FILE [--job NAME] [--list] [--runs-dir DIR] [RUN OPTIONS] [--param value ...]``: run a job locally.

The app file is imported in discovery mode (torch and other heavy imports inside
``app.runtime.imports()`` are not loaded) to find its jobs and check the flags, first in a child process
bounded in time (:mod:`simulo.platform.isolated_import`: a file that segfaults, exits or hangs at import
is one line and exit 2), then here; the job then runs in a child process (see
:mod:`simulo.platform.runner`). The job's timeout counts from ``simulo run``'s start: when the file declares it
as a number literal (:mod:`simulo.platform.static_jobs`), it bounds the discovery import too, and an import
that outlasts it is recorded as the job timing out in phase ``import`` (exit 124). ``--list`` has the discovery
limit alone. Its discovery and job processes die with it (:mod:`simulo.platform.orphans`). Its output streams
to stderr and to the run's ``log.txt``; its return value is saved as ``result.json``. On stdout a completed run
prints a short summary (the result's top-level numbers and short strings, and where the whole result is), whose
last line names a training run's policy (``policy: <id>  (simulo policy inspect <id>)``); with ``--json`` it
prints the whole result as JSON instead.

It accepts every option of the SDK's ``simulo run``. ``--detach`` runs the job in a background process
and returns at once (``simulo logs RUN --follow`` reads it); ``--tag NAME`` is kept in the run's
``run.json``; ``--from``, ``--compare``, ``--repeatable``, ``--require-success`` and ``--fail-if-worse``
reach the job as ``current_run().flags``; ``--frozen`` holds by construction (a registry reference here
always carries its ``:vN``); ``--strict-assets`` resolves every registry asset before the job starts;
``--viewstream`` serves the job's environments live to Foxglove on a local WebSocket
(:mod:`simulo.rl.recordings.live`; ``127.0.0.1:8765`` unless ``--viewstream-host``/``--viewstream-port``
say otherwise); ``--no-viewstream`` and ``--skip-preflight`` ask for what a local run does anyway.
``--record-3d COPIES`` records a training job's first COPIES environments to the run's recordings
(:mod:`simulo.rl.recordings.training_3d`).

Before the job starts, :mod:`simulo.platform.readiness` checks what would make every attempt fail (a
missing dependency, Ray for ``--workers``, ``--num-envs 0``, a missing volume) and installs
``Runtime.pip_install`` packages; such a failure is one line and takes no run folder.

Exit status: 0 the job completed, 1 it failed (after its retries) or could not start, or, as in the
cloud's client, it is a preview job whose report failed a check, 2 usage error (bad file, no or
ambiguous job, unknown flag, bad value, an option with no local meaning), 124 it ran past its timeout,
130 interrupted.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from simulo.engine.registry import ENGINE_VARIABLE, available_engines
from simulo.errors import JobError, SimuloError, SimuloValueError
from simulo.platform.app import JobFunction
from simulo.platform.background import start_background
from simulo.platform.context import RunFlags
from simulo.platform.isolated_import import ImportTimedOut, check_import
from simulo.platform.jobs import JobFile, check_runnable, load_app_file
from simulo.platform.params import Flag, job_flags, jsonable_params, parse_flags
from simulo.platform.policy_registry import read_record
from simulo.platform.readiness import check_params, prepare
from simulo.platform.run_gates import check_run_flags, gated_exit
from simulo.platform.runner import (
    EXIT_FAILED,
    EXIT_USAGE,
    RunRequest,
    record_import_timeout,
    run_id,
    run_job,
    runs_root,
)
from simulo.platform.static_jobs import DeclaredJob, declared_job
from simulo.platform.systems import JobType
from simulo.rl.recordings import live_settings, training_3d_settings
from simulo.scale.settings import ScaleSettings

USAGE = """\
usage: simulo run FILE [--job NAME] [--list] [--json] [--runs-dir DIR] [--workers N] [--address ADDR] [--detach]
                  [--engine NAME] [--tag NAME ...] [--from POLICY:KIND] [--compare POLICY:KIND] [--repeatable]
                  [--require-success RATE] [--fail-if-worse] [--frozen] [--strict-assets]
                  [--viewstream [--viewstream-port PORT] [--viewstream-host HOST]] [--PARAM VALUE ...]

Run a job of an app file on this computer.

  FILE            a Python file declaring jobs with @app.job
  --job NAME      the job to run (needed when FILE declares several)
  --list          list the jobs and their flags, without loading torch or the engine
  --json          print the job's whole result as JSON on stdout (default: a short summary; the whole
                  result is saved in the run's result.json either way)
  --runs-dir DIR  where runs are saved (default: $SIMULO_RUNS_DIR, else ./runs)
  --workers N     shard the job's simulo.LearningEnv over N Ray workers (default 1: one process,
                  no Ray); needs the ray extra (see docs/scale-out.md)
  --address ADDR  use the Ray cluster at ADDR (HOST:6379 or ray://HOST:10001) instead of a local one
  --engine NAME   the physics engine of every simulation of the job: pybullet or mujoco (default:
                  $SIMULO_ENGINE, else pybullet)
  --detach        run the job in the background: print its run id and return at once
                  (read it with: simulo logs RUN [--follow])
  --tag NAME      tag the run (lowercase letters, digits, '.', '_', '-'); repeat for several
  --from POLICY:KIND       start a training run from a policy checkpoint (policy_x:best, a run folder, a .pt)
  --compare POLICY:KIND    evaluate --policy against this policy on the same episodes (eval)
  --repeatable             repeatable evaluation episodes (eval)
  --require-success RATE   exit 1 when the share of successful episodes is below RATE, 0..1 (eval)
  --fail-if-worse          exit 1 when --policy did worse than --compare (eval)
  --frozen        refuse unpinned registry assets (always true here: references carry their :vN)
  --strict-assets resolve and check every registry asset before the job starts
  --viewstream    show the job's environments live in Foxglove (Open connection, Foxglove WebSocket,
                  ws://127.0.0.1:8765); needs the record extra
  --viewstream-port PORT   the live view's port (default 8765)
  --viewstream-host HOST   the interface it listens on (default 127.0.0.1: this computer only)
  --PARAM VALUE   the job's parameters: num_envs is --num-envs; booleans are --x/--no-x

Accepted as what a local run does anyway: --no-viewstream, --skip-preflight.
--record-3d COPIES records the first COPIES (1..64) environments of a training job to the run's
recordings/train-3d-NNNN.mcap (simulo recordings RUN --format foxglove exports it for Foxglove).

The app file is imported first in a child process, given $SIMULO_DISCOVERY_TIMEOUT seconds (default 60), or
the job's timeout when @app.job(timeout=N) declares a shorter one: the timeout counts from simulo run's start.

Exit status: 0 completed, 1 failed or could not start (a preview: a check failed), 2 usage error (or an app
file that crashes, exits or hangs when imported), 124 timed out (its import included)."""

_VALUED = ("--job", "--runs-dir", "--workers", "--address", "--from", "--compare", "--require-success", "--tag",
           "--record-3d", "--engine", "--viewstream-port", "--viewstream-host")
_SWITCHES = ("--list", "--json", "--detach", "--frozen", "--strict-assets", "--repeatable", "--fail-if-worse",
             "--skip-preflight", "--viewstream", "--no-viewstream", "-h", "--help")
_OWN = (*_VALUED, *_SWITCHES)
_TAG = re.compile(r"^[a-z0-9._-]{1,64}$")
_MAX_TAGS = 16


@dataclass(frozen=True)
class _Options:
    job: str | None
    list_jobs: bool
    runs_dir: str | None
    help: bool
    json: bool = False
    workers: int = 1
    address: str | None = None
    detach: bool = False
    strict_assets: bool = False
    flags: RunFlags = field(default_factory=RunFlags)
    live_view: tuple[tuple[str, str], ...] = ()
    record_3d: tuple[tuple[str, str], ...] = ()


def _tags(values: list[str]) -> tuple[str, ...]:
    """The ``--tag`` values without repeats, each checked as the SDK's job tags are."""
    tags: list[str] = []
    for tag in values:
        if not _TAG.match(tag):
            raise JobError(f"--tag {tag!r} is invalid: use lowercase letters, digits, '.', '_' or '-', "
                           "up to 64 characters")
        if tag not in tags:
            tags.append(tag)
    if len(tags) > _MAX_TAGS:
        raise JobError(f"at most {_MAX_TAGS} tags per run, got {len(tags)}")
    return tuple(tags)


def _rate(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        rate = float(value)
    except ValueError:
        rate = float("nan")
    if not 0 <= rate <= 1:
        raise JobError(f"--require-success needs a rate from 0 to 1, such as 0.9 for 90%, got {value!r}")
    return rate


def _run_flags(values: dict[str, list[str]], switches: set[str]) -> RunFlags:
    def last(key: str) -> str | None:
        return values[key][-1] if values.get(key) else None

    flags = RunFlags(
        from_policy=last("--from"),
        compare=last("--compare"),
        repeatable="--repeatable" in switches,
        require_success=_rate(last("--require-success")),
        fail_if_worse="--fail-if-worse" in switches,
        tags=_tags(values.get("--tag", [])),
    )
    if "--detach" in switches and (flags.require_success is not None or flags.fail_if_worse):
        gate = "--require-success" if flags.require_success is not None else "--fail-if-worse"
        raise JobError(f"{gate} sets the exit status from the evaluation, so simulo run must wait for it; "
                       "it cannot be used with --detach")
    return flags


def _use_engine(name: str) -> None:
    """``--engine NAME``: every Simulation of the job (child process and workers included) uses that engine."""
    if name not in available_engines():
        raise JobError(f"--engine {name!r} is not an engine; available: {', '.join(available_engines())}")
    os.environ[ENGINE_VARIABLE] = name


def _split(argv: Sequence[str]) -> tuple[_Options, list[str]]:
    """Separate simulo run's own options from the job's flags."""
    values: dict[str, list[str]] = {}
    switches: set[str] = set()
    rest: list[str] = []
    viewstream = False  # the last of --viewstream / --no-viewstream wins
    i = 0
    while i < len(argv):
        token = argv[i]
        key, eq, inline = token.partition("=")
        if key in _VALUED:
            if eq:
                value = inline
            elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                i += 1
                value = argv[i]
            else:
                raise JobError(f"{key} needs a value")
            values.setdefault(key, []).append(value)
        elif token in _SWITCHES:
            switches.add(token)
            viewstream = token == "--viewstream" if token in ("--viewstream", "--no-viewstream") else viewstream
        else:
            rest.append(token)
        i += 1
    if values.get("--engine"):
        _use_engine(values["--engine"][-1])
    workers = values.get("--workers", ["1"])[-1]
    address = values.get("--address", [None])[-1]
    try:
        scale = ScaleSettings(int(workers), address)
    except (ValueError, SimuloValueError):
        raise JobError(f"--workers needs a whole number >= 1 and --address a Ray address (HOST:6379 or "
                       f"ray://HOST:10001), got --workers {workers!r}, --address {address!r}") from None
    return _Options(
        job=values.get("--job", [None])[-1],
        list_jobs="--list" in switches,
        runs_dir=values.get("--runs-dir", [None])[-1],
        help=bool(switches & {"-h", "--help"}),
        json="--json" in switches,
        workers=scale.workers,
        address=scale.address,
        detach="--detach" in switches,
        strict_assets="--strict-assets" in switches,
        flags=_run_flags(values, switches),
        live_view=_live_view(viewstream, values),
        record_3d=_record_3d(values),
    ), rest


def _live_view(enabled: bool, values: dict[str, list[str]]) -> tuple[tuple[str, str], ...]:
    """The job process's live-view variables; the address is checked free before the job starts."""
    given = [key for key in ("--viewstream-port", "--viewstream-host") if values.get(key)]
    if given and not enabled:
        raise JobError(f"{given[0]} needs --viewstream")
    if not enabled:
        return live_settings.environ(False)
    host = values.get("--viewstream-host", [live_settings.DEFAULT_HOST])[-1]
    try:
        port = live_settings.parse_port(values.get("--viewstream-port", [str(live_settings.DEFAULT_PORT)])[-1])
        live_settings.check_free(host, port)
    except SimuloValueError as exc:
        raise JobError(str(exc)) from None
    return live_settings.environ(True, host, port)


def _record_3d(values: dict[str, list[str]]) -> tuple[tuple[str, str], ...]:
    """The job process's ``--record-3d`` variable, the copies checked."""
    if not values.get("--record-3d"):
        return ()
    try:
        return training_3d_settings.environ(training_3d_settings.parse_copies(values["--record-3d"][-1]))
    except SimuloValueError as exc:
        raise JobError(str(exc)) from None


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


def _cannot_start(exc: SimuloError) -> int:
    print(f"simulo run: error: {type(exc).__name__}: {exc}", file=sys.stderr)
    return EXIT_FAILED


def main(argv: list[str]) -> int:
    """Run ``simulo run``; returns the exit status."""
    if not argv:
        return _error("no app file given: simulo run FILE [--job NAME] [OPTIONS] (see 'simulo run --help')")
    if argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if argv[0].startswith("-"):
        return _error(f"the first argument must be the app file, got {argv[0]!r} (see 'simulo run --help')")
    launched = time.monotonic()
    declared: DeclaredJob | None = None
    try:
        options, job_argv = _split(argv[1:])
        if not (options.list_jobs or options.help):
            declared = declared_job(argv[0], options.job)
        # a file that segfaults, exits or hangs at import cannot take this process down
        check_import(argv[0], _time_left(declared, launched))
        job_file = load_app_file(argv[0], discovery=True)
        if options.list_jobs or options.help:
            print(_listing(job_file))
            return 0
        job = job_file.select(options.job)
        check_runnable(job)
        if options.record_3d and job.spec.job_type is not JobType.TRAIN:
            raise JobError(f'--record-3d works only on a training job (@app.job(type="train")); {job.spec.name!r} '
                           f"is {job.spec.job_type.value if job.spec.job_type else 'untyped'}")
        flags = _flags_of(job)
        values = parse_flags(flags, job_argv)
        params = {f.name: values.get(f.name, f.default) for f in flags if f.name in values or not f.required}
        check_params(params)
        check_run_flags(job, options.flags, params, runs_root(options.runs_dir))
        ready = prepare(job, job_file, ScaleSettings(options.workers, options.address),
                        strict_assets=options.strict_assets)
    except ImportTimedOut:
        assert declared is not None  # only a declared timeout bounds the import so
        return _import_timed_out(argv[0], declared, job_argv, options)
    except JobError as exc:
        return _error(str(exc))
    except SimuloError as exc:  # a missing dependency or volume, a pip failure, an asset under --strict-assets
        return _cannot_start(exc)
    request = RunRequest(
        file=job_file.path,
        app=job.app.name,
        job=job.spec.name,
        argv=tuple(job_argv),
        params=jsonable_params(params),
        timeout=job.spec.timeout,
        retries=job.spec.retries,
        env=(*job.app.runtime.runtime_env.items(), *ready.env, *options.live_view, *options.record_3d),
        workers=options.workers,
        address=options.address,
        flags=options.flags,
        python_path=ready.python_path,
    )
    try:
        if options.detach:
            return _detach(request, options)
        outcome = run_job(request, runs_root(options.runs_dir), started=launched)
    except JobError as exc:
        return _error(str(exc))
    if outcome.status == "completed":
        if options.json:
            print(json.dumps(outcome.result, indent=2))
            print(f"simulo run: result saved to {outcome.run_dir / 'result.json'}", file=sys.stderr)
        else:
            print("\n".join(summary(outcome.result, outcome.run_dir, options.runs_dir)))
        failed_preview = _failed_preview_summary(job, outcome.result)
        if failed_preview is not None:
            print(f"simulo run: the preview did not pass: {failed_preview}", file=sys.stderr)
            return EXIT_FAILED
    else:
        kind = "JobFailedError: " if outcome.status == "failed" else ""
        print(f"simulo run: error: {kind}{outcome.error} (log: {outcome.run_dir / 'log.txt'})", file=sys.stderr)
    gate = gated_exit(job, options.flags, outcome.status == "completed", outcome.result)
    return gate if gate is not None and outcome.status != "interrupted" else outcome.exit_code


SUMMARY_FIELDS = 12
"""The most top-level fields of a result that the summary of a completed run shows."""
_SHORT = 80


def _shown(value: object) -> str | None:
    """``value`` as the summary shows it, or ``None`` when it is not a number, a boolean or a short string."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if value is None or isinstance(value, (bool, int)):
        return json.dumps(value)
    if isinstance(value, str) and len(value) <= _SHORT and value.isprintable():
        return value
    return None


def summary(result: object, run_dir: Path, runs_dir: str | None) -> list[str]:
    """The lines ``simulo run`` prints on stdout for a completed run without ``--json``.

    Args:
        result: The job's result (parsed ``result.json``).
        run_dir: The run's folder.
        runs_dir: ``--runs-dir`` as given, repeated in the commands the lines suggest; ``None`` when not given.

    Returns:
        Up to :data:`SUMMARY_FIELDS` lines ``name: value`` (the result's top-level numbers, booleans and short
        strings; a result that is not an object, when it is short), a ``result:`` line naming ``result.json``
        and the command that prints it whole, and for a training run a last line naming its policy:
        ``policy: <id>  (simulo policy inspect <id>)``.
    """
    option = f" --runs-dir {runs_dir}" if runs_dir else ""
    fields = result if isinstance(result, dict) else {}
    lines = [f"{name}: {text}" for name, text in ((n, _shown(v)) for n, v in fields.items()) if text is not None]
    if not isinstance(result, dict):
        text = json.dumps(result)
        lines = [f"returned: {text}"] if len(text) <= _SHORT else []
    hidden = len(fields) - min(len(lines), SUMMARY_FIELDS) if fields else 0
    more = f"{hidden} more field(s); " if hidden else ""
    lines = [*lines[:SUMMARY_FIELDS],
             f"result: {run_dir / 'result.json'}  ({more}whole: simulo result {run_id(run_dir)}{option})"]
    record = read_record(run_dir)
    if record is not None:
        policy = record["policy_id"]
        lines.append(f"policy: {policy}  (simulo policy inspect {policy}{option})")
    return lines


def _time_left(declared: DeclaredJob | None, launched: float) -> float | None:
    """Seconds left of the declared job's timeout, counted from ``launched``; None when it has none."""
    if declared is None or declared.timeout is None:
        return None
    return declared.timeout - (time.monotonic() - launched)


def _import_timed_out(file: str, declared: DeclaredJob, job_argv: list[str], options: _Options) -> int:
    """Record the run whose app file's import outlasted the job's timeout, say so in one line; exit 124."""
    request = RunRequest(file=Path(file).resolve(), app=declared.app, job=declared.job, argv=tuple(job_argv),
                         params={}, timeout=declared.timeout, workers=options.workers, address=options.address,
                         flags=options.flags)
    try:
        outcome = record_import_timeout(request, runs_root(options.runs_dir))
    except JobError as exc:
        return _error(str(exc))
    print(f"simulo run: error: {outcome.error} (log: {outcome.run_dir / 'log.txt'})", file=sys.stderr)
    return outcome.exit_code


def _detach(request: RunRequest, options: _Options) -> int:
    """Start the run in the background; print its id on stdout and how to follow it on stderr."""
    run_dir = start_background(request, runs_root(options.runs_dir))
    ident = run_id(run_dir)
    print(ident)
    follow = f"simulo logs {ident}{f' --runs-dir {options.runs_dir}' if options.runs_dir else ''} --follow"
    print(f"simulo run: {ident} runs in the background in {run_dir}; follow it with: {follow}", file=sys.stderr)
    return 0


def _failed_preview_summary(job: JobFunction, result: object) -> str | None:
    """The summary of a preview job's report that did not pass, else None.

    The cloud's ``simulo run`` exits 1 when a preview completes with a failed check, 0 only when every
    check passed; a preview job here returns :func:`simulo.preview`'s report, recognised by its schema.
    """
    if job.spec.job_type != JobType.PREVIEW or not isinstance(result, dict):
        return None
    from simulo.rl.preview import REPORT_SCHEMA_VERSION

    if result.get("report_schema_version") != REPORT_SCHEMA_VERSION or result.get("verdict") != "failed":
        return None
    return str(result.get("summary", "a check failed"))
