"""Policy IDs of training runs, as the SDK names them, and the ``policy.json`` that records each one.

Every run of a ``@app.job(type="train")`` job owns one policy, named like the SDK's policies:
``policy_<word>-<word>-<6 characters>`` (``policy_quiet-cedar-7k3m4q``; the words are 3 to 10 lowercase
letters, the tail uses Crockford's base-32 alphabet, without ``i``, ``l``, ``o`` and ``u``). The ID is
derived from the run (its folder relative to the runs root and the time it was registered), so it is the
same for every attempt of the run, and it is unique within the runs root: a clash with another run's ID
derives the next candidate.

The record lives in the run folder, ``RUNS/<app>/<job>/<NNNN>/policy.json``::

    {"schema": "simulo-local.policy.v1", "policy_id": "policy_quiet-cedar-7k3m4q",
     "app": "cartpole", "job": "train", "run_dir": "cartpole/train/0003", "status": "completed",
     "started_from": null, "created_at": "2026-12-01T12:00:00Z", "ended_at": "2026-12-01T12:01:00Z",
     "iterations": 200, "max_iterations": 200, "best_reward": 287.5,
     "task_name": "CartpoleTask", "task_digest": "sha256:...",
     "checkpoints": [{"checkpoint": "policy_quiet-cedar-7k3m4q:best", "kind": "best", "iteration": 180,
                      "reward": 287.5, "task_name": "CartpoleTask", "task_digest": "sha256:...",
                      "file": "checkpoints/best.pt", "size_bytes": 81234,
                      "digest_sha256": "...", "updated_at": "..."}, ...],
     "tags": []}

``task_name`` and ``task_digest`` are those of :class:`simulo.PolicyCheckpoint`: the task the policy was trained
on (``"unknown"`` for a checkpoint that names none; ``null`` until the run saved a checkpoint).

Importing this module imports only the standard library.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simulo._files import write_atomically
from simulo.errors import SimuloValueError

POLICY_FILE = "policy.json"
SCHEMA = "simulo-local.policy.v1"
PREFIX = "policy_"
_STEM = r"[a-z]{3,10}-[a-z]{3,10}-[0-9a-hjkmnp-tv-z]{6}"
_POLICY_ID_RE = re.compile(rf"policy_{_STEM}\Z")
_JOB_ID_RE = re.compile(rf"job_{_STEM}\Z")
_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
_ASCII_SPACE = " \t\n\r\v\f"
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ADJECTIVES = (
    "amber", "bold", "brave", "bright", "brisk", "calm", "clever", "cosmic", "crisp", "dapper", "eager",
    "early", "fancy", "fleet", "gentle", "golden", "grand", "happy", "hardy", "humble", "jolly", "keen",
    "kind", "lively", "lucky", "mellow", "merry", "mighty", "misty", "nimble", "noble", "plucky", "polar",
    "proud", "quick", "quiet", "rapid", "ready", "rosy", "rustic", "sandy", "sharp", "shiny", "silent",
    "silver", "sleek", "smooth", "snowy", "solar", "sonic", "spry", "steady", "stellar", "sturdy", "sunny",
    "swift", "tidy", "vivid", "warm", "wild", "wise", "witty", "young", "zesty",
)
_NOUNS = (
    "acorn", "alder", "anchor", "aspen", "badger", "beacon", "birch", "bison", "brook", "canyon", "cedar",
    "comet", "coral", "crane", "delta", "dune", "eagle", "ember", "falcon", "fern", "fjord", "forest",
    "garnet", "glacier", "harbor", "hazel", "heron", "island", "jaguar", "juniper", "kestrel", "lagoon",
    "lantern", "larch", "maple", "meadow", "meteor", "nebula", "orbit", "otter", "panda", "pebble",
    "pine", "planet", "prairie", "quartz", "raven", "reef", "ridge", "river", "robin", "sparrow", "spruce",
    "summit", "thistle", "tiger", "timber", "tundra", "valley", "walnut", "willow", "wren", "yarrow",
    "zephyr",
)


@dataclass(frozen=True)
class PolicyEntry:
    """One registered policy: its ID, the run folder that trained it, and its ``policy.json`` record.

    Attributes:
        policy_id: ``policy_<stem>``.
        run_dir: The training run's folder.
        record: The content of ``policy.json``.
    """

    policy_id: str
    run_dir: Path
    record: Mapping[str, Any]


def normalize(text: str) -> str:
    """``text`` without outer ASCII whitespace and with ASCII letters lowercased (the SDK's rule)."""
    return text.strip(_ASCII_SPACE).translate(_LOWER)


def is_policy_id(text: str) -> bool:
    """Whether ``text`` (normalized) is a policy ID such as ``policy_quiet-cedar-7k3m4q``."""
    return _POLICY_ID_RE.fullmatch(normalize(text)) is not None


def looks_like_id(text: str) -> bool:
    """Whether ``text`` is meant as a policy or job ID (starts with ``policy_`` or ``job_``), valid or not."""
    return normalize(text).startswith((PREFIX, "job_"))


def check_policy_id(text: str) -> str:
    """The normalized policy ID, or a clear error for a malformed one (or a job ID, as the SDK says).

    Raises:
        SimuloValueError: ``text`` is not ``policy_<word>-<word>-<6 characters>``.
    """
    value = normalize(text)
    if _POLICY_ID_RE.fullmatch(value):
        return value
    if _JOB_ID_RE.fullmatch(value):
        stem = value.removeprefix("job_")
        raise SimuloValueError(f"{value} is a job; did you mean policy_{stem}?")
    raise SimuloValueError(f"{text!r} is not a policy ID: expected policy_<word>-<word>-<6 characters>, "
                           "such as policy_quiet-cedar-7k3m4q (simulo policy list shows them)")


def derive_policy_id(seed: str, taken: frozenset[str] | set[str] = frozenset()) -> str:
    """The policy ID derived from ``seed``: the first candidate (salt 0, 1, ...) that is not in ``taken``."""
    salt = 0
    while True:
        digest = hashlib.sha256(f"{seed}\0{salt}".encode()).digest()
        adjective = _ADJECTIVES[int.from_bytes(digest[0:2], "big") % len(_ADJECTIVES)]
        noun = _NOUNS[int.from_bytes(digest[2:4], "big") % len(_NOUNS)]
        tail_bits = int.from_bytes(digest[4:8], "big")
        tail = "".join(_ALPHABET[(tail_bits >> (5 * i)) & 31] for i in range(6))
        candidate = f"{PREFIX}{adjective}-{noun}-{tail}"
        if candidate not in taken:
            return candidate
        salt += 1


def now_iso() -> str:
    """The current UTC time as ``2026-12-01T12:00:00Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_record(run_dir: Path) -> dict[str, Any] | None:
    """The ``policy.json`` of ``run_dir``, or ``None`` when it has none or it is unreadable."""
    path = Path(run_dir) / POLICY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("policy_id"), str):
        return None
    return data


def write_record(run_dir: Path, record: Mapping[str, Any]) -> None:
    """Write ``policy.json`` of ``run_dir`` atomically.

    Raises:
        RecordWriteError: The file cannot be written (a full disk); it keeps its previous content.
    """
    write_atomically(Path(run_dir) / POLICY_FILE, json.dumps(dict(record), indent=2) + "\n", "policy record")


def all_policies(root: Path) -> list[PolicyEntry]:
    """Every policy registered under the runs root ``root``, newest first (``created_at``, then folder)."""
    entries = []
    base = Path(root)
    if not base.is_dir():
        return []
    for path in base.glob(f"*/*/*/{POLICY_FILE}"):
        record = read_record(path.parent)
        if record is not None:
            entries.append(PolicyEntry(str(record["policy_id"]), path.parent, record))
    return sorted(entries, key=lambda e: (str(e.record.get("created_at") or ""), str(e.run_dir)), reverse=True)


def find_policy(root: Path, policy_id: str) -> PolicyEntry:
    """The policy ``policy_id`` under the runs root ``root``.

    Raises:
        SimuloValueError: The ID is malformed, or no run under ``root`` registered it (the message lists
            the policies that exist).
    """
    wanted = check_policy_id(policy_id)
    entries = all_policies(root)
    for entry in entries:
        if entry.policy_id == wanted:
            return entry
    known = ", ".join(e.policy_id for e in entries[:10]) or "none"
    more = f" and {len(entries) - 10} more" if len(entries) > 10 else ""
    raise SimuloValueError(f"no policy {wanted} under the runs folder {str(root)!r} (policies there: {known}{more}); "
                           "train first (simulo run train.py), or use --runs-dir / $SIMULO_RUNS_DIR to name the "
                           "runs folder that holds it")


def register(run_dir: Path, app: str, job: str, *, started_from: str | None = None,
             tags: tuple[str, ...] = ()) -> PolicyEntry:
    """Give the training run ``run_dir`` (``ROOT/<app>/<job>/<NNNN>``) its policy ID and write ``policy.json``.

    A run that already has one (a retried attempt) keeps it.

    Args:
        run_dir: The run's folder.
        app: The app's name.
        job: The job's name.
        started_from: The checkpoint training continued from (``--from``), or ``None``.
        tags: The run's ``--tag`` values.

    Returns:
        The registered policy.
    """
    run_dir = Path(run_dir)
    existing = read_record(run_dir)
    if existing is not None:
        return PolicyEntry(str(existing["policy_id"]), run_dir, existing)
    root = run_dir.parent.parent.parent
    relative = run_dir.resolve().relative_to(root.resolve()).as_posix()
    created = now_iso()
    taken = {entry.policy_id for entry in all_policies(root)}
    policy_id = derive_policy_id(f"{relative}\0{created}", taken)
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "policy_id": policy_id,
        "app": app,
        "job": job,
        "run_dir": relative,
        "status": "running",
        "started_from": started_from,
        "created_at": created,
        "ended_at": None,
        "iterations": None,
        "max_iterations": None,
        "best_reward": None,
        "task_name": None,
        "task_digest": None,
        "checkpoints": [],
        "tags": list(tags),
    }
    write_record(run_dir, record)
    return PolicyEntry(policy_id, run_dir, record)


def update(entry: PolicyEntry, **changes: Any) -> PolicyEntry:
    """Write ``changes`` into the policy's ``policy.json`` and return the updated entry."""
    record = {**entry.record, **changes}
    write_record(entry.run_dir, record)
    return PolicyEntry(entry.policy_id, entry.run_dir, record)
