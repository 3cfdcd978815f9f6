"""simulo.PolicyCheckpoint: --policy references resolve to checkpoint files, or fail clearly."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import simulo
from simulo.errors import JobError, SimuloValueError
from simulo.platform.params import job_flags, parse_flags

torch = pytest.importorskip("torch")
from simulo.rl.training.checkpoints import write_checkpoint  # noqa: E402 - needs torch


def save(path: Path, iteration: int = 5, best: float | None = 12.5) -> Path:
    return write_checkpoint(path, {
        "algorithm": "PPO", "observation_dim": 4, "action_dim": 1, "iteration": iteration, "env_steps": 960,
        "seed": 42, "best_reward": best, "reward_history": [3.0, best],
    })


def train_run(runs: Path, job: str, number: int, kinds: tuple[str, ...] = ("best", "latest"),
              max_iterations: int = 5) -> Path:
    """A finished run folder as simulo run lays it out: params.json, then checkpoints."""
    run = runs / job / f"{number:04d}"
    (run / "checkpoints").mkdir(parents=True)
    (run / "params.json").write_text(json.dumps({"max_iterations": max_iterations}))
    for kind in kinds:
        save(run / "checkpoints" / f"{kind}.pt", iteration=number)
    return run


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """RUNS/cartpole, the app's runs folder."""
    app_runs = tmp_path / "runs" / "cartpole"
    app_runs.mkdir(parents=True)
    return app_runs


def test_a_file(tmp_path: Path) -> None:
    file = save(tmp_path / "policy.pt")
    ckpt = simulo.PolicyCheckpoint.resolve(str(file))
    assert (ckpt.kind, ckpt.path, ckpt.checkpoint, ckpt.policy_id) == ("file", file, str(file), str(file))
    assert (ckpt.iteration, ckpt.reward, ckpt.obs_dim, ckpt.act_dim) == (5, 12.5, 4, 1)
    assert os.fspath(ckpt) == str(file)


def test_run_folder_with_and_without_kind(runs: Path) -> None:
    run = train_run(runs, "train", 3)
    best = simulo.PolicyCheckpoint.resolve(run)
    assert (best.kind, best.path) == ("best", run / "checkpoints" / "best.pt")
    assert (best.checkpoint, best.policy_id) == (f"{run.resolve()}:best", str(run.resolve()))
    latest = simulo.PolicyCheckpoint.resolve(f"{run}:latest", runs)
    assert (latest.kind, latest.path) == ("latest", run / "checkpoints" / "latest.pt")
    assert latest.checkpoint == "cartpole/train/0003:latest" and latest.meta["max_iterations"] == 5
    relative = simulo.PolicyCheckpoint.resolve("train/0003", runs)  # relative to the app's runs folder
    assert relative.path == runs / "train" / "0003" / "checkpoints" / "best.pt"
    assert simulo.PolicyCheckpoint.resolve("cartpole/train/0003:best", runs).path == relative.path  # to the root
    assert simulo.PolicyCheckpoint.resolve(run / "checkpoints" / "latest.pt", runs).kind == "latest"


def test_run_folder_without_best_falls_back_to_latest(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = train_run(runs, "train", 1, kinds=("latest",))
    assert simulo.PolicyCheckpoint.resolve(run).kind == "latest"
    # no episode finished while it trained: ':best' is the latest checkpoint, and says so
    best = simulo.PolicyCheckpoint.resolve(f"{run}:best")
    assert (best.kind, best.path) == ("latest", run / "checkpoints" / "latest.pt")
    assert "no episode finished during training, so there is no best.pt; using latest.pt" in capsys.readouterr().err
    (run / "checkpoints" / "latest.pt").unlink()
    with pytest.raises(SimuloValueError, match=r"has no best.pt \(it holds nothing\)"):
        simulo.PolicyCheckpoint.resolve(f"{run}:best")


def test_latest_is_the_newest_run_with_a_checkpoint(runs: Path) -> None:
    older = train_run(runs, "train", 1)
    newest = train_run(runs, "train", 2)
    (runs / "evaluate" / "0001" / "checkpoints").mkdir(parents=True)  # an eval run saves no checkpoint
    (runs / "evaluate" / "0001" / "params.json").write_text("{}")
    # the runs started a second apart (params.json's time), set rather than slept for: no clock granularity race
    now = time.time_ns()
    for k, run in enumerate((older, newest, runs / "evaluate" / "0001")):
        os.utime(run / "params.json", ns=(now + k * 10**9, now + k * 10**9))
    ckpt = simulo.PolicyCheckpoint.resolve("latest", runs)
    assert (ckpt.path, ckpt.kind, ckpt.iteration) == (newest / "checkpoints" / "best.pt", "best", 2)
    assert ckpt.checkpoint == "cartpole/train/0002:best"
    assert simulo.PolicyCheckpoint.resolve("latest:latest", runs).path == newest / "checkpoints" / "latest.pt"


def test_missing_checkpoints_are_clear_errors(runs: Path, tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match=r"'latest': no run under .* has saved a checkpoint; train first"):
        simulo.PolicyCheckpoint.resolve("latest", runs)
    with pytest.raises(SimuloValueError, match=r"needs the app's runs folder"):
        simulo.PolicyCheckpoint.resolve("latest")
    with pytest.raises(SimuloValueError, match=r"'train/0009:best': no such checkpoint file or run folder"):
        simulo.PolicyCheckpoint.resolve("train/0009:best", runs)
    file = save(tmp_path / "policy.pt")
    with pytest.raises(SimuloValueError, match=r"is a file; ':best' goes after a run folder"):
        simulo.PolicyCheckpoint.resolve(f"{file}:best")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(SimuloValueError, match="cannot be read"):
        simulo.PolicyCheckpoint.resolve(junk)
    with pytest.raises(SimuloValueError, match="expected a policy ID policy_<stem>"):
        simulo.PolicyCheckpoint.resolve("  ")


def test_policy_parameter_is_a_checkpoint_flag() -> None:
    def evaluate(policy: simulo.PolicyCheckpoint, compare: simulo.PolicyCheckpoint | None = None) -> None:
        """An eval job."""

    flags = job_flags(evaluate)
    assert [(f.kind, f.required, f.optional) for f in flags] == [("checkpoint", True, False),
                                                                ("checkpoint", False, True)]
    assert flags[0].usage().startswith("--policy CHECKPOINT  (checkpoint: a policy ID policy_<stem>")
    assert parse_flags(flags, ["--policy", "train/0001:best", "--compare", "none"]) == {
        "policy": "train/0001:best", "compare": None}
    with pytest.raises(JobError, match=r"--policy: invalid value ' '"):
        parse_flags(flags, ["--policy= "])
    with pytest.raises(JobError, match=r"missing required flag\(s\): --policy"):
        parse_flags(flags, [])
