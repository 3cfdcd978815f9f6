"""Find a run's folder from what a user types: its id, its folder, or nothing (the latest run).

A run id is ``<app>/<job>/<NNNN>``, the run's folder relative to the runs folder (``simulo run``
prints it); the latest run is the one started last under the runs folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from simulo.errors import JobError

TERMINAL = ("completed", "failed", "timed_out", "interrupted")


def _started(run_dir: Path) -> int:
    """When the run started: its ``request.json`` is written once, at the start (older runs: ``params.json``)."""
    for name in ("request.json", "params.json", "run.json"):
        if (run_dir / name).is_file():
            return (run_dir / name).stat().st_mtime_ns
    return 0


def find_run(ref: str | None, root: Path) -> Path:
    """The folder of the run ``ref`` (an id or a folder), or of the latest run under ``root`` when ``ref`` is None.

    Raises:
        JobError: No such run, or no run at all under ``root``.
    """
    if ref is None:
        runs = [p.parent for p in root.glob("*/*/*/run.json") if p.is_file()]
        if not runs:
            raise JobError(f"no runs under {root} (start one with: simulo run FILE; or give --runs-dir DIR)")
        return max(runs, key=lambda p: (_started(p), str(p))).resolve()
    for candidate in (Path(ref), root / ref):
        if (candidate / "run.json").is_file():
            return candidate.resolve()
    raise JobError(f"no run {ref!r} under {root}: expected a run id <app>/<job>/<NNNN> as simulo run prints it, "
                   "or a run folder (--runs-dir DIR chooses the runs folder)")


def read_record(run_dir: Path) -> dict[str, Any]:
    """The run's ``run.json``.

    Raises:
        JobError: It cannot be read, or is not the JSON object ``simulo run`` writes (a stray or damaged file).
    """
    path = run_dir / "run.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise JobError(f"{path} is unreadable ({type(exc).__name__}: {exc}); expected the JSON record simulo run "
                       "writes") from None
    if not isinstance(data, dict):
        raise JobError(f"{path} holds a JSON {type(data).__name__}; expected the JSON object simulo run writes")
    return data


def process_alive(pid: int | None) -> bool:
    """Whether the process ``pid`` still exists (None: not started yet, counted as alive)."""
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
