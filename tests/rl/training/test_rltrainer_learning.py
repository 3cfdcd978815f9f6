"""RLTrainer learns on small torch environments, repeatably for a seed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from rl_toy_envs import CartpoleEnv, PointMassEnv

from simulo.rl.training import RLTrainer


def _trainer(tmp_path: Path, seed: int = 0, num_envs: int = 32, env: Any = None, **cfg: Any) -> RLTrainer:
    env = env if env is not None else PointMassEnv(num_envs=num_envs, seed=seed)
    return RLTrainer(env, device="cpu", seed=seed, checkpoint_dir=tmp_path, progress=False, agent_cfg=cfg or None)


def test_reward_rises_on_point_mass(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    stats = trainer.train(20)
    history = [r for r in stats["reward_history"] if r is not None]
    assert stats["iterations"] == 20
    assert stats["env_steps"] == 20 * 16 * 32
    assert len(history) >= 15
    first, last = history[0], sum(history[-3:]) / 3
    assert last > first + 40.0, history  # a random policy scores about -100
    assert stats["best_reward"] == max(history)
    assert stats["final_reward"] == stats["reward_history"][-1]
    assert stats["wall_time_s"] > 0.0 and stats["env_steps_per_s"] > 0.0


def test_reward_rises_on_cartpole(tmp_path: Path) -> None:
    stats = _trainer(tmp_path, seed=3, env=CartpoleEnv(num_envs=64, seed=3)).train(15)
    history = [r for r in stats["reward_history"] if r is not None]
    assert history[-1] > history[0] + 20.0, history


def test_same_seed_same_run(tmp_path: Path) -> None:
    a = _trainer(tmp_path / "a", seed=7)
    b = _trainer(tmp_path / "b", seed=7)
    stats_a, stats_b = a.train(3), b.train(3)
    assert stats_a["reward_history"] == stats_b["reward_history"]
    for p, q in zip([*a.agent.policy.parameters(), *a.agent.value.parameters()],
                    [*b.agent.policy.parameters(), *b.agent.value.parameters()]):
        assert torch.equal(p, q)


def test_other_seed_other_run(tmp_path: Path) -> None:
    a = _trainer(tmp_path / "a", seed=1)
    b = _trainer(tmp_path / "b", seed=2)
    a.train(2), b.train(2)
    assert not torch.equal(a.agent.policy.net[0].weight, b.agent.policy.net[0].weight)


def test_training_leaves_global_rng_alone(tmp_path: Path) -> None:
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    _trainer(tmp_path).train(1)
    assert torch.equal(torch.rand(3), expected)


def test_train_calls_continue_iterations(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    trainer.train(2)
    stats = trainer.train(3)
    assert stats["iterations"] == 5
    assert stats["iterations_run"] == 3
    assert len(stats["reward_history"]) == 5


def test_adaptive_schedule_moves_learning_rate(tmp_path: Path) -> None:
    stats = _trainer(tmp_path).train(2)
    assert stats["learning_rate"] != pytest.approx(1e-3)


def test_hidden_layers(tmp_path: Path) -> None:
    trainer = RLTrainer(PointMassEnv(num_envs=4), device="cpu", checkpoint_dir=tmp_path, progress=False,
                        hidden_layers=(16, 8))
    assert [m.out_features for m in trainer.agent.policy.net if isinstance(m, torch.nn.Linear)] == [16, 8, 1]
    assert [m.out_features for m in trainer.agent.value.net if isinstance(m, torch.nn.Linear)] == [16, 8, 1]


def test_act_deterministic_and_sampled(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    trainer.train(2)
    obs = torch.tensor([[1.5, 0.0], [-1.5, 0.0]])
    det = trainer.act(obs)
    assert det.shape == (2, 1)
    assert torch.equal(det, trainer.act(obs))
    assert float(det.abs().max()) <= 1.0
    sampled = trainer.act(obs, deterministic=False)
    assert sampled.shape == (2, 1) and not torch.equal(sampled, det)
    single = trainer.act([1.5, 0.0])
    assert single.shape == (1,)
    assert single[0] == pytest.approx(float(det[0, 0]))


class _GymStyleReset(PointMassEnv):
    """Returns ``(obs, info)`` from reset, as simulo.LearningEnv does."""

    def reset(self):  # type: ignore[override]
        return super().reset(), {}


def test_gymnasium_style_reset_and_numpy_outputs(tmp_path: Path) -> None:
    class NumpyEnv(_GymStyleReset):
        def step(self, actions):  # type: ignore[override]
            return tuple(x.numpy() if isinstance(x, torch.Tensor) else x for x in super().step(actions))

    stats = _trainer(tmp_path, env=NumpyEnv(num_envs=8), rollouts=8).train(6)
    assert stats["iterations"] == 6 and stats["best_reward"] is not None


@pytest.mark.parametrize("progress", [True, False])
def test_progress_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], progress: bool) -> None:
    RLTrainer(PointMassEnv(num_envs=4), device="cpu", checkpoint_dir=tmp_path, progress=progress,
              agent_cfg={"rollouts": 4}).train(2)
    err = capsys.readouterr().err
    assert ("PPO" in err and "steps/s" in err) is progress


def test_progress_line_without_tqdm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    RLTrainer(PointMassEnv(num_envs=4), device="cpu", checkpoint_dir=tmp_path, agent_cfg={"rollouts": 4}).train(2)
    err = capsys.readouterr().err
    assert "\rPPO 1/2 " in err and "\rPPO 2/2 " in err and err.endswith("\n")
