"""``simulo logs [RUN] [--follow] [--tail N] [--runs-dir DIR]``: print a run's log.

``RUN`` is a run id (``<app>/<job>/<NNNN>``, printed by ``simulo run``) or a run folder; without it, the
run started last. ``--follow`` keeps printing what the job writes until the run ends (a ``simulo run
--detach`` run goes on in the background) and then exits with the run's exit status: 0 completed,
1 failed, 124 timed out, 130 interrupted.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from simulo.errors import JobError
from simulo.platform.run_records import TERMINAL, find_run, process_alive, read_record
from simulo.platform.runner import EXIT_FAILED, EXIT_USAGE, runs_root

USAGE = """\
usage: simulo logs [RUN] [--follow] [--tail N] [--runs-dir DIR]

Print the log of a run: RUN is a run id <app>/<job>/<NNNN> (simulo run prints it) or a run folder;
without RUN, the run started last.

  --follow        keep printing until the run ends, then exit with its status (0 completed,
                  1 failed, 124 timed out, 130 interrupted)
  --tail N        start with the last N lines of the log (default: all of it)
  --runs-dir DIR  where runs are saved (default: $SIMULO_RUNS_DIR, else ./runs)"""

POLL_S = 0.2


def _parse(argv: list[str]) -> tuple[str | None, bool, int | None, str | None]:
    ref: str | None = None
    follow = False
    tail: int | None = None
    runs_dir: str | None = None
    i = 0
    while i < len(argv):
        token = argv[i]
        key, eq, inline = token.partition("=")
        if key in ("--tail", "--runs-dir"):
            if not eq:
                if i + 1 >= len(argv):
                    raise JobError(f"{key} needs a value")
                i += 1
                inline = argv[i]
            if key == "--runs-dir":
                runs_dir = inline
            elif not inline.isdigit():
                raise JobError(f"--tail needs a whole number of lines >= 0, got {inline!r}")
            else:
                tail = int(inline)
        elif token == "--follow":
            follow = True
        elif token.startswith("-") or ref is not None:
            raise JobError(f"unexpected argument {token!r} (see 'simulo logs --help')")
        else:
            ref = token
        i += 1
    return ref, follow, tail, runs_dir


def _header(run_dir: Path, record: dict[str, object]) -> str:
    tags = record.get("tags") or []
    tagged = f", tags {', '.join(str(t) for t in tags)}" if isinstance(tags, list) and tags else ""
    ident = f"{run_dir.parent.parent.name}/{run_dir.parent.name}/{run_dir.name}"
    return f"simulo logs: {ident} ({record.get('status')}{tagged}) {run_dir / 'log.txt'}"


def _print_new(log: Path, position: int) -> int:
    if not log.is_file():
        return position
    with open(log, "rb") as handle:
        handle.seek(position)
        chunk = handle.read()
    if chunk:
        sys.stdout.write(chunk.decode("utf-8", errors="replace"))
        sys.stdout.flush()
    return position + len(chunk)


def _start(log: Path, tail: int | None) -> int:
    """Print the existing log (its last ``tail`` lines); the byte position printed up to."""
    if not log.is_file():
        return 0
    data = log.read_bytes()
    if tail is not None:
        lines = data.splitlines(keepends=True)
        kept = b"".join(lines[-tail:]) if tail else b""
        sys.stdout.write(kept.decode("utf-8", errors="replace"))
        sys.stdout.flush()
        return len(data)
    return _print_new(log, 0)


def main(argv: list[str]) -> int:
    """Run ``simulo logs``; returns the exit status."""
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    try:
        return _logs(argv)
    except JobError as exc:
        print(f"simulo logs: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _logs(argv: list[str]) -> int:
    ref, follow, tail, runs_dir = _parse(argv)
    run_dir = find_run(ref, runs_root(runs_dir))
    log = run_dir / "log.txt"
    print(_header(run_dir, read_record(run_dir)), file=sys.stderr)
    position = _start(log, tail)
    if not follow:
        return 0
    while True:
        record = read_record(run_dir)
        if record.get("status") in TERMINAL:
            _print_new(log, position)
            print(f"simulo logs: the run ended {record.get('status')}"
                  f"{': ' + str(record['error']) if record.get('error') else ''}", file=sys.stderr)
            code = record.get("exit_code")
            return code if isinstance(code, int) else EXIT_FAILED
        pid = record.get("pid")
        if not process_alive(pid if isinstance(pid, int) else None):
            if read_record(run_dir).get("status") in TERMINAL:
                continue
            _print_new(log, position)
            print(f"simulo logs: the run's process ({pid}) ended without recording how the run ended",
                  file=sys.stderr)
            return EXIT_FAILED
        position = _print_new(log, position)
        time.sleep(POLL_S)
