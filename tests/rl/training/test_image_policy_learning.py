"""A policy that sees the pole through a camera learns to balance it: its return rises over a CI-sized run."""

from __future__ import annotations

from pathlib import Path

import pytest
from camera_tasks import camera_cartpole

import simulo
from simulo.rl.training import RLTrainer


@pytest.mark.slow
def test_camera_cartpole_return_rises(tmp_path: Path) -> None:
    env = simulo.LearningEnv(camera_cartpole(32)(), num_envs=16, seed=3, enable_cameras=True)
    try:
        trainer = RLTrainer(env, device="cpu", seed=3, checkpoint_dir=tmp_path, progress=False,
                            agent_cfg={"rollouts": 32, "learning_epochs": 4, "mini_batches": 4, "learning_rate": 3e-4})
        stats = trainer.train(14)
    finally:
        env.close()
    history = [r for r in stats["reward_history"] if r is not None]
    assert len(history) == 14, history
    first, last = sum(history[:2]) / 2, sum(history[-3:]) / 3
    assert last > first + 5.0, history  # about 2 at the start: the pole falls within half a second
    assert stats["best_checkpoint"] is not None
