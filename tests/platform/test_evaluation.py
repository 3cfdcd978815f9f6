"""simulo.evaluate inside a job: checkpoints are described in the report and --compare runs a second policy."""

from __future__ import annotations

from pathlib import Path

import pytest

import simulo
from simulo.platform.context import RunContext, RunFlags, running
from tests.platform.toy_tasks import Pusher, right_of_zero


@pytest.mark.slow
def test_a_checkpoint_is_described_and_compare_comes_from_the_run_flags(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    env = simulo.LearningEnv(Pusher(), num_envs=4, seed=0, device="cpu")
    trainer = simulo.RLTrainer(env, device="cpu", checkpoint_dir=tmp_path / "train", progress=False,
                               agent_cfg={"rollouts": 8, "mini_batches": 2})
    trainer.train(1)
    trainer.close()
    env.close()
    checkpoint = str(tmp_path / "train" / "latest.pt")
    app = simulo.App("pusher")
    app.success(right_of_zero)
    run = RunContext.create(tmp_path / "run", 1, 1, RunFlags(compare=checkpoint))
    with running(app, run):
        report = simulo.evaluate(Pusher(), checkpoint, episodes=6, num_envs=3, actions="sampled")
    tested = report["tested"]
    assert tested["actions"] == "sampled" and tested["checks"] == ["right of zero"]
    assert tested["checkpoint"]["iteration"] == 1 and len(tested["checkpoint"]["digest_sha256"]) == 64
    comparison = report["comparison"]
    assert comparison is not None and comparison["compared_with"] == tested["checkpoint"]
    # the same seeded episodes and the same seeded sampling: the policy against itself changes nothing
    assert (comparison["improved"], comparison["regressed"]) == (0, 0)
    assert comparison["verdict"] == "no_clear_difference" and comparison["p_value"] == 1.0
    assert (run.run_dir / "episodes.csv").is_file()
