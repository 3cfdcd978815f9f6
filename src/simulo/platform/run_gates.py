"""What the evaluation-related ``simulo run`` flags mean for the run: where they apply, and the exit status.

``simulo run`` (:mod:`simulo.cli.run`) calls :func:`check_run_flags` before it takes a run folder, and
:func:`gated_exit` once the job has ended. As in the SDK's client:

* ``--from POLICY:KIND`` works only on a training job; ``--compare``, ``--repeatable``,
  ``--require-success`` and ``--fail-if-worse`` only on an eval job, and ``--fail-if-worse`` needs
  ``--compare``. A flag on another job type is a usage error (exit 2). Untyped jobs (a bare
  ``@app.job``) get every flag and decide themselves (``current_run().flags``).
* The checkpoints named by ``--from``, ``--compare`` and the job's ``--policy``-style parameters must
  exist: a miss is a usage error that lists what exists, and no run folder is taken.
* ``--require-success RATE``: exit 1 when the share of successful episodes is below ``RATE``.
  ``--fail-if-worse``: exit 1 when the report's comparison says ``did_worse``. With either gate, an
  evaluation that did not finish (the job failed or timed out, or returned no evaluation report) exits
  2; 0 means every gate passed. The verdict lines go to stderr.

What the job does with the flags: :mod:`simulo.platform.training_policy` (``--from``),
:func:`simulo.evaluate` (``--compare``), :mod:`simulo.platform.repeatable` (``--repeatable``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from simulo.errors import JobError, SimuloValueError
from simulo.platform.context import RunFlags
from simulo.platform.params import job_flags
from simulo.platform.policies import locate
from simulo.platform.systems import JobType

if TYPE_CHECKING:
    from simulo.platform.app import JobFunction

EXIT_PASSED, EXIT_CHECK_FAILED, EXIT_JOB_FAILED = 0, 1, 2
EVAL_SCHEMA = "simulo.evaluation_report.v1"
_EVAL_ONLY = ("--compare", "--repeatable", "--require-success", "--fail-if-worse")


def _article(job_type: JobType) -> str:
    return "an" if job_type.value[0] in "aeiou" else "a"


def _found(flag: str, reference: str, app_runs_dir: Path) -> None:
    try:
        locate(reference, app_runs_dir)
    except SimuloValueError as exc:
        raise JobError(f"{flag}: {exc}") from exc


def check_run_flags(job: JobFunction, flags: RunFlags, params: Mapping[str, Any], root: Path) -> None:
    """Refuse the flags that do not apply to ``job`` and references to checkpoints that do not exist.

    Args:
        job: The job about to run.
        flags: Its ``simulo run`` flags.
        params: Its parsed parameters (``--policy``-style values are still reference strings).
        root: The runs root; the app's runs folder is ``root / <app>``.

    Raises:
        JobError: A flag on the wrong job type, ``--fail-if-worse`` without ``--compare``, or a
            reference that names no checkpoint (the message lists what exists).
    """
    job_type = job.spec.job_type
    app_runs_dir = Path(root) / job.app.name
    if job_type is not None:
        name = f"job {job.spec.name!r} is {_article(job_type)} {job_type.value} job"
        if flags.from_policy is not None and job_type != JobType.TRAIN:
            hint = " To evaluate or play a policy, use --policy POLICY:KIND." if job_type in (
                JobType.EVAL, JobType.PLAY) else ""
            raise JobError(f'--from works only on a training job (@app.job(type="train")); {name}.{hint}')
        given = {"--compare": flags.compare is not None, "--repeatable": flags.repeatable,
                 "--require-success": flags.require_success is not None, "--fail-if-worse": flags.fail_if_worse}
        for option in _EVAL_ONLY:
            if given[option] and job_type != JobType.EVAL:
                raise JobError(f'{option} works only on an eval job (@app.job(type="eval")); {name}')
        if flags.fail_if_worse and flags.compare is None:
            raise JobError("--fail-if-worse compares --policy with --compare POLICY:KIND; add --compare")
        if flags.from_policy is not None:
            _found("--from", flags.from_policy, app_runs_dir)
        if flags.compare is not None:
            _found("--compare", flags.compare, app_runs_dir)
    for parameter in job_flags(job.spec.fn):
        value = params.get(parameter.name)
        if parameter.kind == "checkpoint" and isinstance(value, str):
            _found(parameter.flag, value, app_runs_dir)


def _result(report: Any) -> Mapping[str, Any] | None:
    """The RESULT block of an evaluation report, or ``None`` when ``report`` is not one."""
    if not isinstance(report, Mapping) or report.get("report_schema_version") != EVAL_SCHEMA:
        return None
    result = report.get("result")
    if not isinstance(result, Mapping):
        return None
    episodes, succeeded = result.get("episodes"), result.get("succeeded")
    if not isinstance(episodes, int) or not isinstance(succeeded, int) or episodes < 1:
        return None
    return result


def require_success_lines(result: Mapping[str, Any], rate: float) -> tuple[bool, list[str]]:
    """Whether the observed share of successes reaches ``rate``, and the lines that say so."""
    episodes, succeeded = int(result["episodes"]), int(result["succeeded"])
    passed = succeeded / episodes >= rate
    lines = [f"{'PASSED' if passed else 'FAILED'}: {succeeded} of {episodes} succeeded, "
             f"at least {rate * 100:g}% required."]
    likely = result.get("likely_range")
    if isinstance(likely, Mapping):
        low, high = likely.get("low_percent"), likely.get("high_percent")
        if isinstance(low, int) and isinstance(high, int):
            if passed and low < rate * 100:
                meaning = f"the true rate may be below {rate * 100:g}%"
            elif not passed and high >= rate * 100:
                meaning = f"the true rate may be at or above {rate * 100:g}%"
            else:
                return passed, lines
            lines.append(f"  Likely range {low}% to {high}%, so {meaning}. For a firmer answer: "
                         f"--episodes {episodes * 4}")
    return passed, lines


def fail_if_worse_lines(report: Mapping[str, Any]) -> tuple[bool, list[str]]:
    """Whether the comparison found no regression, and the lines that say so."""
    comparison = report.get("comparison")
    if not isinstance(comparison, Mapping):
        return False, ["--fail-if-worse: the report has no comparison (the eval job did not run --compare)."]
    mine, theirs = report["result"], comparison.get("compared_result") or {}
    summary = (f"--policy {mine.get('checkpoint')}: {mine.get('succeeded')} of {mine.get('episodes')}; "
               f"--compare {theirs.get('checkpoint')}: {theirs.get('succeeded')} of {theirs.get('episodes')} "
               f"({comparison.get('improved')} improved, {comparison.get('regressed')} regressed, "
               f"p = {comparison.get('p_value')})")
    if comparison.get("verdict") == "did_worse":
        return False, [f"FAILED: regression detected. {summary}"]
    return True, [f"PASSED: no regression detected. This is weaker than proof there is none. {summary}"]


def gated_exit(job: JobFunction, flags: RunFlags, completed: bool, report: Any, stream: IO[str] | None = None
               ) -> int | None:
    """The exit status ``--require-success`` / ``--fail-if-worse`` give, or ``None`` when neither was asked.

    An untyped job is judged only when it returns an evaluation report.

    Args:
        job: The job that ran.
        flags: The run's flags.
        completed: Whether the job completed.
        report: Its return value (an evaluation report when it completed).
        stream: Where the verdict lines go (default stderr).

    Returns:
        0 every gate passed, 1 one failed, 2 the evaluation did not finish or returned no report.
    """
    if flags.require_success is None and not flags.fail_if_worse:
        return None
    out = stream if stream is not None else sys.stderr
    result = _result(report) if completed else None
    if job.spec.job_type is None and result is None:
        return None
    if result is None:
        why = "it did not finish" if not completed else "the job returned no evaluation report"
        print(f"simulo run: the evaluation cannot be judged: {why}", file=out)
        return EXIT_JOB_FAILED
    assert isinstance(report, Mapping)
    passed = True
    if flags.require_success is not None:
        ok, lines = require_success_lines(result, flags.require_success)
        passed &= ok
        for line in lines:
            print(line, file=out)
    if flags.fail_if_worse:
        if not isinstance(report.get("comparison"), Mapping):
            print(fail_if_worse_lines(report)[1][0], file=out)
            return EXIT_JOB_FAILED
        ok, lines = fail_if_worse_lines(report)
        passed &= ok
        for line in lines:
            print(line, file=out)
    return EXIT_PASSED if passed else EXIT_CHECK_FAILED
