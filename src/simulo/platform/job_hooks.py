"""The job callbacks of ``@app.job(callbacks=[...])``, called as a local run goes.

A callback is any object with some of the SDK's four hooks (``JobCallbackProtocol``):

* ``on_job_start(job_id)``: before the job's function is called (``job_id`` is the run id,
  ``<app>/<job>/<NNNN>``);
* ``on_checkpoint(checkpoint_uri, step)``: for each checkpoint file the job writes into its run's
  checkpoint folder (a ``file://`` URI). The folder is looked at every :data:`POLL_S` seconds while the
  job runs and once more when it ends, so a file rewritten faster than that is reported once. ``step``
  is the number in the file's name (``agent_2000.pt``), else the ``iteration`` the checkpoint records,
  else 0;
* ``on_anomaly(detail)``: when the job stops on non-finite numbers (a ``NonFiniteError``);
* ``on_job_end(job_id, status)``: when the attempt ends, ``status`` ``"completed"`` or ``"failed"``.

Every attempt calls them again (a retry is a new attempt of the same job). A hook that raises does not
stop the job: the error is printed as one line and the run goes on.
"""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path
from typing import Any

POLL_S = 0.5
_NUMBER = re.compile(r"(\d+)")


def _step_of(path: Path) -> int:
    numbers = _NUMBER.findall(path.stem)
    if numbers:
        return int(numbers[-1])
    torch = sys.modules.get("torch")
    if torch is None:
        return 0
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:  # noqa: BLE001 - a file being rewritten or of another format has no step to read
        return 0
    value = payload.get("iteration") if isinstance(payload, dict) else None
    return value if isinstance(value, int) else 0


class JobHooks:
    """Calls the callbacks of one job attempt.

    Args:
        callbacks: The job's callback objects.
        job_id: The run id passed to ``on_job_start``/``on_job_end``.
        checkpoint_dir: The folder whose files are reported to ``on_checkpoint``.
    """

    def __init__(self, callbacks: tuple[Any, ...], job_id: str, checkpoint_dir: Path) -> None:
        self._callbacks = callbacks
        self._job_id = job_id
        self._dir = checkpoint_dir
        self._seen: dict[Path, int] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._watcher: threading.Thread | None = None

    def _call(self, name: str, *args: Any) -> None:
        for callback in self._callbacks:
            method = getattr(callback, name, None)
            if not callable(method):
                continue
            try:
                method(*args)
            except Exception as exc:  # noqa: BLE001 - a callback's failure must not fail the job
                print(f"simulo run: callback {type(callback).__name__}.{name} raised "
                      f"{type(exc).__name__}: {exc}", file=sys.stderr, flush=True)

    def _wants(self, name: str) -> bool:
        return any(callable(getattr(c, name, None)) for c in self._callbacks)

    def _scan(self) -> None:
        with self._lock:
            if not self._dir.is_dir():
                return
            for path in sorted(self._dir.iterdir()):
                if not path.is_file() or path.name.startswith(".") or path.suffix == ".tmp":
                    continue
                try:
                    stamp = path.stat().st_mtime_ns
                except FileNotFoundError:
                    continue
                if self._seen.get(path) != stamp:
                    self._seen[path] = stamp
                    self._call("on_checkpoint", path.resolve().as_uri(), _step_of(path))

    def _watch(self) -> None:
        while not self._stop.wait(POLL_S):
            self._scan()

    def start(self) -> None:
        """Call ``on_job_start`` and start watching the checkpoint folder (when a callback wants it).

        Checkpoints already in the folder (an earlier attempt's) are not reported again.
        """
        if self._wants("on_checkpoint") and self._dir.is_dir():
            self._seen = {p: p.stat().st_mtime_ns for p in self._dir.iterdir() if p.is_file()}
            self._watcher = threading.Thread(target=self._watch, name="simulo-checkpoint-hooks", daemon=True)
            self._watcher.start()
        self._call("on_job_start", self._job_id)

    def anomaly(self, detail: str) -> None:
        """Call ``on_anomaly(detail)``."""
        self._call("on_anomaly", detail)

    def end(self, status: str) -> None:
        """Stop watching, report the last checkpoints, and call ``on_job_end(job_id, status)``."""
        if self._watcher is not None:
            self._stop.set()
            self._watcher.join()
            self._watcher = None
            self._scan()
        self._call("on_job_end", self._job_id, status)
