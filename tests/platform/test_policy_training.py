"""End to end through simulo run: a training run prints and records its policy ID, which eval, --from,
--compare, --require-success, --fail-if-worse and --repeatable then use."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from simulo.platform import policy_registry

pytest.importorskip("torch")
pytestmark = pytest.mark.slow

APP = str(Path(__file__).parent / "fixtures" / "policy_app" / "app.py")
POLICY_LINE = re.compile(r"^Policy:  (policy_\S+)  \((.*)\)$", re.MULTILINE)


def simulo_run(root: Path, *argv: str) -> tuple[int, Any, str]:
    done = subprocess.run([sys.executable, "-m", "simulo.cli.main", "run", APP, "--json", "--runs-dir", str(root),
                           *argv], capture_output=True, text=True, timeout=300)
    result = json.loads(done.stdout) if done.stdout.strip() else None
    return done.returncode, result, done.stderr


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("runs")
    code, _, err = simulo_run(root, "--job", "train", "--tag", "nightly")
    assert code == 0, err
    return root, POLICY_LINE.findall(err)[0][0], err


def test_training_prints_one_policy_line_and_records_the_policy(trained: tuple[Path, str, str]) -> None:
    root, policy_id, err = trained
    assert len(POLICY_LINE.findall(err)) == 1 and policy_registry.is_policy_id(policy_id)
    assert POLICY_LINE.findall(err)[0][1].startswith("best: iteration ")
    record = json.loads((root / "balance" / "train" / "0001" / "policy.json").read_text())
    assert (record["policy_id"], record["status"], record["iterations"], record["tags"]) == (
        policy_id, "completed", 2, ["nightly"])
    kinds = {c["kind"]: c for c in record["checkpoints"]}
    assert set(kinds) == {"best", "latest"} and kinds["latest"]["iteration"] == 2
    assert kinds["best"]["checkpoint"] == f"{policy_id}:best" and len(kinds["best"]["digest_sha256"]) == 64
    app_file = Path(__file__).parent / "fixtures" / "policy_app" / "app.py"  # where the task's class is defined
    task = ("Balance", "sha256:" + hashlib.sha256(app_file.read_bytes()).hexdigest())
    assert (record["task_name"], record["task_digest"]) == task
    assert all((c["task_name"], c["task_digest"]) == task for c in record["checkpoints"])


def test_eval_takes_the_printed_id(trained: tuple[Path, str, str]) -> None:
    root, policy_id, _ = trained
    code, report, err = simulo_run(root, "--job", "evaluate", "--policy", f"{policy_id}:best")
    assert code == 0, err
    assert report["tested"]["checkpoint"]["reference"] == f"{policy_id}:best"
    assert report["tested"]["checkpoint"]["policy_id"] == policy_id


def test_from_continues_training_and_names_its_source(trained: tuple[Path, str, str]) -> None:
    root, policy_id, _ = trained
    code, result, err = simulo_run(root, "--job", "train", "--from", f"{policy_id}:latest", "--max-iterations", "4")
    assert code == 0, err
    assert (result["iterations"], result["iterations_run"]) == (4, 2)  # 2 from the source, 2 more
    new_id, detail = POLICY_LINE.findall(err)[0]
    assert new_id != policy_id and detail.endswith(f"started from {policy_id}:latest")
    assert policy_registry.find_policy(root, new_id).record["started_from"] == f"{policy_id}:latest"


def test_require_success_sets_the_exit_status(trained: tuple[Path, str, str]) -> None:
    root, policy_id, _ = trained
    code, report, err = simulo_run(root, "--job", "evaluate", "--policy", policy_id, "--require-success", "1")
    succeeded, episodes = report["result"]["succeeded"], report["result"]["episodes"]
    assert code == (0 if succeeded == episodes else 1), err
    assert f"{succeeded} of {episodes} succeeded, at least 100% required." in err


def test_compare_and_fail_if_worse_on_the_same_episodes(trained: tuple[Path, str, str]) -> None:
    root, policy_id, _ = trained
    code, report, err = simulo_run(root, "--job", "evaluate", "--policy", f"{policy_id}:best",
                                   "--compare", f"{policy_id}:best", "--fail-if-worse")
    assert code == 0, err
    comparison = report["comparison"]
    assert (comparison["verdict"], comparison["improved"], comparison["regressed"]) == ("no_clear_difference", 0, 0)
    assert comparison["compared_result"]["succeeded"] == report["result"]["succeeded"]
    assert "PASSED: no regression detected" in err


def test_repeatable_evaluations_agree(trained: tuple[Path, str, str]) -> None:
    root, policy_id, _ = trained
    args = ("--job", "evaluate", "--policy", policy_id, "--actions", "sampled", "--repeatable")
    (code_a, first, err), (code_b, second, _) = simulo_run(root, *args), simulo_run(root, *args)
    assert code_a == code_b == 0, err
    assert first["repeatable_episodes"] is True and first["result"] == second["result"]
    runs = sorted((root / "balance" / "evaluate").iterdir())
    assert (runs[-1] / "episodes.csv").read_text() == (runs[-2] / "episodes.csv").read_text()


def test_flags_that_cannot_apply_exit_2_without_a_run_folder(trained: tuple[Path, str, str]) -> None:
    root, policy_id, _ = trained
    before = sorted(root.glob("*/*/*"))
    for argv, message in (
        (("--job", "evaluate", "--policy", "policy_quiet-cedar-7k3m4q:best"), "no policy policy_quiet-cedar-7k3m4q"),
        (("--job", "train", "--compare", f"{policy_id}:best"), "--compare works only on an eval job"),
        (("--job", "evaluate", "--policy", policy_id, "--from", policy_id), "--from works only on a training job"),
    ):
        code, _, err = simulo_run(root, *argv)
        assert code == 2 and message in err
    assert sorted(root.glob("*/*/*")) == before
