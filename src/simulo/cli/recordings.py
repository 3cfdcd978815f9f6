"""``simulo recordings [RUN] [NAME] [--format foxglove [-o FILE]] [--json] [--runs-dir DIR]``: a run's recordings.

A run's recordings are the files in its ``recordings/`` folder (``RLPlayer.play(record=...)`` and
``simulo run --record-3d`` write them there): MCAP files in the VizStream layout and their videos. ``RUN`` is
a run id ``<app>/<job>/<NNNN>`` or a run folder; without it, the run started last. ``NAME`` picks one
recording (its file name, with or without the suffix). For an MCAP the listing gives its messages, topics and
the simulated time it spans (read with ``mcap``, when installed).

``--format foxglove`` exports one MCAP (``NAME``, or the run's only one) as a new MCAP for Foxglove
(:mod:`simulo.rl.recordings.foxglove`) at ``-o FILE``, ``<stem>.foxglove.mcap`` in the current folder by
default, as the SDK's ``simulo recordings JOB REC --format foxglove -o FILE`` does; the recording is left
unchanged.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from simulo.cli.result import parse_run_args
from simulo.errors import JobError, SimuloError, SimuloValueError
from simulo.platform.run_records import find_run
from simulo.platform.runner import EXIT_FAILED, EXIT_USAGE, runs_root
from simulo.rl.recordings.config import RECORDINGS_DIR, SUFFIXES

#: ``--format`` values (:data:`simulo.rl.recordings.foxglove.FORMATS`, without importing it).
FORMATS = ("foxglove",)

SHORT_USAGE = "usage: simulo recordings [RUN] [NAME] [--format foxglove [-o FILE]] [--json] [--runs-dir DIR]"
USAGE = f"""\
{SHORT_USAGE}

