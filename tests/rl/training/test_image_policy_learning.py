"""A policy that sees the pole through a camera learns to balance it: its return rises over a CI-sized run."""

from __future__ import annotations

from pathlib import Path

import pytest
from camera_tasks import camera_cartpole

import simulo
from simulo.rl.training import RLTrainer

CFG = {"rollouts": 32, "learning_epochs": 4, "mini_batches": 4, "learning_rate": 3e-4}


def _history(task: simulo.Task, folder: Path, iterations: int = 14) -> list[float]:
    env = simulo.LearningEnv(task, num_envs=16, seed=3, enable_cameras=True)
    try:
        trainer = RLTrainer(env, device="cpu", seed=3, checkpoint_dir=folder, progress=False, agent_cfg=CFG)
        history = [r for r in trainer.train(iterations)["reward_history"] if r is not None]
    finally:
        env.close()
    assert len(history) == iterations, history
    return history


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


@pytest.mark.slow
def test_camera_cartpole_return_rises(tmp_path: Path) -> None:
    # the sample's inputs: a 32x32 image and the two joint velocities
    history = _history(camera_cartpole(32)(), tmp_path)
    assert _mean(history[-3:]) > _mean(history[:2]) + 5.0, history  # measured: about 1 to 12


@pytest.mark.slow
def test_a_pixels_only_policy_learns_what_a_blind_one_cannot(tmp_path: Path) -> None:
    # the first windows hold only the episodes that ended soonest, so the rise is counted from iteration 3
    seeing = _history(camera_cartpole(32, velocities=False)(), tmp_path / "seeing")
    blind = _history(camera_cartpole(32, velocities=False, blind=True)(), tmp_path / "blind")
    assert _mean(seeing[-3:]) > _mean(seeing[2:4]) + 2.0, seeing  # measured: 5.3 to 8.7
    assert _mean(seeing[-3:]) > _mean(blind[-3:]) + 2.0, (seeing, blind)  # measured: 8.7 against 5.1
