"""The cartpole sample end to end: `simulo run` trains a few iterations, then evaluates the checkpoint."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

SAMPLE = Path(__file__).parents[2] / "samples" / "cartpole"


def simulo_run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "simulo.cli.main", "run", *argv],
                          capture_output=True, text=True, timeout=120)


def test_train_then_eval_with_latest_policy(tmp_path: Path) -> None:
    runs = str(tmp_path / "runs")
    train = simulo_run(str(SAMPLE / "train.py"), "--num-envs", "32", "--max-iterations", "3", "--runs-dir", runs)
    assert train.returncode == 0, train.stderr
    run_dir = tmp_path / "runs" / "cartpole" / "train" / "0001"
    # a short summary whose last line is the policy; the whole result is in result.json
    policy_id = json.loads((run_dir / "policy.json").read_text(encoding="utf-8"))["policy_id"]
    lines = train.stdout.splitlines()
    assert lines[-1] == f"policy: {policy_id}  (simulo policy inspect {policy_id} --runs-dir {runs})"
    assert len(lines) <= 14 and "iterations: 3" in lines and "reward_history" not in train.stdout
    stats = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    assert (stats["num_envs"], stats["iterations"], stats["env_steps"]) == (32, 3, 3 * 32 * 16)  # 16-step rollouts
    assert len(stats["reward_history"]) == 3 and stats["best_reward"] == max(r for r in stats["reward_history"] if r)
    assert stats["latest_checkpoint"] == str(run_dir / "checkpoints" / "latest.pt")
    assert (run_dir / "checkpoints" / "best.pt").is_file()

    evaluate = simulo_run(str(SAMPLE / "eval.py"), "--policy", "latest", "--episodes", "8", "--num-envs", "8",
                          "--runs-dir", runs, "--json")
    assert evaluate.returncode == 0, evaluate.stderr
    assert f"--policy latest -> {run_dir / 'checkpoints' / 'best.pt'}" in evaluate.stderr
    report = json.loads(evaluate.stdout)
    assert report["report_schema_version"] == "simulo.evaluation_report.v1"
    result = report["result"]
    assert result["episodes"] == 8 and result["succeeded"] + report["failures"] == 8
    assert [c["name"] for c in result["checks"]] == ["pole upright", "lasted to the time limit"]
    assert sum(e["episodes"] for e in result["endings"]) == 8
    assert {e["ended_by"] for e in result["endings"]} <= {"pole fell", "cart out of bounds", "time limit"}
    tested = report["tested"]
    assert tested["checkpoint"]["reference"].endswith(":best") and tested["checkpoint"]["iteration"] == 3
    assert (tested["task"]["name"], tested["success_function"], tested["num_envs"]) == ("CartpoleTask", "balanced", 8)
    rows = list(csv.DictReader((tmp_path / "runs" / "cartpole" / "evaluate" / "0001" / "episodes.csv")
                               .read_text(encoding="utf-8").splitlines()))
    assert [int(r["episode"]) for r in rows] == list(range(8))
    assert sum(r["success"] == "true" for r in rows) == result["succeeded"]


def test_eval_without_a_trained_policy_fails_clearly(tmp_path: Path) -> None:
    done = simulo_run(str(SAMPLE / "eval.py"), "--policy", "latest", "--episodes", "2", "--runs-dir",
                      str(tmp_path / "runs"))
    assert done.returncode == 2  # checked before the job starts: a usage error, and no run folder is taken
    assert not list((tmp_path / "runs").glob("*/eval*/0*"))
    assert "--policy: policy 'latest': no run under" in done.stderr and "train first" in done.stderr


def test_play_records_the_rollout(tmp_path: Path) -> None:
    pytest.importorskip("mcap")
    pytest.importorskip("imageio")
    runs = str(tmp_path / "runs")
    train = simulo_run(str(SAMPLE / "train.py"), "--num-envs", "8", "--max-iterations", "1", "--runs-dir", runs)
    assert train.returncode == 0, train.stderr
    play = simulo_run(str(SAMPLE / "play.py"), "--policy", "latest", "--episodes", "1", "--runs-dir", runs)
    assert play.returncode == 0, play.stderr
    recordings = tmp_path / "runs" / "cartpole" / "play" / "0001" / "recordings"
    assert sorted(p.name for p in recordings.iterdir()) == ["play-0001.mcap", "play-0001.mp4"]
    assert all(p.stat().st_size > 1000 for p in recordings.iterdir())
