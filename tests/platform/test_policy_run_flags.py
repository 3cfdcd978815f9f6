"""The evaluation flags of simulo run: where they apply, the exit status they set, and --repeatable's mode."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simulo.errors import JobError
from simulo.platform import policy_registry
from simulo.platform.context import RunContext, RunFlags
from simulo.platform.jobs import load_app_file
from simulo.platform.repeatable import call_job
from simulo.platform.run_gates import check_run_flags, gated_exit

FIXTURES = Path(__file__).parent / "fixtures"
JOBS = load_app_file(FIXTURES / "policy_app" / "app.py", discovery=True)
TRAIN, EVAL = JOBS.select("train"), JOBS.select("evaluate")
UNTYPED = load_app_file(FIXTURES / "jobs_app.py", discovery=True).select("fail")


def report(succeeded: int, episodes: int = 10, verdict: str | None = None) -> dict[str, Any]:
    """The parts of an SDK evaluation report the gates read."""
    result = {"checkpoint": "policy_a:best", "episodes": episodes, "succeeded": succeeded,
              "likely_range": {"low_percent": 10 * succeeded - 25, "high_percent": 10 * succeeded + 25}}
    comparison = None if verdict is None else {
        "verdict": verdict, "p_value": 0.01, "improved": 1, "regressed": 6,
        "compared_result": {"checkpoint": "policy_b:best", "episodes": episodes, "succeeded": 9}}
    return {"report_schema_version": "simulo.evaluation_report.v1", "result": result, "comparison": comparison}


def judged(flags: RunFlags, completed: bool = True, result: Any = None, job: Any = EVAL) -> tuple[int | None, str]:
    out = io.StringIO()
    code = gated_exit(job, flags, completed, result, out)
    return code, out.getvalue()


@pytest.mark.parametrize(("succeeded", "rate", "code", "verdict"), [
    (9, 0.9, 0, "PASSED: 9 of 10 succeeded, at least 90% required."),
    (8, 0.9, 1, "FAILED: 8 of 10 succeeded, at least 90% required."),
    (0, 0.0, 0, "PASSED: 0 of 10 succeeded, at least 0% required."),
    (10, 1.0, 0, "PASSED: 10 of 10 succeeded"),
])
def test_require_success_compares_the_observed_rate(succeeded: int, rate: float, code: int, verdict: str) -> None:
    got, text = judged(RunFlags(require_success=rate), result=report(succeeded))
    assert got == code and text.startswith(verdict)


def test_require_success_says_when_the_range_holds_both_outcomes() -> None:
    _, text = judged(RunFlags(require_success=0.9), result=report(8))
    assert "Likely range 55% to 105%, so the true rate may be at or above 90%. For a firmer answer: --episodes 40" \
        in text


def test_fail_if_worse_fails_only_on_a_regression() -> None:
    flags = RunFlags(compare="policy_b:best", fail_if_worse=True)
    assert judged(flags, result=report(3, verdict="did_worse"))[0] == 1
    assert "FAILED: regression detected" in judged(flags, result=report(3, verdict="did_worse"))[1]
    for verdict in ("did_better", "no_clear_difference"):
        code, text = judged(flags, result=report(3, verdict=verdict))
        assert code == 0 and text.startswith("PASSED: no regression detected")
    assert judged(flags, result=report(3))[0] == 2  # no comparison in the report


def test_both_gates_must_pass() -> None:
    flags = RunFlags(compare="policy_b:best", fail_if_worse=True, require_success=0.2)
    assert judged(flags, result=report(3, verdict="did_better"))[0] == 0
    assert judged(flags, result=report(1, verdict="did_better"))[0] == 1
    assert judged(flags, result=report(3, verdict="did_worse"))[0] == 1


def test_an_evaluation_that_did_not_finish_exits_2() -> None:
    assert judged(RunFlags(require_success=0.5), completed=False) == (
        2, "simulo run: the evaluation cannot be judged: it did not finish\n")
    assert judged(RunFlags(require_success=0.5), result={"episodes": 4})[0] == 2  # not an evaluation report


def test_without_gates_or_for_an_untyped_job_without_a_report_nothing_is_judged() -> None:
    assert judged(RunFlags(), result=report(0)) == (None, "")
    assert judged(RunFlags(require_success=0.5), result={"x": 1}, job=UNTYPED) == (None, "")
    assert judged(RunFlags(require_success=0.5), result=report(9), job=UNTYPED)[0] == 0


@pytest.mark.parametrize(("job", "flags", "message"), [
    (EVAL, RunFlags(from_policy="policy_a:best"), r"--from works only on a training job .*'evaluate' is an eval "
                                                  r"job. To evaluate or play a policy, use --policy"),
    (TRAIN, RunFlags(compare="policy_a:best"), r"--compare works only on an eval job .*'train' is a train job"),
    (TRAIN, RunFlags(repeatable=True), r"--repeatable works only on an eval job"),
    (TRAIN, RunFlags(require_success=0.5), r"--require-success works only on an eval job"),
    (EVAL, RunFlags(fail_if_worse=True), r"--fail-if-worse compares --policy with --compare"),
])
def test_flags_on_the_wrong_job_are_usage_errors(tmp_path: Path, job: Any, flags: RunFlags, message: str) -> None:
    with pytest.raises(JobError, match=message):
        check_run_flags(job, flags, {}, tmp_path)


def test_untyped_jobs_take_every_flag(tmp_path: Path) -> None:
    check_run_flags(UNTYPED, RunFlags(compare="x", repeatable=True, fail_if_worse=True), {}, tmp_path)


def test_named_checkpoints_must_exist_before_the_run(tmp_path: Path) -> None:
    run = tmp_path / "balance" / "train" / "0001"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "latest.pt").write_bytes(b"")  # located, not read: no torch in simulo run's process
    policy_id = policy_registry.register(run, "balance", "train").policy_id
    check_run_flags(TRAIN, RunFlags(from_policy=f"{policy_id}:latest"), {}, tmp_path)
    check_run_flags(EVAL, RunFlags(compare=f"{policy_id}:latest"), {"policy": f"{policy_id}:latest"}, tmp_path)
    (run / "checkpoints" / "latest.pt").rename(run / "checkpoints" / "other.pt")
    with pytest.raises(JobError, match=r"--from: policy '.*:best': .* has no best.pt \(it holds other.pt\)"):
        check_run_flags(TRAIN, RunFlags(from_policy=f"{policy_id}:best"), {}, tmp_path)
    (run / "checkpoints" / "other.pt").rename(run / "checkpoints" / "latest.pt")
    with pytest.raises(JobError, match=rf"--compare: no policy policy_quiet-cedar-7k3m4q .*{policy_id}"):
        check_run_flags(EVAL, RunFlags(compare="policy_quiet-cedar-7k3m4q:best"), {"policy": policy_id}, tmp_path)
    with pytest.raises(JobError, match=r"--policy: no policy policy_quiet-cedar-7k3m4q"):
        check_run_flags(EVAL, RunFlags(), {"policy": "policy_quiet-cedar-7k3m4q"}, tmp_path)


def _draws() -> dict[str, Any]:
    return {"report_schema_version": "simulo.evaluation_report.v1", "python": random.random(),
            "numpy": float(np.random.rand())}


@pytest.fixture
def _torch_settings_restored() -> Any:
    """Repeatable mode changes torch's process-wide settings; give them back to the other tests."""
    torch = pytest.importorskip("torch")
    deterministic, threads = torch.are_deterministic_algorithms_enabled(), torch.get_num_threads()
    yield torch
    torch.use_deterministic_algorithms(deterministic)
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("_torch_settings_restored")
def test_repeatable_seeds_the_global_generators_and_marks_the_report(tmp_path: Path) -> None:
    run = RunContext.create(tmp_path, 1, 1, RunFlags(repeatable=True))
    first, second = call_job(_draws, {}, run), call_job(_draws, {}, run)
    assert first == second and first["repeatable_episodes"] is True
    plain = RunContext.create(tmp_path, 1, 1, RunFlags())
    a, b = call_job(_draws, {}, plain), call_job(_draws, {}, plain)
    assert a != b and "repeatable_episodes" not in a
