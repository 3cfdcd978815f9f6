"""The policy of a training job: registered when the job starts, recorded and announced when it ends.

The job process (:mod:`simulo.platform._child`) wraps a ``@app.job(type="train")`` job in
:func:`training_policy`:

* before the job runs, the run gets its policy ID (:func:`simulo.platform.policy_registry.register`;
  a retried attempt keeps the first attempt's), and ``policy.json`` says ``"status": "running"``;
* with ``simulo run train.py --from REF`` (``current_run().flags.from_policy``), the first attempt starts with the
  ``--from`` checkpoint copied into the run's ``checkpoints/latest.pt`` (and the source run's
  ``best.pt`` into ``checkpoints/best.pt``), so the trainer continues from it exactly as a retried
  job continues from its own ``latest.pt``: same weights, optimizer state, iteration count and best
  reward (``--max-iterations`` is the total, counting the source's iterations);
* when the job ends, ``policy.json`` gets the status, the checkpoints (iteration, reward, size and
  SHA-256 of ``best.pt`` and ``latest.pt``), the iterations and the best reward, and one line on
  stderr names the policy: ``Policy:  policy_quiet-cedar-7k3m4q  (best: iteration 180, ...)``.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulo._files import copy_atomically
from simulo.errors import SimuloValueError
from simulo.platform import policy_registry
from simulo.platform.context import RunContext
from simulo.platform.policies import CHECKPOINT_FOLDER, KINDS, PolicyCheckpoint
from simulo.platform.systems import JobType

if TYPE_CHECKING:
    from simulo.platform.app import JobFunction


def _seed_from(run: RunContext, checkpoint: PolicyCheckpoint) -> None:
    """Copy the ``--from`` checkpoint (and its run's ``best.pt``) into a first attempt's checkpoint folder.

    Each copy is made whole before it takes its name, so an attempt killed during the copy leaves no torn
    ``latest.pt`` for its retry to resume from.
    """
    if run.is_retry or (run.checkpoint_dir / "latest.pt").exists():
        return
    file = Path(checkpoint.path)
    copy_atomically(file, run.checkpoint_dir / "latest.pt", "checkpoint")
    best = file.with_name("best.pt")
    if best.is_file():
        copy_atomically(best, run.checkpoint_dir / "best.pt", "checkpoint")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checkpoint_records(policy_id: str, run_dir: Path) -> list[dict[str, Any]]:
    """The ``best`` and ``latest`` checkpoints of a run, as ``policy.json`` lists them (unreadable ones left out)."""
    records = []
    for kind in KINDS:
        file = run_dir / CHECKPOINT_FOLDER / f"{kind}.pt"
        if not file.is_file():
            continue
        try:
            checkpoint = PolicyCheckpoint.resolve(file)
        except SimuloValueError:
            continue
        stat = file.stat()
        records.append({
            "checkpoint": f"{policy_id}:{kind}",
            "kind": kind,
            "iteration": checkpoint.iteration,
            "max_iterations": checkpoint.meta.get("max_iterations"),
            "reward": checkpoint.reward,
            "best_reward": checkpoint.meta.get("best_reward"),
            "task_name": checkpoint.task_name,
            "task_digest": checkpoint.task_digest,
            "file": f"{CHECKPOINT_FOLDER}/{kind}.pt",
            "size_bytes": stat.st_size,
            "digest_sha256": _sha256(file),
            "updated_at": policy_registry.now_iso(),
        })
    return records


def finish(entry: policy_registry.PolicyEntry, status: str) -> policy_registry.PolicyEntry:
    """Record how the training run ended and what checkpoints it left."""
    checkpoints = checkpoint_records(entry.policy_id, entry.run_dir)
    by_kind = {c["kind"]: c for c in checkpoints}
    newest = by_kind.get("latest") or by_kind.get("best")
    best_reward = newest.get("best_reward") if newest is not None else None
    return policy_registry.update(
        entry, status=status, ended_at=policy_registry.now_iso(), checkpoints=checkpoints,
        iterations=None if newest is None else newest["iteration"],
        max_iterations=None if newest is None else newest["max_iterations"],
        best_reward=best_reward,
        task_name=None if newest is None else newest["task_name"],
        task_digest=None if newest is None else newest["task_digest"],
    )


def announcement(entry: policy_registry.PolicyEntry) -> str:
    """The line that names a finished run's policy, with its checkpoints."""
    parts = []
    for checkpoint in entry.record.get("checkpoints") or []:
        reward = checkpoint.get("reward")
        shown = "" if reward is None else f", reward {reward:.1f}"
        parts.append(f"{checkpoint['kind']}: iteration {checkpoint['iteration']}{shown}")
    detail = "; ".join(parts) if parts else "no checkpoint saved"
    started = entry.record.get("started_from")
    origin = f"; started from {started}" if started else ""
    return f"Policy:  {entry.policy_id}  ({detail}{origin})"


@contextmanager
def training_policy(job: JobFunction, run: RunContext) -> Iterator[None]:
    """Around a train job's call: register its policy, seed ``--from``, then record and announce it.

    Other job types pass through unchanged.
    """
    if job.spec.job_type != JobType.TRAIN:
        yield
        return
    source = None
    if run.flags.from_policy is not None:
        source = PolicyCheckpoint.resolve(run.flags.from_policy, run.run_dir.parent.parent)
    started_from = None if source is None else source.checkpoint
    entry = policy_registry.register(run.run_dir, job.app.name, job.spec.name, started_from=started_from,
                                     tags=run.flags.tags)
    if entry.record.get("status") != "running":  # a retry of an attempt that failed
        entry = policy_registry.update(entry, status="running", ended_at=None)
    if source is not None:
        _seed_from(run, source)
        print(f"simulo run: --from {run.flags.from_policy} -> {source.path} ({source.checkpoint}, iteration "
              f"{source.iteration}): training continues from it", file=sys.stderr, flush=True)
    status = "failed"
    try:
        yield
        status = "completed"
    finally:
        entry = finish(entry, status)
        print(announcement(entry), file=sys.stderr, flush=True)
