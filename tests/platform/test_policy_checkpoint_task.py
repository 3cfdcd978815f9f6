"""simulo.PolicyCheckpoint is the SDK's: it names the task a policy was trained on, and load gives a policy network."""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

import numpy as np
import pytest

import simulo
import simulo.interfaces.authoring as sdk
from simulo.interfaces.runtime import PolicyNetworkProtocol
from simulo.rl.preview import task_digest
from tests.platform import toy_tasks
from tests.platform.toy_tasks import Drift, Renamed, right_of_zero

torch = pytest.importorskip("torch")
from simulo.rl.training.checkpoints import write_checkpoint  # noqa: E402 - needs torch


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``latest.pt`` of a one-iteration training run of :class:`Drift`."""
    folder = tmp_path_factory.mktemp("train")
    env = simulo.LearningEnv(Drift(), num_envs=2, seed=0, device="cpu")
    trainer = simulo.RLTrainer(env, device="cpu", checkpoint_dir=folder, progress=False,
                               agent_cfg={"rollouts": 8, "mini_batches": 2})
    trainer.train(1)
    trainer.close()
    env.close()
    return folder / "latest.pt"


def test_a_checkpoint_names_the_task_it_was_trained_on(trained: Path) -> None:
    checkpoint = simulo.PolicyCheckpoint.resolve(trained)
    assert checkpoint.task_name == "Drift"
    # the digest of the file that defines the task's class, as the preview and evaluation reports take it
    assert checkpoint.task_digest == "sha256:" + hashlib.sha256(Path(toy_tasks.__file__).read_bytes()).hexdigest()
    assert checkpoint.task_digest == task_digest(Drift())
    assert checkpoint.meta["task_name"] == "Drift"


def test_a_checkpoint_without_a_task_reads_as_unknown(tmp_path: Path) -> None:
    file = write_checkpoint(tmp_path / "old.pt", {"observation_dim": 4, "action_dim": 1, "iteration": 3})
    checkpoint = simulo.PolicyCheckpoint.resolve(file)
    assert (checkpoint.task_name, checkpoint.task_digest) == ("unknown", "unknown")


@pytest.mark.parametrize("task_meta", [{}, {"task_name": "Drift", "task_digest": "sha256:ab12"}])
def test_the_same_meta_reads_as_the_sdks_checkpoint(tmp_path: Path, task_meta: dict[str, str]) -> None:
    meta = {"completed_iterations": 7, "max_iterations": 9, "reward": 1.5, "obs_dim": 4, "act_dim": 2, **task_meta}
    args = {"checkpoint": "policy_quiet-cedar-7k3m4q:best", "policy_id": "policy_quiet-cedar-7k3m4q",
            "kind": "best", "path": tmp_path / "best.pt", "meta": meta}
    ours, theirs = simulo.PolicyCheckpoint(**args), sdk.PolicyCheckpoint(**args)
    for name in ("iteration", "max_iterations", "reward", "obs_dim", "act_dim", "task_name", "task_digest"):
        assert getattr(ours, name) == getattr(theirs, name), name


def test_load_has_the_sdks_signature_and_a_keyword_seed() -> None:
    ours = inspect.signature(simulo.PolicyCheckpoint.load).parameters
    theirs = inspect.signature(sdk.PolicyCheckpoint.load).parameters
    assert list(ours)[:len(theirs)] == list(theirs)
    assert all(ours[name].default == theirs[name].default for name in theirs)
    assert (ours["seed"].kind, ours["seed"].default) == (inspect.Parameter.KEYWORD_ONLY, 0)


def test_load_returns_the_sdks_policy_network(trained: Path) -> None:
    player = simulo.PolicyCheckpoint.resolve(trained).load("cpu", seed=3)
    assert isinstance(player, PolicyNetworkProtocol)
    assert (player.input_dim, player.output_dim) == (1, 1)
    assert np.asarray(player(np.zeros((3, 1), dtype=np.float32))).shape == (3, 1)


@pytest.mark.parametrize(("task", "changed"), [(Drift(), False), (Renamed(), True)])
def test_an_evaluation_says_whether_the_task_changed_since_training(trained: Path, task: Drift,
                                                                     changed: bool) -> None:
    report = simulo.evaluate(task, simulo.PolicyCheckpoint.resolve(trained), episodes=2, num_envs=2,
                             success=right_of_zero, device="cpu")
    described = report["tested"]["task"]
    assert described["trained_digest"] == task_digest(Drift())
    assert described["changed"] is changed
