"""The preview report: rows collected while the checks run, assembled in the SDK's ``PreviewReport`` shape.

Each finding is a :class:`Row` kept in a :class:`Findings` book under a key, so a check that sees the
same problem on many steps reports it once (the first few occurrences, then a count). :func:`build_report`
turns the book into ``simulo.interfaces.platform.preview.PreviewReport``: stages in
:data:`~simulo.interfaces.platform.preview.PREVIEW_CHECKS` order, each with its rows, or skipped with the
reason.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from simulo.interfaces.platform.preview import (
    PREVIEW_CHECKS,
    PREVIEW_REPORT_SCHEMA_VERSION,
    PreviewCheck,
    PreviewOwner,
    PreviewReport,
    PreviewReportRow,
    PreviewReportStage,
)

MAX_MESSAGES = 3
Status = Literal["pass", "warn", "fail"]
_RANK = {"pass": 0, "warn": 1, "fail": 2}


@dataclass
class Row:
    """One finding being collected: passes unless a problem is added.

    Attributes:
        stage: The stage the row belongs to.
        check: The selectable check that produced it (a stage name or ``"action-map"``).
        title: What was checked, in a few words (``"Rewards are finite numbers"``).
        fix: What to change when the row warns or fails.
        owner: Whose problem a warning or failure is.
        detail: Extra facts, shown under the row whatever its status.
        env: The environment the first problem was seen in, when known.
        at_s: Seconds into the preview's recording when the first problem was seen (when it records).
        clock: Gives that time (the recording's clock), or ``None``.
    """

    stage: PreviewCheck
    check: str
    title: str
    fix: str
    owner: PreviewOwner
    detail: str | None = None
    env: int | None = None
    at_s: float | None = None
    clock: Callable[[], float] | None = field(default=None, repr=False)
    status: Status = "pass"
    problems: list[str] = field(default_factory=list)
    total: int = 0

    def problem(self, message: str, *, warn: bool = False, env: int | None = None) -> None:
        """Record one occurrence of a problem (``warn``: it does not fail the preview)."""
        self.total += 1
        status: Status = "warn" if warn else "fail"
        if _RANK[status] > _RANK[self.status]:
            self.status = status
        if self.env is None and env is not None:
            self.env = int(env)
        if self.at_s is None and self.clock is not None:
            self.at_s = round(float(self.clock()), 6)
        if len(self.problems) < MAX_MESSAGES:
            self.problems.append(message)

    def entry(self) -> PreviewReportRow:
        """The row in the report's shape."""
        passed = self.status == "pass"
        text = None
        if self.problems:
            more = self.total - len(self.problems)
            text = "; ".join(self.problems) + (f" (and {more} more)" if more > 0 else "")
        row: PreviewReportRow = {
            "status": self.status, "check": self.check, "title": self.title, "problem": text,
            "fix": None if passed else self.fix, "detail": self.detail, "owner": None if passed else self.owner,
        }
        if self.env is not None and not passed:
            row["env"] = self.env
        if self.at_s is not None and not passed:
            row["at_s"] = self.at_s
        return row


class Findings:
    """The rows of every stage, in the order they were opened, and the stages' skip reasons."""

    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}
        self.skipped: dict[str, str] = {}
        #: The recording's clock, when the preview records: rows note when their first problem was seen.
        self.clock: Callable[[], float] | None = None

    def row(self, key: str, stage: PreviewCheck, title: str, fix: str, owner: PreviewOwner,
            check: str | None = None) -> Row:
        """The row under ``key``, opened with these texts the first time it is asked for."""
        existing = self.rows.get(key)
        if existing is None:
            existing = self.rows[key] = Row(stage=stage, check=check or stage, title=title, fix=fix, owner=owner,
                                            clock=self.clock)
        return existing

    def failures(self) -> int:
        """How many problems every row has recorded so far (warnings included)."""
        return sum(r.total for r in self.rows.values())

    def skip(self, stages: tuple[str, ...], reason: str) -> None:
        """Mark ``stages`` skipped, unless they found a problem: their passing rows are dropped, as unfinished."""
        self.rows = {key: r for key, r in self.rows.items() if r.stage not in stages or r.status != "pass"}
        for stage in stages:
            if stage not in self.skipped and not any(r.stage == stage for r in self.rows.values()):
                self.skipped[stage] = reason


def build_report(task: Any, findings: Findings, measurements: dict[str, Any], selected: tuple[str, ...]
                 ) -> PreviewReport:
    """The report of one preview of ``task``: the rows of the ``selected`` checks, and every failed row."""
    stages: list[PreviewReportStage] = []
    for name in PREVIEW_CHECKS:
        stage = cast(PreviewCheck, name)
        rows = [r.entry() for r in findings.rows.values()
                if r.stage == stage and (r.check in selected or r.status == "fail")]
        if not rows:
            stages.append({"stage": stage, "status": "skipped",
                           "skip_reason": findings.skipped.get(stage, "not run"), "rows": []})
            continue
        failed = any(r["status"] == "fail" for r in rows)
        stages.append({"stage": stage, "status": "failed" if failed else "passed", "skip_reason": None,
                       "rows": rows})
    all_rows = [row for stage_entry in stages for row in stage_entry["rows"]]
    failed_stages = [s["stage"] for s in stages if s["status"] == "failed"]
    return {
        "report_schema_version": PREVIEW_REPORT_SCHEMA_VERSION,
        "verdict": "failed" if failed_stages else "passed",
        "summary": _summary(stages, all_rows, failed_stages),
        "made_policy": False,
        "task": type(task).__name__,
        "task_digest": task_digest(task),
        "stages": stages,
        "measurements": measurements,
    }


def _summary(stages: list[PreviewReportStage], rows: list[PreviewReportRow], failed: Sequence[str]) -> str:
    counts = {status: sum(r["status"] == status for r in rows) for status in ("pass", "warn", "fail")}
    text = f"{counts['pass']} of {len(rows)} checks passed"
    if counts["warn"]:
        text += f", {counts['warn']} warned"
    if counts["fail"]:
        text += f", {counts['fail']} failed"
    skipped = [s["stage"] for s in stages if s["status"] == "skipped"]
    if skipped:
        text += f"; skipped: {', '.join(skipped)}"
    lead = f"Preview failed ({', '.join(failed)})" if failed else "Preview passed"
    return f"{lead}: {text}."


def task_digest(task: Any) -> str:
    """``sha256:<hex>`` of the file that defines the task's class (of its source text when the file is gone).

    Two previews, or a preview and a training run, of the same task file have the same digest.
    """
    cls = type(task)
    try:
        path = inspect.getsourcefile(cls)
        data = Path(path).read_bytes() if path else inspect.getsource(cls).encode()
    except (OSError, TypeError):
        data = f"{cls.__module__}.{cls.__qualname__}".encode()
    return "sha256:" + hashlib.sha256(data).hexdigest()
