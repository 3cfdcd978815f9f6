"""The cartpole sample learns on the real PyBullet runtime: PPO's mean episode return rises within a few iterations."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import simulo

pytest.importorskip("torch")

TASK_FILE = Path(__file__).resolve().parents[2] / "samples" / "cartpole" / "task.py"


def test_reward_rises_within_twenty_iterations(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("cartpole_learning_task", TASK_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["cartpole_learning_task"] = module
    spec.loader.exec_module(module)
    env = simulo.LearningEnv(module.CartpoleTask(), num_envs=64, seed=0)
    trainer = simulo.RLTrainer(env, algorithm="PPO", seed=0, progress=False, checkpoint_dir=tmp_path)
    try:
        stats = trainer.train(max_iterations=20)
    finally:
        trainer.close()
        env.close()
    history = [r for r in stats["reward_history"] if r is not None]
    assert len(history) >= 15
    # a random policy keeps the pole up for well under a second (returns of a few tens); learning must show
    assert history[-1] > history[0] + 30.0, history
    assert stats["best_reward"] == max(history)
    assert (tmp_path / "best.pt").is_file() and (tmp_path / "latest.pt").is_file()
