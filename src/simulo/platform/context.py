"""The context of the job that is running: where its files go and which attempt this is.

``simulo run`` runs each attempt of a job in a child process and sets a :class:`RunContext` there
before it calls the job. Library code reads it with :func:`current_run`:

* **Checkpoints.** A trainer that finds a run context saves its checkpoints into
  ``current_run().checkpoint_dir`` (``latest.pt`` every save, ``best.pt`` when the best reward
  improves) and, when ``current_run().latest_checkpoint()`` is not ``None`` at start (a retry after a
  failure), loads it and continues from there. Outside ``simulo run`` there is no context and the
  trainer uses its own defaults.
* **Attempts.** ``attempt`` counts from 1; ``max_attempts`` is ``retries + 1``.
* **Success rules.** :func:`current_app` is the :class:`~simulo.platform.app.App` whose job is
  running (in the child process, or while a job function is called in-process), seen as a
  :class:`RunningApp`; ``simulo.evaluate`` reads its ``success_functions`` from it.

* **Run flags.** ``flags`` holds the ``simulo run`` options a job may act on (``--from``,
  ``--compare``, ``--repeatable``, ``--require-success``, ``--fail-if-worse``, ``--tag``), as a
  :class:`RunFlags`.

The same values are exported to the job's environment as ``SIMULO_RUN_DIR``,
``SIMULO_CHECKPOINT_DIR``, ``SIMULO_ATTEMPT``, ``SIMULO_MAX_ATTEMPTS`` and ``SIMULO_RUN_FLAGS`` (JSON),
so a process started by the job sees the context too: :func:`current_run` falls back to them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

ENV_RUN_DIR = "SIMULO_RUN_DIR"
ENV_CHECKPOINT_DIR = "SIMULO_CHECKPOINT_DIR"
ENV_ATTEMPT = "SIMULO_ATTEMPT"
ENV_MAX_ATTEMPTS = "SIMULO_MAX_ATTEMPTS"
ENV_RUN_FLAGS = "SIMULO_RUN_FLAGS"


class RunningApp(Protocol):
    """What library code reads of the app whose job is running (a :class:`simulo.platform.app.App`)."""

    @property
    def name(self) -> str:
        """The app's name."""
        ...

    @property
    def success_functions(self) -> tuple[Callable[..., Any], ...]:
        """The app's ``@app.success`` rules, in declaration order."""
        ...


_current_run: ContextVar[RunContext | None] = ContextVar("simulo_current_run", default=None)
_current_app: ContextVar[RunningApp | None] = ContextVar("simulo_current_app", default=None)


