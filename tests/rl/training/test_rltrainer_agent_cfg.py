"""agent_cfg: skrl 1.4.3's PPO keys, skrl's own classes and callables, and clear errors for the rest."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import torch
from rl_toy_envs import PointMassEnv

from simulo.errors import SimuloValueError
from simulo.rl.training import RLTrainer
from simulo.rl.training.config import DEFAULTS, EXPERIMENT_KEYS, PPO_KEYS, check_agent_cfg

skrl_ppo = pytest.importorskip("skrl.agents.torch.ppo")
from skrl.resources.preprocessors.torch import RunningStandardScaler  # noqa: E402
from skrl.resources.schedulers.torch import KLAdaptiveLR  # noqa: E402


def _make(tmp_path: Path, agent_cfg: Any, num_envs: int = 4) -> RLTrainer:
    return RLTrainer(PointMassEnv(num_envs=num_envs), device="cpu", agent_cfg=agent_cfg, checkpoint_dir=tmp_path,
                     progress=False)


def test_keys_are_skrl_1_4_3_ppo_keys() -> None:
    import skrl

    assert skrl.__version__ == "1.4.3"
    assert set(PPO_KEYS) == set(skrl_ppo.PPO_DEFAULT_CONFIG)
    assert set(EXPERIMENT_KEYS) == set(skrl_ppo.PPO_DEFAULT_CONFIG["experiment"])
    assert set(DEFAULTS) <= set(PPO_KEYS)


def test_unknown_key_named_with_the_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError) as caught:
        _make(tmp_path, {"rollouts": 8, "learning_rat": 1e-3})
    message = str(caught.value)
    assert "'learning_rat'" in message and "'learning_rate'" in message and "'rewards_shaper'" in message
    with pytest.raises(SimuloValueError, match=r"agent_cfg\['experiment'\] has unknown key\(s\) \['dir'\]"):
        _make(tmp_path, {"experiment": {"dir": "x"}})


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("rollouts", 0, "an integer >= 1"),
        ("mini_batches", 2.5, "an integer >= 1"),
        ("learning_epochs", True, "an integer >= 1"),
        ("discount_factor", 1.5, r"a number in \[0, 1\]"),
        ("lambda", float("nan"), r"a number in \[0, 1\]"),
        ("learning_rate", -1e-3, "a number >= 0"),
        ("time_limit_bootstrap", 1, "True or False"),
        ("rewards_shaper", "scale", "a class or callable"),
        ("state_preprocessor_kwargs", [1], "a dict of keyword arguments"),
        ("random_timesteps", -1, "an integer >= 0"),
    ],
)
def test_bad_value_named(key: str, value: Any, expected: str) -> None:
    with pytest.raises(SimuloValueError, match=rf"agent_cfg\['{key}'\]=.*expected {expected}"):
        check_agent_cfg({key: value})


def test_too_many_minibatches(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match=r"mini_batches'\]=100: expected at most rollouts \* num_envs = 8"):
        _make(tmp_path, {"rollouts": 2, "mini_batches": 100})


def test_defaults_reach_skrl(tmp_path: Path) -> None:
    agent = _make(tmp_path, None).agent
    assert agent.cfg["rollouts"] == 16 and agent.memory.memory_size == 16
    assert isinstance(agent._state_preprocessor, RunningStandardScaler)
    assert isinstance(agent._value_preprocessor, RunningStandardScaler)
    assert isinstance(agent.scheduler, KLAdaptiveLR) and agent.scheduler.kl_threshold == 0.008
    assert isinstance(agent.policy.net[1], torch.nn.ELU)


def _halve(rewards: torch.Tensor, timestep: int, timesteps: int, factor: float) -> torch.Tensor:
    return rewards * factor


def test_skrl_classes_and_partials_accepted(tmp_path: Path) -> None:
    calls: list[int] = []

    def shaper(rewards: torch.Tensor, timestep: int, timesteps: int) -> torch.Tensor:
        calls.append(timestep)
        return functools.partial(_halve, factor=0.5)(rewards, timestep, timesteps)

    trainer = _make(tmp_path, {
        "rollouts": 4, "mini_batches": 2, "learning_epochs": 2, "learning_rate": 3e-4,
        "learning_rate_scheduler": KLAdaptiveLR, "learning_rate_scheduler_kwargs": {"kl_threshold": 0.02},
        "state_preprocessor": RunningStandardScaler, "state_preprocessor_kwargs": {"clip_threshold": 3.0},
        "value_preprocessor": None, "rewards_shaper": shaper, "discount_factor": 0.97,
    })
    agent = trainer.agent
    assert agent.scheduler.kl_threshold == 0.02
    assert agent._state_preprocessor.clip_threshold == 3.0 and agent._value_preprocessor == agent._empty_preprocessor
    assert agent._discount_factor == 0.97
    trainer.train(2)
    assert calls == list(range(8))
    described = trainer.agent_cfg
    assert described["learning_rate_scheduler"].endswith("KLAdaptiveLR") and described["rollouts"] == 4
    assert described["rewards_shaper"].endswith("shaper")
    partial = check_agent_cfg({"rewards_shaper": functools.partial(_halve, factor=0.1)})
    assert partial["rewards_shaper"](torch.ones(2), 0, 1).tolist() == pytest.approx([0.1, 0.1])


def test_no_preprocessors_and_a_torch_scheduler(tmp_path: Path) -> None:
    trainer = _make(tmp_path, {"rollouts": 4, "state_preprocessor": None, "value_preprocessor": None,
                               "learning_rate_scheduler": torch.optim.lr_scheduler.StepLR,
                               "learning_rate_scheduler_kwargs": {"step_size": 1, "gamma": 0.5},
                               "learning_rate": 1e-3, "learning_epochs": 1})  # skrl steps it once per epoch
    trainer.train(2)
    assert trainer.learning_rate == pytest.approx(1e-3 * 0.5**2)
    assert trainer.agent._state_preprocessor == trainer.agent._empty_preprocessor
