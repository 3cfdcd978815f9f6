"""``simulo result [RUN] [--runs-dir DIR]`` and ``simulo outputs [RUN] [--json] [--runs-dir DIR]``.

``result`` prints the JSON a completed run returned (exit 1 when the run did not complete, naming how it
ended); ``outputs`` lists the files the run kept with ``simulo.save_output`` (in its ``outputs/``
folder). ``RUN`` is a run id ``<app>/<job>/<NNNN>`` or a run folder; without it, the run started last.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from simulo.errors import JobError
from simulo.platform.outputs import OUTPUTS_FILE
from simulo.platform.run_records import find_run, read_record
from simulo.platform.runner import EXIT_FAILED, EXIT_USAGE, runs_root

USAGE = """\
usage: simulo result [RUN] [--runs-dir DIR]
       simulo outputs [RUN] [--json] [--runs-dir DIR]

result: print what a completed run returned. outputs: list the files it kept with simulo.save_output.
RUN is a run id <app>/<job>/<NNNN> (simulo run prints it) or a run folder; without RUN, the run started last."""


def parse_run_args(argv: list[str], *, json_flag: bool, usage: str) -> tuple[str | None, str | None, bool]:
    """Parse ``[RUN] [--json] [--runs-dir DIR]``: the run reference, the runs folder and ``--json``.

    Args:
        argv: The command's arguments.
        json_flag: Whether the command takes ``--json``.
        usage: What an unexpected argument's message points to, e.g. ``"see 'simulo outputs --help'"``.

    Raises:
        JobError: A bad argument (the message names it).
    """
    ref: str | None = None
    runs_dir: str | None = None
    as_json = False
    i = 0
    while i < len(argv):
        token = argv[i]
        key, eq, inline = token.partition("=")
        if key == "--runs-dir":
            if not eq:
                if i + 1 >= len(argv):
                    raise JobError("--runs-dir needs a folder")
                i += 1
                inline = argv[i]
            runs_dir = inline
        elif token == "--json" and json_flag:
            as_json = True
        elif token.startswith("-") or ref is not None:
            raise JobError(f"unexpected argument {token!r} ({usage})")
        else:
            ref = token
        i += 1
    return ref, runs_dir, as_json


def _run_dir(argv: list[str], command: str) -> tuple[Path, bool]:
    ref, runs_dir, as_json = parse_run_args(argv, json_flag=command == "outputs",
                                            usage=f"see 'simulo {command} --help'")
    return find_run(ref, runs_root(runs_dir)), as_json


def main(argv: list[str]) -> int:
    """Run ``simulo result``; returns the exit status."""
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    try:
        run_dir, _ = _run_dir(argv, "result")
        record = read_record(run_dir)
    except JobError as exc:
        print(f"simulo result: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    result = run_dir / "result.json"
    if record.get("status") != "completed" or not result.is_file():
        error = f": {record['error']}" if record.get("error") else ""
        print(f"simulo result: the run {run_dir} has no result; it is {record.get('status')}{error}", file=sys.stderr)
        return EXIT_FAILED
    print(result.read_text(encoding="utf-8").rstrip())
    return 0


def outputs_main(argv: list[str]) -> int:
    """Run ``simulo outputs``; returns the exit status."""
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    try:
        run_dir, as_json = _run_dir(argv, "outputs")
    except JobError as exc:
        print(f"simulo outputs: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    listing = run_dir / OUTPUTS_FILE
    try:
        entries = json.loads(listing.read_text(encoding="utf-8")) if listing.is_file() else []
    except (OSError, ValueError) as exc:
        entries = exc
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        print(f"simulo outputs: error: {listing} is unreadable or damaged; expected the list simulo run writes",
              file=sys.stderr)
        return EXIT_FAILED
    if as_json:
        print(json.dumps(entries, indent=2))
        return 0
    if not entries:
        print(f"simulo outputs: the run {run_dir} kept no outputs (simulo.save_output in the job keeps files)",
              file=sys.stderr)
        return 0
    for entry in entries:
        where = "missing" if entry.get("missing") else f"{run_dir / entry['file']} ({entry['bytes']} bytes)"
        print(f"{entry['name']}  [{entry['kind']}]  {where}")
    return 0
