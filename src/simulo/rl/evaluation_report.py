"""The evaluation report: judged episodes turned into the SDK's ``EvaluationReport`` and ``episodes.csv``.

:func:`build_report` takes the :class:`Episode` records of a run (and, for ``--compare``, those of the
compared policy on the same episode numbers) and returns
``simulo.interfaces.platform.evaluation.EvaluationReport``. Its bounds are the SDK's: at most
:data:`~simulo.interfaces.platform.evaluation.MAX_FAILURE_GROUPS` failure groups,
:data:`~simulo.interfaces.platform.evaluation.MAX_LISTED_EPISODES` listed episodes,
:data:`~simulo.interfaces.platform.evaluation.MAX_NEXT_LINES` NEXT lines. An episode with a recording
(:attr:`Episode.recording`, which ``evaluate`` sets for up to 10 failed episodes when it has a run folder)
counts in ``recorded`` and names it in its listing and in ``episodes.csv``.
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from simulo.interfaces.platform.evaluation import (
    EVALUATION_REPORT_SCHEMA_VERSION,
    MAX_FAILURE_GROUPS,
    MAX_LISTED_EPISODES,
    MAX_LISTED_SIMULATION_PROBLEMS,
    ComparisonVerdict,
    EvaluationCheckpoint,
    EvaluationComparison,
    EvaluationReport,
    EvaluationResult,
    EvaluationTested,
    LikelyRange,
    ListedEpisode,
    NextLine,
    SimulationProblem,
    episodes_csv_columns,
)

_Z95 = 1.959963984540054
P_THRESHOLD = 0.05
WIDE_RANGE_POINTS = 15
NEVER_LEARNED_PERCENT = 10
MAX_RULE_LINES = 3


@dataclass
class Episode:
    """What one numbered episode did."""

    number: int
    first_observation: list[float]
    success: bool = False
    ended_by: str = ""
    length: int = 0
    total_reward: float = 0.0
    checks: dict[str, bool] = field(default_factory=dict)
    sim_problem: SimulationProblem | None = None
    sim_problem_step: int = 0
    recording: str | None = None


def likely_range(successes: int, n: int) -> LikelyRange:
    """The 95% Wilson score interval in whole percent, low rounded down, high rounded up."""
    share = successes / n
    denom = 1.0 + _Z95 ** 2 / n
    centre = (share + _Z95 ** 2 / (2 * n)) / denom
    half = _Z95 * math.sqrt(share * (1 - share) / n + _Z95 ** 2 / (4 * n * n)) / denom
    return {"low_percent": max(0, math.floor(100.0 * (centre - half))),
            "high_percent": min(100, math.ceil(100.0 * (centre + half)))}


def mcnemar_p(improved: int, regressed: int) -> float:
    """Two-sided exact McNemar p-value for the episodes whose outcome changed (1.0 when none did)."""
    n = improved + regressed
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(improved, regressed) + 1)) / 2 ** n
    return min(1.0, 2.0 * tail)


def summary_line(succeeded: int, n: int) -> str:
    """RESULT's first line, as the SDK words it."""
    likely = likely_range(succeeded, n)
    return (f"{succeeded} of {n} episodes succeeded. Likely range: {likely['low_percent']}% to "
            f"{likely['high_percent']}%.")


def result(records: Sequence[Episode], order: Sequence[str], reference: str) -> EvaluationResult:
    """RESULT of one checkpoint's episodes."""
    n = len(records)
    succeeded = sum(r.success for r in records)
    failures = [r for r in records if not r.success]
    groups = Counter(tuple(name for name in order if not r.checks.get(name, False)) for r in failures)
    ranked = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
    endings = Counter(r.ended_by for r in records)
    return {
        "checkpoint": reference,
        "episodes": n,
        "succeeded": succeeded,
        "likely_range": likely_range(succeeded, n),
        "checks": [{"name": name, "passed": sum(r.checks.get(name, False) for r in records)} for name in order],
        "failure_groups": [{"missed": list(missed), "episodes": count}
                           for missed, count in ranked[:MAX_FAILURE_GROUPS]],
        "other_failure_combinations": max(0, len(ranked) - MAX_FAILURE_GROUPS),
        "endings": [{"ended_by": name, "episodes": count}
                    for name, count in sorted(endings.items(), key=lambda kv: (-kv[1], kv[0]))],
        "simulation_problem_episodes": sum(r.sim_problem is not None for r in records),
    }


def comparison(records: Sequence[Episode], compared: Sequence[Episode], order: Sequence[str],
               checkpoint: EvaluationCheckpoint, task_changed: bool) -> EvaluationComparison:
    """The ``--compare`` block: ``compared`` ran ``checkpoint`` on the same episode numbers as ``records``."""
    theirs = {r.number: r.success for r in compared}
    improved = sum(1 for r in records if r.success and not theirs[r.number])
    regressed = sum(1 for r in records if not r.success and theirs[r.number])
    p = mcnemar_p(improved, regressed)
    verdict: ComparisonVerdict = ("no_clear_difference" if p >= P_THRESHOLD
                                  else "did_better" if improved > regressed else "did_worse")
    return {"verdict": verdict, "p_value": p, "compared_with": checkpoint,
            "compared_result": result(compared, order, checkpoint["reference"]), "task_changed": task_changed,
            "improved": improved, "regressed": regressed}


