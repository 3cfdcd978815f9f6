"""Checkpoints: save/load, best/latest during training, resume in a job run, policy replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from rl_toy_envs import PointMassEnv

from simulo.errors import SimuloValueError
from simulo.rl.training import PolicyPlayer, RLPlayer, RLTrainer
from simulo.rl.training.checkpoints import CHECKPOINT_DIR_ENV, run_checkpoints

OBS = torch.tensor([[1.0, 0.5], [-2.0, 0.0], [0.3, -1.0]])


def _trainer(directory: Path | None, seed: int = 0, **kwargs: object) -> RLTrainer:
    env = PointMassEnv(num_envs=16, seed=seed)
    return RLTrainer(env, seed=seed, checkpoint_dir=directory, progress=False, rollout_steps=8, **kwargs)


def test_best_and_latest_written(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    stats = trainer.train(4)
    assert (tmp_path / "latest.pt").is_file()
    assert not (tmp_path / "best.pt").exists()  # no episode (40 steps) finished in 4 x 8 steps
    assert stats["best_reward"] is None and stats["best_checkpoint"] is None
    stats = trainer.train(4)
    assert (tmp_path / "best.pt").is_file()
    assert stats["checkpoint_dir"] == str(tmp_path)
    assert stats["latest_checkpoint"] == str(tmp_path / "latest.pt")
    best = PolicyPlayer.from_checkpoint(tmp_path / "best.pt")
    latest = PolicyPlayer.from_checkpoint(tmp_path / "latest.pt")
    assert best.iteration == stats["best_iteration"]
    assert latest.iteration == 8
    assert stats["best_checkpoint"] == str(tmp_path / "best.pt")


def test_save_load_round_trip(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path, gamma=0.97)
    trainer.train(3)
    trainer.save(tmp_path / "saved.pt")
    other = _trainer(tmp_path / "other", seed=5)
    assert not torch.equal(other.act(OBS), trainer.act(OBS))
    other.load(tmp_path / "saved.pt")
    assert torch.equal(other.act(OBS), trainer.act(OBS))
    assert other.iteration == 3 and other.env_steps == trainer.env_steps
    assert other.best_reward == trainer.best_reward
    assert other.config == trainer.config and other.config.gamma == 0.97
    assert other._learner.learning_rate == trainer._learner.learning_rate
    assert torch.equal(other._learner.normalizer.mean, trainer._learner.normalizer.mean)
    opt_a, opt_b = trainer._learner.optimizer.state_dict(), other._learner.optimizer.state_dict()
    assert torch.equal(opt_a["state"][0]["exp_avg"], opt_b["state"][0]["exp_avg"])


def test_load_restores_everything_training_uses(tmp_path: Path) -> None:
    """After load, one more iteration on an identical env gives bit-identical parameters and rewards."""
    original = _trainer(tmp_path / "a")
    original.train(6)
    original.save(tmp_path / "six.pt")
    restored = _trainer(tmp_path / "b", seed=9, gamma=0.5)
    restored.load(tmp_path / "six.pt")
    for trainer in (original, restored):
        trainer.env = PointMassEnv(num_envs=16, seed=11)
        trainer._obs = None
    a, b = original.train(1), restored.train(1)
    assert a["reward_history"] == b["reward_history"] and a["best_reward"] == b["best_reward"]
    assert a["learning_rate"] == b["learning_rate"] and b["iterations"] == 7
    for p, q in zip([*original._learner.actor.parameters(), *original._learner.critic.parameters()],
                    [*restored._learner.actor.parameters(), *restored._learner.critic.parameters()]):
        assert torch.equal(p, q)


def test_load_refuses_other_sizes_and_garbage(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    trainer.save(tmp_path / "ok.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    before = trainer.act(OBS)
    with pytest.raises(SimuloValueError, match="junk.pt"):
        trainer.load(tmp_path / "junk.pt")
    with pytest.raises(SimuloValueError, match="does not exist"):
        trainer.load(tmp_path / "missing.pt")
    torch.save({"format": "something else"}, tmp_path / "foreign.pt")
    with pytest.raises(SimuloValueError, match="not an RLTrainer checkpoint"):
        trainer.load(tmp_path / "foreign.pt")

    class Wider(PointMassEnv):
        observation_dim = 3

    wide = RLTrainer(Wider(num_envs=4), checkpoint_dir=tmp_path / "w", progress=False)
    with pytest.raises(SimuloValueError, match=r"\(2, 1\)"):
        wide.load(tmp_path / "ok.pt")
    assert torch.equal(trainer.act(OBS), before)


def test_policy_player_replays_saved_policy(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    trainer.train(2)
    trainer.save(tmp_path / "p.pt")
    player = PolicyPlayer.from_checkpoint(tmp_path / "p.pt")
    assert (player.observation_dim, player.action_dim) == (2, 1)
    assert torch.equal(player(OBS), trainer.act(OBS))
    as_numpy = player(OBS.numpy())
    assert isinstance(as_numpy, np.ndarray) and as_numpy.shape == (3, 1)
    np.testing.assert_array_equal(as_numpy, trainer.act(OBS).numpy())
    sampled = player(OBS, deterministic=False)
    assert sampled.shape == (3, 1) and float(sampled.abs().max()) <= 1.0


def test_rl_player_plays_episodes(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    trainer.train(2)
    env = PointMassEnv(num_envs=4, max_steps=10, seed=3)
    player = RLPlayer(env, tmp_path / "latest.pt")
    result = player.play(num_episodes=6)
    assert result["episodes"] >= 6 and len(result["returns"]) == result["episodes"]
    assert result["steps"] == 20  # 4 envs, 10-step episodes: 8 finished after 20 steps
    assert result["mean_return"] == pytest.approx(sum(result["returns"]) / len(result["returns"]))
    by_steps = player.play(num_steps=5)
    assert by_steps["steps"] == 5 and by_steps["episodes"] == 0 and by_steps["mean_return"] is None
    with pytest.raises(SimuloValueError, match="num_episodes=0"):
        player.play(num_episodes=0)
    with pytest.raises(NotImplementedError, match="video"):
        player.play(video_path="x.mp4")
    player.close()
    assert player.policy is None


def test_resume_from_run_checkpoint_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A retried job finds latest.pt in its run directory and continues to the same total."""
    monkeypatch.setenv(CHECKPOINT_DIR_ENV, str(tmp_path / "env-var"))
    first = _trainer(None)
    first.train(2)
    assert (tmp_path / "env-var" / "latest.pt").is_file()
    retry = _trainer(None)
    assert retry.iteration == 2
    stats = retry.train(5)
    assert stats["iterations"] == 5 and stats["iterations_run"] == 3