List the recordings a run wrote (its recordings/ folder: MCAP files in the VizStream layout, MP4 videos).
RUN is a run id <app>/<job>/<NNNN> (simulo run prints it) or a run folder; without RUN, the run started last.
NAME is one recording's file name (the suffix may be left out).

  --format foxglove  export the MCAP NAME (or the run's only MCAP) as a new MCAP for Foxglove or Lichtblick:
                     every message, plus each link as a Foxglove frame; the recording is left unchanged
  -o, --output FILE  the new file (default: <name>.foxglove.mcap in the current folder); never overwritten"""

_EXPORT_VALUED = ("--format", "-o", "--output")


def describe(path: Path) -> dict[str, Any]:
    """One recording: ``name``, ``file``, ``kind`` (suffix), ``bytes``; for an MCAP also ``messages``,
    ``topics`` (messages per topic) and ``seconds`` (simulated time from first to last message)."""
    entry: dict[str, Any] = {"name": path.name, "file": str(path), "kind": path.suffix.lstrip(".").lower(),
                             "bytes": path.stat().st_size}
    if entry["kind"] != "mcap":
        return entry
    try:
        from mcap.reader import make_reader  # noqa: PLC0415 - the record extra
    except ImportError:
        return entry
    try:
        with open(path, "rb") as stream:
            summary = make_reader(stream).get_summary()
    except Exception as exc:  # noqa: BLE001 - a truncated file (a run still writing it) is listed, not fatal
        entry["error"] = f"unreadable MCAP: {exc}"
        return entry
    if summary is None or summary.statistics is None:
        entry["error"] = "no MCAP summary (the file was not finished)"
        return entry
    stats = summary.statistics
    entry["messages"] = stats.message_count
    counts = sorted(stats.channel_message_counts.items())
    entry["topics"] = {summary.channels[cid].topic: count for cid, count in counts}
    entry["seconds"] = (stats.message_end_time - stats.message_start_time) / 1e9 if stats.message_count else 0.0
    return entry


def _split(argv: list[str]) -> tuple[list[str], str | None, str | None, str | None]:
    """Separate ``NAME``, ``--format`` and ``-o`` from what :func:`parse_run_args` reads.

    Returns:
        ``[RUN and the other options]``, NAME, the format and the output, each ``None`` when not given.

    Raises:
        JobError: an option lacks its value, a third positional argument, or an unknown format.
    """
    rest: list[str] = []
    positional: list[str] = []
    found: dict[str, str] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        key, eq, value = token.partition("=")
        if key in _EXPORT_VALUED:
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                    raise JobError(f"{key} needs a value")
                i += 1
                value = argv[i]
            found["--format" if key == "--format" else "-o"] = value
        elif token == "--runs-dir" and i + 1 < len(argv):
            rest += [token, argv[i + 1]]
            i += 1
        elif token.startswith("-"):
            rest.append(token)
        else:
            positional.append(token)
        i += 1
    if len(positional) > 2:
        raise JobError(f"unexpected argument {positional[2]!r} (see 'simulo recordings --help')")
    fmt = found.get("--format")
    if fmt is not None and fmt not in FORMATS:
        raise JobError(f"--format {fmt!r} is not an export format; expected one of {', '.join(FORMATS)}")
    if "-o" in found and fmt is None:
        raise JobError("-o names the file of an export: add --format foxglove (the recordings are local files "
                       "already)")
    name = positional[1] if len(positional) == 2 else None
    return positional[:1] + rest, name, fmt, found.get("-o")


def _select(files: list[Path], name: str | None, run_dir: Path, export: bool) -> list[Path]:
    """The recordings ``NAME`` picks (all without it; for an export, the run's only MCAP).

    Raises:
        JobError: no recording has that name, or an export has no single MCAP to pick.
    """
    if name is not None:
        chosen = [p for p in files if name in (p.name, p.stem)]
        if export:
            chosen = [p for p in chosen if p.suffix.lower() == ".mcap"]
        if not chosen:
            names = ", ".join(p.name for p in files) or "none"
            raise JobError(f"the run {run_dir} has no recording {name!r}; its recordings: {names}")
        return chosen
    if not export:
        return files
    mcaps = [p for p in files if p.suffix.lower() == ".mcap"]
    if len(mcaps) != 1:
        names = ", ".join(p.name for p in mcaps) or "none"
        raise JobError(f"the run {run_dir} has {len(mcaps)} MCAP recordings ({names}); name the one to export")
    return mcaps


def _export(source: Path, output: str | None, as_json: bool) -> int:
    from simulo.rl.recordings.foxglove import default_destination, export_foxglove  # noqa: PLC0415 - numpy

    done = export_foxglove(source, Path(output) if output is not None else default_destination(source))
    if as_json:
        print(json.dumps({"file": str(done.path), "source": str(source), "messages": done.messages,
                          "transforms": done.transforms}, indent=2))
    else:
        print(f"{done.path} ({done.messages} messages of {source.name}"
              f"{f', {done.transforms} frame transforms derived from its poses' if done.transforms else ''})")
    return 0


def main(argv: list[str]) -> int:
    """Run ``simulo recordings``; returns the exit status."""
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    try:
        run_argv, name, fmt, output = _split(argv)
        ref, runs_dir, as_json = parse_run_args(run_argv, json_flag=True, usage=SHORT_USAGE)
        run_dir = find_run(ref, runs_root(runs_dir))
        folder = run_dir / RECORDINGS_DIR
        files = sorted(p for p in folder.glob("*") if p.is_file() and p.suffix.lower() in SUFFIXES) \
            if folder.is_dir() else []
        chosen = _select(files, name, run_dir, export=fmt is not None)
        if fmt is not None:
            return _export(chosen[0], output, as_json)
    except (JobError, SimuloValueError) as exc:
        print(f"simulo recordings: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SimuloError as exc:  # the record extra is missing
        print(f"simulo recordings: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    entries = [describe(p) for p in chosen]
    if as_json:
        print(json.dumps(entries, indent=2))
        return 0
    if not entries:
        print(f"simulo recordings: the run {run_dir} wrote no recordings (RLPlayer.play(record=...) writes them "
              f"to {folder})", file=sys.stderr)
        return 0
    for entry in entries:
        detail = f"{entry['bytes']} bytes"
        if "messages" in entry:
            detail += f", {entry['messages']} messages on {len(entry['topics'])} topics, {entry['seconds']:.2f} s"
        elif "error" in entry:
            detail += f", {entry['error']}"
        print(f"{entry['name']}  [{entry['kind']}]  {entry['file']} ({detail})")
    return 0
