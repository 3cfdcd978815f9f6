"""Policy IDs: the SDK's format, one per training run, looked up across the runs root; --policy ID[:KIND] resolves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import simulo
from simulo.errors import SimuloValueError
from simulo.interfaces.ids import parse_checkpoint_ref
from simulo.platform import policy_registry as registry

torch = pytest.importorskip("torch")
from simulo.rl.training.checkpoints import write_checkpoint  # noqa: E402 - needs torch


def save(path: Path, iteration: int, best: float | None = 12.5) -> Path:
    return write_checkpoint(path, {"algorithm": "PPO", "observation_dim": 4, "action_dim": 1, "iteration": iteration,
                                   "env_steps": 96, "seed": 0, "best_reward": best, "reward_history": [best]})


def train_run(root: Path, app: str, number: int, kinds: tuple[str, ...] = ("best", "latest")) -> registry.PolicyEntry:
    run = root / app / "train" / f"{number:04d}"
    (run / "checkpoints").mkdir(parents=True)
    (run / "params.json").write_text(json.dumps({"max_iterations": 10}))
    for i, kind in enumerate(kinds):
        save(run / "checkpoints" / f"{kind}.pt", iteration=number * 10 + i)
    return registry.register(run, app, "train")


def test_derived_ids_have_the_sdk_format_and_depend_only_on_the_seed() -> None:
    ids = {registry.derive_policy_id(f"cartpole/train/{n:04d}") for n in range(200)}
    assert len(ids) == 200
    for policy_id in ids:
        assert parse_checkpoint_ref(f"{policy_id}:best") == (policy_id, "best")  # the SDK's own parser agrees
        assert registry.is_policy_id(policy_id)
    assert registry.derive_policy_id("a/train/0001") == registry.derive_policy_id("a/train/0001")


def test_a_taken_id_derives_the_next_candidate() -> None:
    first = registry.derive_policy_id("seed")
    second = registry.derive_policy_id("seed", {first})
    assert second != first and registry.is_policy_id(second)
    assert registry.derive_policy_id("seed", {first, second}) not in {first, second}


def test_register_writes_policy_json_once_per_run(tmp_path: Path) -> None:
    entry = train_run(tmp_path, "cartpole", 1)
    record = json.loads((entry.run_dir / "policy.json").read_text())
    assert record["policy_id"] == entry.policy_id and record["run_dir"] == "cartpole/train/0001"
    assert (record["app"], record["job"], record["status"], record["started_from"]) == (
        "cartpole", "train", "running", None)
    again = registry.register(entry.run_dir, "cartpole", "train")  # a retried attempt keeps its ID
    assert again.policy_id == entry.policy_id


def test_ids_are_unique_in_the_runs_root_and_listed_newest_first(tmp_path: Path) -> None:
    entries = [train_run(tmp_path, app, n) for app in ("cartpole", "reach") for n in (1, 2)]
    assert len({e.policy_id for e in entries}) == 4
    listed = registry.all_policies(tmp_path)
    assert {e.policy_id for e in listed} == {e.policy_id for e in entries}
    stamps = [e.record["created_at"] for e in listed]
    assert stamps == sorted(stamps, reverse=True)


def test_lookup_misses_list_what_exists(tmp_path: Path) -> None:
    entry = train_run(tmp_path, "cartpole", 1)
    with pytest.raises(SimuloValueError, match=rf"no policy policy_quiet-cedar-7k3m4q .*policies there: "
                                               rf"{entry.policy_id}"):
        registry.find_policy(tmp_path, "policy_quiet-cedar-7k3m4q")
    with pytest.raises(SimuloValueError, match=r"job_quiet-cedar-7k3m4q is a job; did you mean "
                                               r"policy_quiet-cedar-7k3m4q\?"):
        registry.check_policy_id("job_quiet-cedar-7k3m4q")
    with pytest.raises(SimuloValueError, match=r"'policy_x' is not a policy ID"):
        registry.check_policy_id("policy_x")
    assert registry.check_policy_id("  POLICY_Quiet-Cedar-7K3M4Q ") == "policy_quiet-cedar-7k3m4q"


def test_policy_references_resolve_to_the_run_checkpoints(tmp_path: Path) -> None:
    entry = train_run(tmp_path, "cartpole", 3)
    app_runs = tmp_path / "evalapp"  # an eval app of another name finds the policy in the same runs root
    best = simulo.PolicyCheckpoint.resolve(f"{entry.policy_id}:best", app_runs)
    assert (best.path, best.kind, best.iteration) == (entry.run_dir / "checkpoints" / "best.pt", "best", 30)
    assert (best.checkpoint, best.policy_id) == (f"{entry.policy_id}:best", entry.policy_id)
    assert best.max_iterations == 10  # the run's parameter
    latest = simulo.PolicyCheckpoint.resolve(f"{entry.policy_id.upper()}:LATEST", app_runs)
    assert (latest.kind, latest.iteration, latest.checkpoint) == ("latest", 31, f"{entry.policy_id}:latest")
    assert simulo.PolicyCheckpoint.resolve(entry.policy_id, app_runs).kind == "best"  # no kind: best
    # a run folder of a registered run is named by its policy ID too
    by_folder = simulo.PolicyCheckpoint.resolve(entry.run_dir)
    assert by_folder.checkpoint == f"{entry.policy_id}:best"
    newest = simulo.PolicyCheckpoint.resolve("latest", tmp_path / "cartpole")
    assert newest.checkpoint == f"{entry.policy_id}:best"


def test_policy_reference_misses_are_clear(tmp_path: Path) -> None:
    entry = train_run(tmp_path, "cartpole", 1, kinds=("latest",))
    app_runs = tmp_path / "cartpole"
    assert simulo.PolicyCheckpoint.resolve(f"{entry.policy_id}:best", app_runs).kind == "latest"  # none ranked
    assert simulo.PolicyCheckpoint.resolve(entry.policy_id, app_runs).kind == "latest"
    with pytest.raises(SimuloValueError, match=r"the kind after ':' must be best or latest"):
        simulo.PolicyCheckpoint.resolve(f"{entry.policy_id}:worst", app_runs)
    with pytest.raises(SimuloValueError, match=r"no policy policy_quiet-cedar-7k3m4q under the runs folder"):
        simulo.PolicyCheckpoint.resolve("policy_quiet-cedar-7k3m4q:best", app_runs)


def test_outside_simulo_run_ids_are_looked_up_in_simulo_runs_dir(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    entry = train_run(tmp_path, "cartpole", 1)
    monkeypatch.setenv("SIMULO_RUNS_DIR", str(tmp_path))
    assert simulo.PolicyCheckpoint.resolve(f"{entry.policy_id}:latest").iteration == 11
