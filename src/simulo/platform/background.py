"""``simulo run --detach``: a run that goes on in a background process.

:func:`start_background` creates the run's folder (its ``request.json`` holds the request) and starts
``python -m simulo.platform.background RUN_DIR`` in a new session, detached from the terminal, with
no input and its output to the run's ``log.txt``; it returns at once. The background process records
its ``pid`` in ``run.json`` (``null`` until then) and runs the attempts as a foreground ``simulo run``
does (timeout, retries, the outcome in ``run.json``). ``simulo logs RUN --follow`` reads the log until
``run.json`` says it ended.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from simulo.platform.runner import RunRequest, execute_run, start_run, write_json


def start_background(request: RunRequest, root: Path) -> Path:
    """Start the run in a background process and return its folder (the process may still be starting).

    Raises:
        JobError: No run folder can be created under ``root``.
    """
    run_dir = start_run(request, root, detached=True)
    with open(run_dir / "log.txt", "ab") as log:
        subprocess.Popen(
            [sys.executable, "-m", "simulo.platform.background", str(run_dir)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return run_dir


def main(run_dir: str) -> int:
    """Run the attempts of the run in ``run_dir``; its exit status."""
    folder = Path(run_dir)
    request = RunRequest.from_json(json.loads((folder / "request.json").read_text(encoding="utf-8")))
    record = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    write_json(folder / "run.json", {**record, "pid": os.getpid(), "detached": True})
    with open(os.devnull, "w", encoding="utf-8") as quiet:
        return execute_run(request, folder, stream=quiet).exit_code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