@dataclass(frozen=True)
class RunFlags:
    """The options of ``simulo run`` that the job itself acts on (all off by default).

    Attributes:
        from_policy: ``--from POLICY:KIND``: the checkpoint a training run starts from, or None.
        compare: ``--compare POLICY:KIND``: the policy an evaluation is compared with, or None.
        repeatable: ``--repeatable``: evaluation episodes are repeatable (seeded the same each run).
        require_success: ``--require-success RATE``: the least share of successful episodes, or None.
        fail_if_worse: ``--fail-if-worse``: fail when ``--policy`` does worse than ``--compare``.
        tags: ``--tag NAME`` values, in the order given, without repeats.
    """

    from_policy: str | None = None
    compare: str | None = None
    repeatable: bool = False
    require_success: float | None = None
    fail_if_worse: bool = False
    tags: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the flags."""
        return {
            "from_policy": self.from_policy,
            "compare": self.compare,
            "repeatable": self.repeatable,
            "require_success": self.require_success,
            "fail_if_worse": self.fail_if_worse,
            "tags": list(self.tags),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunFlags:
        """The flags :meth:`to_json` wrote (missing keys keep their defaults)."""
        rate = data.get("require_success")
        return cls(
            from_policy=data.get("from_policy"),
            compare=data.get("compare"),
            repeatable=bool(data.get("repeatable", False)),
            require_success=None if rate is None else float(rate),
            fail_if_worse=bool(data.get("fail_if_worse", False)),
            tags=tuple(data.get("tags", ())),
        )


@dataclass(frozen=True)
class RunContext:
    """Where one attempt of a job keeps its files.

    Attributes:
        run_dir: The run's folder (``runs/<app>/<job>/<NNNN>``), shared by all attempts.
        checkpoint_dir: ``run_dir / "checkpoints"``; exists. Checkpoints saved here survive retries.
        attempt: 1 for the first attempt, 2 for the first retry, ...
        max_attempts: ``retries + 1``.
        flags: The ``simulo run`` options the job acts on.
    """

    run_dir: Path
    checkpoint_dir: Path
    attempt: int
    max_attempts: int
    flags: RunFlags = field(default_factory=RunFlags)

    @classmethod
    def create(cls, run_dir: Path, attempt: int, max_attempts: int, flags: RunFlags | None = None) -> RunContext:
        """Build the context of ``run_dir`` and create its checkpoint folder."""
        run_dir = Path(run_dir)
        checkpoint_dir = run_dir / "checkpoints"
        checkpoint_dir.mkdir(parents=True, exist_ok=True)
        return cls(run_dir=run_dir, checkpoint_dir=checkpoint_dir, attempt=attempt, max_attempts=max_attempts,
                   flags=flags if flags is not None else RunFlags())

    @property
    def is_retry(self) -> bool:
        """Whether an earlier attempt of this run failed."""
        return self.attempt > 1

    def latest_checkpoint(self) -> Path | None:
        """The checkpoint a retry should resume from, or ``None`` if none was saved yet.

        A file whose stem is ``latest`` (``latest.pt``) wins; otherwise the most recently modified
        regular file in :attr:`checkpoint_dir` (ties broken by name). Hidden files and ``*.tmp``
        files (partial writes) are ignored.
        """
        if not self.checkpoint_dir.is_dir():
            return None
        files = [
            p
            for p in self.checkpoint_dir.iterdir()
            if p.is_file() and not p.name.startswith(".") and p.suffix != ".tmp"
        ]
        if not files:
            return None
        latest = sorted(p for p in files if p.stem == "latest")
        if latest:
            return latest[0]
        return max(files, key=lambda p: (p.stat().st_mtime_ns, p.name))

    def environ(self) -> dict[str, str]:
        """The environment variables that carry this context to child processes."""
        return {
            ENV_RUN_DIR: str(self.run_dir),
            ENV_CHECKPOINT_DIR: str(self.checkpoint_dir),
            ENV_ATTEMPT: str(self.attempt),
            ENV_MAX_ATTEMPTS: str(self.max_attempts),
            ENV_RUN_FLAGS: json.dumps(self.flags.to_json()),
        }


def current_run() -> RunContext | None:
    """The context of the running job attempt, or ``None`` outside ``simulo run``."""
    run = _current_run.get()
    if run is not None:
        return run
    run_dir = os.environ.get(ENV_RUN_DIR)
    if not run_dir:
        return None
    try:
        attempt = int(os.environ.get(ENV_ATTEMPT, "1"))
        max_attempts = int(os.environ.get(ENV_MAX_ATTEMPTS, str(attempt)))
        flags = RunFlags.from_json(json.loads(os.environ.get(ENV_RUN_FLAGS) or "{}"))
    except (ValueError, TypeError, AttributeError):
        return None
    checkpoint_dir = Path(os.environ.get(ENV_CHECKPOINT_DIR, str(Path(run_dir) / "checkpoints")))
    return RunContext(Path(run_dir), checkpoint_dir, attempt, max_attempts, flags)


def current_app() -> RunningApp | None:
    """The app whose job is running (in ``simulo run`` or in an in-process job call), else ``None``."""
    return _current_app.get()


@contextmanager
def running(app: RunningApp, run: RunContext | None = None) -> Iterator[None]:
    """Make ``app`` (and ``run``, if given) current for the duration of the block."""
    app_token = _current_app.set(app)
    run_token = _current_run.set(run) if run is not None else None
    try:
        if run is None:
            yield
        else:
            # the trainer's package is imported only for a run (`simulo run --list` stays lean)
            from simulo.rl.training.checkpoints import run_checkpoints  # noqa: PLC0415

            with run_checkpoints(run.checkpoint_dir):
                yield
    finally:
        if run_token is not None:
            _current_run.reset(run_token)
        _current_app.reset(app_token)
