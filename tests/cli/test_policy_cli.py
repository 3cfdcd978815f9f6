"""``simulo policy list | inspect | get`` over a runs folder, and their usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulo.cli.main import main as simulo_main
from simulo.platform import policy_registry
from simulo.platform.training_policy import finish

torch = pytest.importorskip("torch")
from simulo.rl.training.checkpoints import write_checkpoint  # noqa: E402 - needs torch


def trained(root: Path, app: str, number: int, rewards: tuple[float, float], tags: tuple[str, ...] = ()) -> str:
    """A finished training run with best.pt and latest.pt, registered as simulo run registers it."""
    run = root / app / "train" / f"{number:04d}"
    (run / "checkpoints").mkdir(parents=True)
    (run / "params.json").write_text(json.dumps({"max_iterations": 20}))
    for kind, iteration in (("best", 12), ("latest", 20)):  # latest's reward is the last of the history
        write_checkpoint(run / "checkpoints" / f"{kind}.pt", {
            "algorithm": "PPO", "observation_dim": 4, "action_dim": 1, "iteration": iteration, "env_steps": 640,
            "seed": 0, "best_reward": rewards[0], "reward_history": [rewards[1]]})
    entry = policy_registry.register(run, app, "train", tags=tags)
    finish(entry, "completed")
    return entry.policy_id


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    runs = tmp_path / "runs"
    monkeypatch.setenv("SIMULO_RUNS_DIR", str(runs))
    monkeypatch.chdir(tmp_path)
    return runs


def policy(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = simulo_main(["policy", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_policy(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = trained(root, "cartpole", 1, (250.25, 240.0))
    second = trained(root, "reach", 1, (-3.0, -4.5))
    code, out, _ = policy(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["POLICY", "STATUS", "CHECKPOINTS", "BEST", "REWARD", "UPDATED", "RUN"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows[first][1:5] == ["completed", "best,", "latest", "250.2"] and rows[first][-1] == "cartpole/train/0001"
    assert rows[second][4] == "-3.0"


def test_list_json_is_the_policy_records(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy_id = trained(root, "cartpole", 1, (10.0, 9.0), tags=("nightly",))
    code, out, _ = policy(capsys, "list", "--json")
    (record,) = json.loads(out)
    assert code == 0 and record["policy_id"] == policy_id and record["tags"] == ["nightly"]
    assert [(c["kind"], c["iteration"], c["reward"]) for c in record["checkpoints"]] == [
        ("best", 12, 10.0), ("latest", 20, 9.0)]


def test_list_of_an_empty_runs_folder(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hint = "Training runs write them under the runs folder of the folder they ran in: name it with --runs-dir DIR"
    code, out, err = policy(capsys, "list")
    assert (code, err) == (0, "") and out.startswith(f"No policies found under {root}") and hint in out
    assert policy(capsys, "list", "--json")[1] == "[]\n"


def test_a_run_that_stopped_without_finishing_shows_run_json_status(root: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = root / "cartpole" / "train" / "0001"
    run.mkdir(parents=True)
    policy_id = policy_registry.register(run, "cartpole", "train").policy_id  # killed before it finished
    (run / "run.json").write_text(json.dumps({"status": "timed_out"}))
    code, out, _ = policy(capsys, "inspect", policy_id)
    assert code == 0 and "Trained by       cartpole/train/0001 (timed_out)" in out
    assert "no checkpoint saved" in out


def test_inspect_shows_checkpoints_and_evaluations(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy_id = trained(root, "cartpole", 2, (250.0, 240.0))
    evaluation = root / "cartpole" / "evaluate" / "0001"
    evaluation.mkdir(parents=True)
    (evaluation / "params.json").write_text(json.dumps({"policy": f"{policy_id}:best", "episodes": 10}))
    (evaluation / "result.json").write_text(json.dumps({"summary": "9 of 10 episodes succeeded."}))
    code, out, _ = policy(capsys, "inspect", policy_id.upper())
    assert code == 0
    assert out.splitlines()[0] == f"{policy_id}   cartpole/train"
    assert "Started from     scratch" in out
    assert "  best     iteration 12   reward 250.0" in out and "  latest   iteration 20   reward 240.0" in out
    assert f"  cartpole/evaluate/0001   {policy_id}:best   9 of 10 episodes succeeded." in out
    code, out, _ = policy(capsys, "inspect", policy_id, "--json")
    record = json.loads(out)
    assert record["evaluations"] == [{"run": "cartpole/evaluate/0001", "checkpoint": f"{policy_id}:best",
                                      "summary": "9 of 10 episodes succeeded."}]


def test_get_copies_the_checkpoint(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy_id = trained(root, "cartpole", 1, (1.0, 2.0))
    code, out, _ = policy(capsys, "get", f"{policy_id}:latest")
    copy = tmp_path / f"{policy_id}-latest.pt"
    assert code == 0 and out == f"Saved {copy}\n"
    assert copy.read_bytes() == (root / "cartpole" / "train" / "0001" / "checkpoints" / "latest.pt").read_bytes()
    assert policy(capsys, "get", f"{policy_id}:latest")[0] == 1  # will not overwrite without -o
    assert policy(capsys, "get", f"{policy_id}:best", "-o", str(tmp_path / "x" / "b.pt"))[0] == 0
    assert (tmp_path / "x" / "b.pt").is_file()


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["inspect", "policy_quiet-cedar-7k3m4q"], 1, "no policy policy_quiet-cedar-7k3m4q under the runs folder"),
    (["inspect", "job_quiet-cedar-7k3m4q"], 2, "job_quiet-cedar-7k3m4q is a job; did you mean policy_quiet-cedar"),
    (["inspect", "policy_x"], 2, "'policy_x' is not a policy ID"),
    (["inspect", "policy_quiet-cedar-7k3m4q:best"], 2, "inspect takes a policy ID without ':best'"),
    (["inspect"], 2, "inspect takes one POLICY_ID, got 0"),
    (["get", "policy_quiet-cedar-7k3m4q"], 2, "name a checkpoint: POLICY_ID:best or POLICY_ID:latest"),
    (["get", "policy_quiet-cedar-7k3m4q:best"], 1, "no policy policy_quiet-cedar-7k3m4q"),
    (["list", "--limit"], 2, "unknown option '--limit'"),
    (["remove"], 2, "unknown subcommand 'remove'"),
])
def test_errors_are_one_line(root: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int,
                             message: str) -> None:
    got, out, err = policy(capsys, *argv)
    assert got == code and out == "" and message in err and err.count("\n") == 1


def test_runs_dir_option_wins(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "elsewhere"
    policy_id = trained(other, "cartpole", 1, (1.0, 1.0))
    assert policy_id not in policy(capsys, "list")[1]
    assert policy_id in policy(capsys, "list", "--runs-dir", str(other))[1]
