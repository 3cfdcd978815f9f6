"""Bad input to RLTrainer and friends: clear SimuloErrors naming the value; the SDK's signature."""

from __future__ import annotations

import inspect
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
from rl_toy_envs import PointMassEnv

from simulo.errors import MissingDependencyError, NonFiniteError, ShapeError, SimuloError, SimuloValueError
from simulo.rl.training import PolicyPlayer, RLPlayer, RLTrainer


def _make(tmp_path: Path, env: Any = None, **kwargs: Any) -> RLTrainer:
    kwargs.setdefault("device", "cpu")
    return RLTrainer(env if env is not None else PointMassEnv(num_envs=4), checkpoint_dir=tmp_path, progress=False,
                     **kwargs)


def test_signature_is_the_sdks() -> None:
    """``simulo.RLTrainer`` of SDK 0.34.0 (its facade), with local options keyword-only after them."""
    params = inspect.signature(RLTrainer).parameters
    positional = [(p.name, p.default) for p in params.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional == [("env", inspect.Parameter.empty), ("algorithm", "PPO"), ("device", "cuda"), ("seed", 42),
                          ("log_dir", None), ("ml_framework", "torch"), ("agent_cfg", None),
                          ("debug_on_anomaly", None)]
    train = inspect.signature(RLTrainer.train).parameters
    assert [(p.name, p.default, p.kind.name) for p in list(train.values())[1:]] == [
        ("max_iterations", 1000, "POSITIONAL_OR_KEYWORD"), ("checkpoint_dir", None, "KEYWORD_ONLY"),
        ("checkpoint_every", None, "KEYWORD_ONLY"), ("keep_last", None, "KEYWORD_ONLY")]
    for method in ("save", "load", "export_policy", "close"):
        assert callable(getattr(RLTrainer, method))


@pytest.mark.parametrize("algorithm", ["SAC", "", None, 3])
def test_unknown_algorithm(tmp_path: Path, algorithm: Any) -> None:
    with pytest.raises(SimuloValueError, match=rf"algorithm={algorithm!r}.*PPO"):
        _make(tmp_path, algorithm=algorithm)


def test_algorithm_case_insensitive(tmp_path: Path) -> None:
    assert _make(tmp_path, algorithm="ppo").algorithm == "PPO"


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"seed": -1}, "seed=-1"),
        ({"seed": 1.5}, "seed=1.5"),
        ({"ml_framework": "jax"}, "ml_framework='jax'"),
        ({"resume": "yes"}, "resume='yes'"),
        ({"torch_threads": 0}, "torch_threads=0"),
        ({"device": "tpu"}, "device='tpu'"),
        ({"hidden_layers": ()}, "hidden_layers=()"),
        ({"agent_cfg": [("rollouts", 4)]}, "agent_cfg=[("),
    ],
)
def test_bad_constructor_arguments(tmp_path: Path, kwargs: dict[str, Any], text: str) -> None:
    with pytest.raises(SimuloValueError, match=text.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")
                       .replace("[", r"\[")):
        _make(tmp_path, **kwargs)


def test_enabled_debug_on_anomaly_is_not_implemented(tmp_path: Path) -> None:
    class Capture:
        enabled = True

    class Disabled:
        enabled = False

    with pytest.raises(NotImplementedError, match="debug_on_anomaly"):
        _make(tmp_path, debug_on_anomaly=Capture())
    assert _make(tmp_path, debug_on_anomaly=Disabled()).algorithm == "PPO"


def test_not_an_env(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match="lacks"):
        _make(tmp_path, env=object())
    env = PointMassEnv(num_envs=4)
    env.num_envs = 0
    with pytest.raises(SimuloValueError, match="env.num_envs=0"):
        _make(tmp_path, env=env)


@pytest.mark.parametrize("module", ["torch", "skrl"])
def test_missing_dependency(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    env = PointMassEnv(num_envs=4)
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingDependencyError, match=r"simulo-local\[train\]"):
        _make(tmp_path / "run", env=env)
    assert not (tmp_path / "run").exists()


def test_player_takes_the_sdks_ml_framework_torch_only(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match="ml_framework='jax': expected 'torch'"):
        RLPlayer(PointMassEnv(num_envs=4), tmp_path / "x.pt", ml_framework="jax")
    assert [(p.name, p.default) for p in list(inspect.signature(RLPlayer).parameters.values())[2:]] == [
        ("device", "cuda"), ("ml_framework", "torch")]


def test_player_without_torch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependencyError, match=r"simulo-local\[train\]"):
        PolicyPlayer.from_checkpoint(tmp_path / "x.pt")


def test_lean_import_without_torch() -> None:
    code = (
        "import sys, simulo\n"
        "assert 'simulo.rl.training' not in sys.modules\n"
        "simulo.RLTrainer, simulo.PolicyPlayer, simulo.RLPlayer\n"
        "assert 'torch' not in sys.modules and 'skrl' not in sys.modules, 'torch or skrl imported'\n"
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
