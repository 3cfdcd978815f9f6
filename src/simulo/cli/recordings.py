"""``simulo recordings [RUN] [--json] [--runs-dir DIR]``: list the recordings a run wrote.

A run's recordings are the files in its ``recordings/`` folder (``RLPlayer.play(record=...)`` writes
them there): MCAP files in the VizStream layout and their videos. ``RUN`` is a run id
``<app>/<job>/<NNNN>`` or a run folder; without it, the run started last. For an MCAP the listing gives
its messages, topics and the simulated time it spans (read with ``mcap``, when installed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from simulo.cli.result import parse_run_args
from simulo.errors import JobError
from simulo.platform.run_records import find_run
from simulo.platform.runner import EXIT_USAGE, runs_root
from simulo.rl.recordings.config import RECORDINGS_DIR, SUFFIXES

USAGE = """\
usage: simulo recordings [RUN] [--json] [--runs-dir DIR]

List the recordings a run wrote (its recordings/ folder: MCAP files in the VizStream layout, MP4 videos).
RUN is a run id <app>/<job>/<NNNN> (simulo run prints it) or a run folder; without RUN, the run started last."""


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


def main(argv: list[str]) -> int:
    """Run ``simulo recordings``; returns the exit status."""
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    try:
        ref, runs_dir, as_json = parse_run_args(
            argv, json_flag=True, usage="usage: simulo recordings [RUN] [--json] [--runs-dir DIR]")
        run_dir = find_run(ref, runs_root(runs_dir))
    except JobError as exc:
        print(f"simulo recordings: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    folder = run_dir / RECORDINGS_DIR
    files = sorted(p for p in folder.glob("*") if p.is_file() and p.suffix.lower() in SUFFIXES) \
        if folder.is_dir() else []
    entries = [describe(p) for p in files]
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
