"""simulo.evaluate inside a job: checkpoints are described in the report and --compare runs a second policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simulo
from simulo.platform.context import RunContext, RunFlags, running


class Pusher(simulo.Task):
    """No physics: x follows the action; 10-step episodes; the rule asks for x > 0 at the end."""

    observation_dim = 1
    action_dim = 1
    episode_length_s = 0.1
    physics_dt = 0.01
    physics_steps_per_action = 1

    def build(self, scene: Any) -> None:
        pass

    def on_start(self, env: Any) -> None:
        self.x = np.zeros(self.num_envs)

    def on_pre_physics_step(self, actions: Any) -> None:
        self.x += 0.1 * np.asarray(actions, dtype=float)[:, 0]

    def apply_actions(self, actions: Any) -> None:
        pass

    def get_observations(self) -> Any:
        return self.x[:, None].copy()

    def get_rewards(self) -> Any:
        return self.x.copy()

    def get_dones(self) -> Any:
        return {}, self.episode_length_buf >= self.max_episode_length - 1

    def reset_idx(self, env_ids: Any) -> None:
        self.x[env_ids] = self.random_uniform(-0.5, 0.5, (), env_ids=env_ids)


def right_of_zero(task: Pusher) -> Any:
    return task.check("right of zero", task.x > 0.0)


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
