"""Bad input to RLTrainer and friends: clear SimuloErrors naming the value."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
from rl_toy_envs import PointMassEnv

from simulo.errors import MissingDependencyError, NonFiniteError, ShapeError, SimuloError, SimuloValueError
from simulo.rl.training import PolicyPlayer, PPOConfig, RLTrainer


def _make(tmp_path: Path, env: Any = None, **kwargs: Any) -> RLTrainer:
    return RLTrainer(env if env is not None else PointMassEnv(num_envs=4), checkpoint_dir=tmp_path, progress=False,
                     **kwargs)


@pytest.mark.parametrize("algorithm", ["SAC", "", None, 3])
def test_unknown_algorithm(tmp_path: Path, algorithm: Any) -> None:
    with pytest.raises(SimuloValueError, match=rf"algorithm={algorithm!r}.*PPO"):
        _make(tmp_path, algorithm=algorithm)


def test_algorithm_case_insensitive(tmp_path: Path) -> None:
    assert _make(tmp_path, algorithm="ppo").algorithm == "PPO"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("gamma", 1.5),
        ("gamma", float("nan")),
        ("learning_rate", 0.0),
        ("learning_rate", "fast"),
        ("num_epochs", 0),
        ("num_minibatches", 2.5),
        ("rollout_steps", True),
        ("entropy_coef", -0.1),
        ("actor_hidden", ()),
        ("critic_hidden", (32, 0)),
        ("activation", "gelu"),
        ("lr_schedule", "cosine"),
        ("action_limit", -1.0),
        ("normalize_observations", 1),
    ],
)
def test_bad_hyperparameter_named(tmp_path: Path, name: str, value: Any) -> None:
    with pytest.raises(SimuloValueError, match=rf"PPOConfig\.{name}="):
        _make(tmp_path, **{name: value})


def test_unknown_hyperparameter_named(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match="learning_rat"):
        _make(tmp_path, learning_rat=1e-3)


def test_agent_cfg_and_keyword_conflict(tmp_path: Path) -> None:
    assert _make(tmp_path, agent_cfg={"gamma": 0.9}).config.gamma == 0.9
    with pytest.raises(SimuloValueError, match="gamma"):
        _make(tmp_path, agent_cfg={"gamma": 0.9}, gamma=0.8)


def test_too_many_minibatches(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match="num_minibatches=100"):
        _make(tmp_path, rollout_steps=2, num_minibatches=100)


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"seed": -1}, "seed=-1"),
        ({"seed": 1.5}, "seed=1.5"),
        ({"ml_framework": "jax"}, "ml_framework='jax'"),
        ({"resume": "yes"}, "resume='yes'"),
        ({"torch_threads": 0}, "torch_threads=0"),
        ({"device": "tpu"}, "device='tpu'"),
    ],
)
def test_bad_constructor_arguments(tmp_path: Path, kwargs: dict[str, Any], text: str) -> None:
    with pytest.raises(SimuloValueError, match=text.replace("(", r"\(").replace(".", r"\.")):
        _make(tmp_path, **kwargs)


def test_not_an_env(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match="lacks"):
        _make(tmp_path, env=object())
    env = PointMassEnv(num_envs=4)
    env.num_envs = 0
    with pytest.raises(SimuloValueError, match="env.num_envs=0"):
        _make(tmp_path, env=env)


def test_missing_torch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = PointMassEnv(num_envs=4)
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependencyError, match=r"pip install torch==2\.13\.0"):
        _make(tmp_path, env=env)
    with pytest.raises(MissingDependencyError, match="simulo-local\\[train\\]"):
        PolicyPlayer.from_checkpoint(tmp_path / "x.pt")
    assert issubclass(MissingDependencyError, ImportError)


def test_lean_import_without_torch() -> None:
    code = (
        "import sys, simulo\n"
        "assert 'simulo.rl.training' not in sys.modules\n"
        "simulo.RLTrainer, simulo.PolicyPlayer, simulo.RLPlayer, simulo.PPOConfig\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.skipif(torch.cuda.is_available(), reason="tests the CPU fallback")
def test_cuda_falls_back_with_one_warning(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = _make(tmp_path, device="cuda")
    assert trainer.device == "cpu"
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == [
        "device='cuda' requested but CUDA is not available; using the CPU"
    ]


class _BrokenEnv(PointMassEnv):
    def __init__(self, mode: str) -> None:
        super().__init__(num_envs=4)
        self.mode = mode

    def step(self, actions: torch.Tensor) -> Any:
        obs, rewards, terminated, truncated, info = super().step(actions)
        if self.mode == "obs_shape":
            obs = obs[:, :1]
        elif self.mode == "nan_reward":
            rewards = rewards.clone()
            rewards[2] = float("nan")
        elif self.mode == "tuple":
            return obs, rewards
        return obs, rewards, terminated, truncated, info


@pytest.mark.parametrize(
    ("mode", "error", "text"),
    [
        ("obs_shape", ShapeError, r"observations have shape \(4, 1\): expected \(4, 2\)"),
        ("nan_reward", NonFiniteError, r"rewards contain NaN or infinity in environments \[2\]"),
        ("tuple", ShapeError, "expected \\(obs, rewards, terminated, truncated, info\\)"),
    ],
)
def test_malformed_env_output(tmp_path: Path, mode: str, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text):
        _make(tmp_path, env=_BrokenEnv(mode)).train(1)


def test_bad_train_arguments_and_closed(tmp_path: Path) -> None:
    trainer = _make(tmp_path)
    with pytest.raises(SimuloValueError, match="max_iterations=-1"):
        trainer.train(-1)
    with pytest.raises(SimuloValueError, match="checkpoint_every=0"):
        trainer.train(1, checkpoint_every=0)
    with pytest.raises(SimuloValueError, match="keep_last=0"):
        trainer.train(1, keep_last=0)
    trainer.close()
    trainer.close()
    with pytest.raises(SimuloError, match="closed"):
        trainer.train(1)


def test_act_bad_observations(tmp_path: Path) -> None:
    trainer = _make(tmp_path)
    with pytest.raises(ShapeError, match=r"\(3, 5\)"):
        trainer.act(torch.zeros(3, 5))
    with pytest.raises(NonFiniteError):
        trainer.act([float("nan"), 0.0])


def test_config_is_frozen() -> None:
    config = PPOConfig()
    with pytest.raises(AttributeError):
        config.gamma = 0.5  # type: ignore[misc]
