"""Checkpoints: save/load, best/latest during training, resume in a job run, TensorBoard, policy replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from rl_toy_envs import PointMassEnv

from simulo.errors import SimuloValueError
from simulo.rl.training import PolicyPlayer, RLPlayer, RLTrainer
from simulo.rl.training.checkpoints import CHECKPOINT_DIR_ENV, run_checkpoints

OBS = torch.tensor([[1.0, 0.5], [-2.0, 0.0], [0.3, -1.0]])


def _trainer(directory: Path | None, seed: int = 0, agent_cfg: dict[str, Any] | None = None,
             **kwargs: Any) -> RLTrainer:
    env = PointMassEnv(num_envs=16, seed=seed)
    return RLTrainer(env, device="cpu", seed=seed, checkpoint_dir=directory, progress=False,
                     agent_cfg={"rollouts": 8, **(agent_cfg or {})}, **kwargs)


def test_best_and_latest_written(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    stats = trainer.train(1)
    assert (tmp_path / "latest.pt").is_file()
    assert not (tmp_path / "best.pt").exists()  # no episode (40 steps, |x| > 3 unreachable yet) in 8 steps
    assert stats["best_reward"] is None and stats["best_checkpoint"] is None
    stats = trainer.train(5)
    assert (tmp_path / "best.pt").is_file()
    assert stats["checkpoint_dir"] == str(tmp_path)
    assert stats["latest_checkpoint"] == str(tmp_path / "latest.pt")
    best = PolicyPlayer.from_checkpoint(tmp_path / "best.pt")
    latest = PolicyPlayer.from_checkpoint(tmp_path / "latest.pt")
    assert best.iteration == stats["best_iteration"]
    assert latest.iteration == 6
    assert stats["best_checkpoint"] == str(tmp_path / "best.pt")


def test_save_load_round_trip(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path, agent_cfg={"discount_factor": 0.97})
    trainer.train(3)
    trainer.save(tmp_path / "saved.pt")
    other = _trainer(tmp_path / "other", seed=5)
    assert not torch.equal(other.act(OBS), trainer.act(OBS))
    other.load(tmp_path / "saved.pt")
    assert torch.equal(other.act(OBS), trainer.act(OBS))
    assert other.iteration == 3 and other.env_steps == trainer.env_steps
    assert other.best_reward == trainer.best_reward
    assert other.agent_cfg["discount_factor"] == 0.99  # the loading trainer's settings stay in use
    assert other.learning_rate == trainer.learning_rate
    a, b = trainer.agent, other.agent
    assert torch.equal(a._state_preprocessor.running_mean, b._state_preprocessor.running_mean)
    assert torch.equal(a._value_preprocessor.running_variance, b._value_preprocessor.running_variance)
    opt_a, opt_b = a.optimizer.state_dict(), b.optimizer.state_dict()
    assert torch.equal(opt_a["state"][0]["exp_avg"], opt_b["state"][0]["exp_avg"])


def test_load_restores_everything_training_uses(tmp_path: Path) -> None:
    """After load, one more iteration on an identical env gives bit-identical parameters and rewards."""
    original = _trainer(tmp_path / "a")
    original.train(6)
    original.save(tmp_path / "six.pt")
    restored = _trainer(tmp_path / "b", seed=9)
    restored.load(tmp_path / "six.pt")
    results = []
    for trainer in (original, restored):
        trainer.env = PointMassEnv(num_envs=16, seed=11)
        trainer._states = None
        results.append(trainer.train(1))
    a, b = results
    assert a["reward_history"] == b["reward_history"] and a["best_reward"] == b["best_reward"]
    assert a["learning_rate"] == b["learning_rate"] and b["iterations"] == 7
    for p, q in zip([*original.agent.policy.parameters(), *original.agent.value.parameters()],
                    [*restored.agent.policy.parameters(), *restored.agent.value.parameters()]):
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
    torch.save({"format": "simulo-local/rltrainer", "version": 1}, tmp_path / "old.pt")
    with pytest.raises(SimuloValueError, match="format version 1; this runtime reads version 2"):
        trainer.load(tmp_path / "old.pt")

    class Wider(PointMassEnv):
        observation_dim = 3

    wide = RLTrainer(Wider(num_envs=4), device="cpu", checkpoint_dir=tmp_path / "w", progress=False)
    with pytest.raises(SimuloValueError, match=r"\(2, 2, 1\)"):
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
    with pytest.raises(SimuloValueError, match="no simulation to draw"):  # a toy env without a Simulation
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
    directory = trainer.checkpoint_dir
    assert directory.parent == tmp_path / "runs" / "checkpoints"
    stats = trainer.train(1)
    assert stats["checkpoint_dir"] == str(directory) and (directory / "latest.pt").is_file()
    assert stats["log_dir"] == str(directory / "tensorboard")


def test_keep_last_and_checkpoint_every(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    trainer.train(5, checkpoint_every=2, keep_last=2)
    assert sorted(p.name for p in tmp_path.glob("model_*.pt")) == ["model_000004.pt", "model_000005.pt"]
    assert PolicyPlayer.from_checkpoint(tmp_path / "latest.pt").iteration == 5


def test_latest_every_fifty_iterations_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = PointMassEnv(num_envs=2, seed=0)
    trainer = RLTrainer(env, device="cpu", checkpoint_dir=tmp_path, progress=False,
                        agent_cfg={"rollouts": 1, "learning_epochs": 1, "mini_batches": 1})
    saved: list[tuple[str, int]] = []
    save = trainer.save
    monkeypatch.setattr(trainer, "save", lambda path: (saved.append((Path(path).name, trainer.iteration)), save(path)))
    trainer.train(120)
    assert [i for name, i in saved if name == "latest.pt"] == [50, 100, 120]
    best = [i for name, i in saved if name == "best.pt"]
    assert best and best[-1] == trainer.best_iteration


def test_tensorboard_events_in_the_run_folder(tmp_path: Path) -> None:
    with run_checkpoints(tmp_path / "run" / "checkpoints"):
        trainer = _trainer(None)
        stats = trainer.train(6)
        trainer.close()
    assert stats["log_dir"] == str(tmp_path / "run" / "tensorboard")
    events = list((tmp_path / "run" / "tensorboard").glob("events.out.tfevents.*"))
    assert len(events) == 1 and events[0].stat().st_size > 0
    logged = _trainer(tmp_path / "other", log_dir=tmp_path / "tb")
    logged.train(1)
    logged.close()
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))


def test_checkpoint_frequency_does_not_change_what_is_learned(tmp_path: Path) -> None:
    """Writing a checkpoint builds a standalone actor; that must not draw from the trainer's random stream."""
    often, rarely = _trainer(tmp_path / "often"), _trainer(tmp_path / "rarely")
    a = often.train(4, checkpoint_every=1, keep_last=4)
    b = rarely.train(4, checkpoint_every=50)
    assert len(list((tmp_path / "often").glob("model_*.pt"))) == 4
    assert not list((tmp_path / "rarely").glob("model_*.pt"))
    assert a["reward_history"] == b["reward_history"]
    for p, q in zip([*often.agent.policy.parameters(), *often.agent.value.parameters()],
                    [*rarely.agent.policy.parameters(), *rarely.agent.value.parameters()]):
        assert torch.equal(p, q)


@pytest.mark.parametrize(("dt", "recorded"), [(0.05, {"control_period_s": 0.05}), (None, {}), (0.0, {}),
                                              (float("nan"), {}), (True, {}), ("0.05", {})])
def test_a_checkpoint_records_the_policy_steps_period_when_the_env_has_one(tmp_path: Path, dt: Any,
                                                                           recorded: dict[str, float]) -> None:
    from simulo.rl.training.checkpoints import control_period, read_checkpoint

    env = PointMassEnv(num_envs=4, seed=0)
    if dt is not None:
        env.dt = dt  # type: ignore[attr-defined]
    assert control_period(env) == recorded
    trainer = RLTrainer(env, device="cpu", seed=0, checkpoint_dir=tmp_path, progress=False,
                        agent_cfg={"rollouts": 4})
    trainer.save(tmp_path / "c.pt")
    trainer.close()
    assert read_checkpoint(tmp_path / "c.pt").get("control_period_s") == recorded.get("control_period_s")