def _listed(records: Sequence[Episode], order: Sequence[str], dt: float) -> list[ListedEpisode]:
    worst = sorted((r for r in records if not r.success), key=lambda r: (r.total_reward, r.number))
    return [{"episode": r.number, "success": r.success, "ended_by": r.ended_by, "ended_at_s": r.length * dt,
             "total_reward": r.total_reward, "checks": {name: r.checks.get(name, False) for name in order},
             "simulation_problem": r.sim_problem, "recording": r.recording}
            for r in worst[:MAX_LISTED_EPISODES]]


def _next(records: Sequence[Episode], res: EvaluationResult, tested: EvaluationTested) -> list[NextLine]:
    """The NEXT lines: up to three rules that match, in the SDK's order, then the ``--compare`` offer."""
    n, succeeded = res["episodes"], res["succeeded"]
    reference = tested["checkpoint"]["reference"]
    rerun = f"simulo run {tested['success_file']} --policy {reference}"
    lines: list[NextLine] = []
    if res["simulation_problem_episodes"]:
        lines.append({"rule": "simulation_problems", "text": "Fix the simulation problems first: those episodes "
                      "count as failures whatever the policy did", "command": None})
    if res["likely_range"]["high_percent"] < NEVER_LEARNED_PERCENT:
        lines.append({"rule": "never_learned", "text": "The policy rarely succeeds; train longer or check that the "
                      "reward pays for what the success rule asks", "command": None})
    fail_rewards = [r.total_reward for r in records if not r.success]
    win_rewards = [r.total_reward for r in records if r.success]
    if fail_rewards and win_rewards and statistics.median(fail_rewards) >= statistics.median(win_rewards):
        lines.append({"rule": "reward_pays_for_failure", "text": "Failed episodes earned as much reward as successful "
                      "ones; the reward may pay for failing", "command": None})
    groups = res["failure_groups"]
    if groups and len(groups[0]["missed"]) == 1:
        lines.append({"rule": "one_check_missed", "text": f"Most failures missed only \"{groups[0]['missed'][0]}\"",
                      "command": None})
    likely = res["likely_range"]
    if likely["high_percent"] - likely["low_percent"] > WIDE_RANGE_POINTS:
        lines.append({"rule": "more_episodes", "text": "Run more episodes for a narrower likely range",
                      "command": f"{rerun} --episodes {n * 4}"})
    if succeeded == n:
        lines.append({"rule": "all_succeeded", "text": "Every episode succeeded; add --require-success to your "
                      "pipeline", "command": None})
    lines = lines[:MAX_RULE_LINES]
    if tested["checkpoint"]["kind"] == "best" and reference.endswith(":best"):
        latest = reference[: -len(":best")] + ":latest"
        lines.append({"rule": "compare_latest", "text": "Compare with the latest checkpoint",
                      "command": f"{rerun} --compare {latest}"})
    return lines


def build_report(records: Sequence[Episode], order: Sequence[str], dt: float, tested: EvaluationTested,
                 runtime_version: str, compared: EvaluationComparison | None = None) -> EvaluationReport:
    """The whole report of one evaluation (``compared``: the ``--compare`` block, or ``None``)."""
    res = result(records, order, tested["checkpoint"]["reference"])
    task = tested["task"]
    changed = task["changed"]
    problems = [r for r in records if r.sim_problem is not None][:MAX_LISTED_SIMULATION_PROBLEMS]
    return {
        "report_schema_version": EVALUATION_REPORT_SCHEMA_VERSION,
        "summary": summary_line(res["succeeded"], res["episodes"]),
        "task_changed": changed,
        "notice": (f"{task['file']} has changed since {tested['checkpoint']['policy_id']} was trained" if changed
                   else None),
        "runtime_version": runtime_version,
        "tested": tested,
        "result": res,
        "comparison": compared,
        "failures": res["episodes"] - res["succeeded"],
        "recorded": sum(1 for r in records if r.recording is not None),
        "listed_episodes": _listed(records, order, dt),
        "simulation_problems": [{"episode": r.number, "problem": r.sim_problem, "at_s": r.sim_problem_step * dt}
                                for r in problems if r.sim_problem is not None],
        "next": _next(records, res, tested),
    }


def _csv_bool(value: bool) -> str:
    return "true" if value else "false"


def write_episodes_csv(path: Path, records: Sequence[Episode], order: Sequence[str], dt: float, seed: int,
                       checkpoint: Mapping[str, object]) -> Path:
    """One row per episode in the SDK's ``episodes.csv`` columns; booleans are ``true``/``false``."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(episodes_csv_columns(list(order)))
        for r in records:
            writer.writerow([r.number, seed, checkpoint.get("reference", ""), _csv_bool(r.success), r.ended_by,
                             f"{r.length * dt:.6g}", f"{r.total_reward:.9g}", r.sim_problem or "",
                             *(_csv_bool(r.checks.get(name, False)) for name in order),
                             json.dumps(r.first_observation), r.recording or ""])
    tmp.replace(path)
    return path