def test_run_folder_wins_over_env_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CHECKPOINT_DIR_ENV, str(tmp_path / "env-var"))
    with run_checkpoints(tmp_path / "run"):
        trainer = _trainer(None)
        trainer.train(1)
        assert (tmp_path / "run" / "latest.pt").is_file()
        assert not (tmp_path / "env-var").exists()
        assert _trainer(None).iteration == 1
    assert _trainer(None).checkpoint_dir == tmp_path / "env-var"


def test_explicit_dir_does_not_resume_unless_asked(tmp_path: Path) -> None:
    _trainer(tmp_path).train(2)
    assert _trainer(tmp_path).iteration == 0
    assert _trainer(tmp_path, resume=True).iteration == 2


def test_local_default_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CHECKPOINT_DIR_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    trainer = _trainer(None)
    assert trainer.checkpoint_dir is None
    stats = trainer.train(1)
    directory = Path(stats["checkpoint_dir"])
    assert directory.parent == tmp_path / "runs" / "checkpoints"
    assert (directory / "latest.pt").is_file()


def test_keep_last_and_checkpoint_every(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    trainer.train(5, checkpoint_every=2, keep_last=2)
    assert sorted(p.name for p in tmp_path.glob("model_*.pt")) == ["model_000004.pt", "model_000005.pt"]
    assert PolicyPlayer.from_checkpoint(tmp_path / "latest.pt").iteration == 5
