"""Checkpoint files of the trainer: where they go, how they are written and read.

A checkpoint is one ``torch.save`` file holding only plain containers, numbers, strings and
tensors, so it is read back with ``torch.load(weights_only=True)`` (no pickled code runs).
Files are written to a temporary name and renamed, so a crash never leaves a torn ``latest.pt``.
Version 2 (skrl's PPO) keeps skrl's module states under ``"agent"`` and the standalone deterministic
actor under ``"actor"`` (what :class:`~simulo.rl.training.player.PolicyPlayer` and export read).

Where checkpoints go (first match wins):

1. the ``checkpoint_dir`` given to the trainer;
2. the folder the job runner set with :func:`run_checkpoints` for the job it is running;
3. the directory named by the environment variable ``SIMULO_CHECKPOINT_DIR``;
4. a fresh directory ``./runs/checkpoints/rltrainer-XXXX`` (created on the first save).

Only in cases 2 and 3 (a job run, possibly a retry) does a trainer resume from an existing
``latest.pt`` on its own; see :class:`~simulo.rl.training.trainer.RLTrainer`.

A checkpoint of a trainer whose environment runs a task (``env.task``) also names that task, as the SDK's
checkpoint sidecar does (:func:`task_fields`): ``task_name``, the task's class name, and ``task_digest``,
``sha256:<hex>`` of the file that defines the task's class. An evaluation compares them with the task it runs
to say whether the task changed since training. Older checkpoints lack them (``"unknown"`` when read back
through :class:`simulo.PolicyCheckpoint`).
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulo._files import write_atomically
from simulo.checks import is_real
from simulo.errors import SimuloValueError
from simulo.rl.training.deps import require_torch

FORMAT = "simulo-local/rltrainer"
VERSION = 2
BEST = "best.pt"
LATEST = "latest.pt"
CHECKPOINT_DIR_ENV = "SIMULO_CHECKPOINT_DIR"
LOCAL_ROOT = Path("runs") / "checkpoints"

_run_dir: ContextVar[Path | None] = ContextVar("simulo_run_checkpoint_dir", default=None)


@contextmanager
def run_checkpoints(directory: str | os.PathLike[str]) -> Iterator[None]:
    """Inside the block, trainers without an explicit ``checkpoint_dir`` save into (and resume from)
    ``directory``. The job runner wraps each job attempt in this with the run's checkpoint folder."""
    token = _run_dir.set(Path(directory))
    try:
        yield
    finally:
        _run_dir.reset(token)


@dataclass(frozen=True)
class CheckpointLocation:
    """A resolved checkpoint directory.

    Attributes:
        directory: The directory, or ``None`` for a fresh local one created on first use.
        from_run: Whether it belongs to a job run (which makes auto-resume apply).
    """

    directory: Path | None
    from_run: bool


def resolve_location(explicit: str | os.PathLike[str] | None) -> CheckpointLocation:
    """Choose the checkpoint directory by the rules of this module.

    Args:
        explicit: The directory the user gave, or ``None``.

    Returns:
        The resolved location.
    """
    if explicit is not None:
        return CheckpointLocation(Path(explicit), from_run=False)
    run_dir = _run_dir.get()
    if run_dir is not None:
        return CheckpointLocation(Path(run_dir), from_run=True)
    env_dir = os.environ.get(CHECKPOINT_DIR_ENV)
    if env_dir:
        return CheckpointLocation(Path(env_dir), from_run=True)
    return CheckpointLocation(None, from_run=False)


def new_local_dir() -> Path:
    """Create and return a fresh directory under ``./runs/checkpoints``."""
    LOCAL_ROOT.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="rltrainer-", dir=LOCAL_ROOT)).resolve()


def task_fields(env: Any) -> dict[str, str]:
    """``task_name`` and ``task_digest`` of the task ``env`` runs, for a checkpoint; empty when it runs none.

    Args:
        env: The trainer's environment; its ``task`` attribute, when it has one, is the task.

    Returns:
        ``{"task_name": <class name>, "task_digest": "sha256:<hex>"}`` (the digest is
        :func:`simulo.rl.preview.task_digest`, the preview and evaluation reports' own), or ``{}``.
    """
    task = getattr(env, "task", None)
    if task is None:
        return {}
    from simulo.rl.preview.report import task_digest  # noqa: PLC0415 - the preview package is only needed here

    return {"task_name": type(task).__name__, "task_digest": task_digest(task)}


def control_period(env: Any) -> dict[str, float]:
    """``control_period_s``, the simulated seconds per policy step of ``env`` (its ``dt``), for a checkpoint;
    empty when ``env`` has no finite positive ``dt`` (an exported bundle then says ``"unknown"``)."""
    dt = getattr(env, "dt", None)
    return {"control_period_s": float(dt)} if is_real(dt, 0.0, low_open=True) else {}


def write_checkpoint(path: str | os.PathLike[str], payload: dict[str, Any]) -> Path:
    """Write ``payload`` (tagged with the format and version) atomically to ``path``.

    The checkpoint is serialised in memory, then written to a temporary file and renamed
    (:func:`simulo._files.write_atomically`): a kill or a full disk leaves the previous checkpoint whole.

    Args:
        path: Target file; its parent directories are created.
        payload: Checkpoint content (plain containers, numbers, strings, tensors).

    Returns:
        The path written.

    Raises:
        RecordWriteError: The file cannot be written (``no space left on device``); the previous one is kept.
    """
    torch = require_torch()
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save({"format": FORMAT, "version": VERSION, **payload}, buffer)
    return write_atomically(target, buffer.getvalue(), "checkpoint")


def read_checkpoint(path: str | os.PathLike[str], map_location: Any = "cpu") -> dict[str, Any]:
    """Read a checkpoint written by :func:`write_checkpoint`.

    Args:
        path: The file.
        map_location: Where tensors go (a ``torch.device`` or name).

    Returns:
        The payload.

    Raises:
        SimuloValueError: The file is missing, unreadable, or not a checkpoint of this format.
    """
    torch = require_torch()
    source = Path(path)
    if not source.is_file():
        raise SimuloValueError(f"checkpoint {str(source)!r} does not exist (expected a file written by RLTrainer.save)")
    try:
        payload = torch.load(source, map_location=map_location, weights_only=True)
    except Exception as exc:  # torch raises many types for corrupt files
        raise SimuloValueError(f"checkpoint {str(source)!r} cannot be read: {exc}") from exc
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise SimuloValueError(f"checkpoint {str(source)!r} is not an RLTrainer checkpoint "
                               f"(format {FORMAT!r} expected)")
    if payload.get("version") != VERSION:
        raise SimuloValueError(
            f"checkpoint {str(source)!r} has format version {payload.get('version')!r}; "
            f"this runtime reads version {VERSION}"
        )
    return payload
