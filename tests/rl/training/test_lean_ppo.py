"""LeanPPO's update gives skrl's PPO update to the bit: parameters, optimiser state, statistics, random stream."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import torch
from rl_toy_envs import PointMassEnv
from skrl.agents.torch.ppo import PPO

from simulo.rl.training import RLTrainer, ppo
from simulo.rl.training.ppo import PARALLEL_ROWS, LeanPPO


def _run(tmp_path: Path, lean: bool, iterations: int = 3, **cfg: Any) -> tuple[list[torch.Tensor], list[Any]]:
    trainer = RLTrainer(PointMassEnv(num_envs=16, seed=3), device="cpu", seed=3, checkpoint_dir=tmp_path,
                        progress=False, agent_cfg={"mini_batches": 2, "learning_epochs": 3, **cfg})
    agent = trainer.agent
    assert isinstance(agent, LeanPPO)
    if not lean:  # skrl's own update and optimiser settings
        agent.__class__ = PPO
        for group in agent.optimizer.param_groups:
            group["foreach"] = None
    stats = trainer.train(max_iterations=iterations)
    tensors = [t.detach().clone() for module in agent.checkpoint_modules.values()
               for t in _tensors(module.state_dict())]
    tensors.append(trainer._rng_state.clone())
    trainer.close()
    return tensors, stats["reward_history"]


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for key in sorted(value, key=str) for t in _tensors(value[key])]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return []


@pytest.mark.parametrize("threshold", [1, PARALLEL_ROWS], ids=["value-pass-beside", "value-pass-after"])
@pytest.mark.parametrize("cfg", [{}, {"entropy_loss_scale": 0.01, "kl_threshold": 0.005}],
                         ids=["defaults", "entropy-and-kl-stop"])
def test_lean_update_matches_skrl_bit_for_bit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cfg: dict[str, Any],
                                             threshold: int) -> None:
    monkeypatch.setattr(ppo, "PARALLEL_ROWS", threshold)
    lean, lean_rewards = _run(tmp_path / "lean", True, **cfg)
    skrl, skrl_rewards = _run(tmp_path / "skrl", False, **cfg)
    assert lean_rewards == skrl_rewards
    assert len(lean) == len(skrl) > 10
    assert all(torch.equal(a, b) for a, b in zip(lean, skrl, strict=True))


def test_optimiser_runs_foreach_after_loading_a_checkpoint(tmp_path: Path) -> None:
    trainer = RLTrainer(PointMassEnv(num_envs=8, seed=0), device="cpu", seed=0, checkpoint_dir=tmp_path,
                        progress=False)
    trainer.train(max_iterations=1)
    for group in trainer.agent.optimizer.param_groups:
        group["foreach"] = None  # as a checkpoint of skrl's own optimiser holds it
    trainer.save(tmp_path / "saved.pt")
    trainer.load(tmp_path / "saved.pt")
    assert [group["foreach"] for group in trainer.agent.optimizer.param_groups] == [True]
    trainer.close()


@pytest.mark.parametrize("threshold", [64, 65])
def test_the_value_networks_passes_run_beside_the_policys_on_large_mini_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threshold: int) -> None:
    """With separate networks, the value forward and backward pass of a mini-batch of at least PARALLEL_ROWS
    rows runs on the second thread, of a smaller one on this thread (the bytes are skrl's: the test above)."""
    monkeypatch.setattr(ppo, "PARALLEL_ROWS", threshold)  # mini-batches of 64 rows: 8 environments, 16 steps, 2
    trainer = RLTrainer(PointMassEnv(num_envs=8, seed=0), device="cpu", seed=0, checkpoint_dir=tmp_path,
                        progress=False, agent_cfg={"mini_batches": 2, "learning_epochs": 2})
    agent = trainer.agent
    threads: dict[str, set[str]] = {"policy": set(), "value": set()}
    for role, params in (("policy", agent._policy_params), ("value", agent._value_params)):
        for param in params:
            param.register_hook(lambda grad, role=role: threads[role].add(threading.current_thread().name) or grad)
    trainer.train(max_iterations=1)
    trainer.close()
    assert threads["policy"] == {threading.current_thread().name}
    if threshold <= 64:
        assert len(threads["value"]) == 1 and next(iter(threads["value"])).startswith("simulo-value-pass")
    else:
        assert threads["value"] == {threading.current_thread().name}
