"""Export: the deterministic actor as ONNX or TorchScript, loaded without simulo, gives the trainer's actions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from rl_toy_envs import PointMassEnv

from simulo.errors import MissingDependencyError, SimuloValueError
from simulo.rl.training import RLTrainer
from simulo.rl.training.export import export_checkpoint

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.load` is deprecated:DeprecationWarning")

OBS = [[1.0, 0.5], [-2.0, 0.0], [0.3, -1.0], [4.0, 3.0]]

# Runs in a fresh interpreter: only onnxruntime or torch, never simulo.
_LOAD = """
import json, sys
import numpy as np
kind, path, obs = sys.argv[1], sys.argv[2], np.array(json.loads(sys.argv[3]), dtype=np.float32)
if kind == "onnx":
    import onnxruntime
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["obs"]
    actions = session.run(["actions"], {"obs": obs})[0]
else:
    import torch
    actions = torch.jit.load(path)(torch.from_numpy(obs)).detach().numpy()
assert not any(name == "simulo" or name.startswith("simulo.") for name in sys.modules), "simulo was imported"
print(json.dumps(actions.tolist()))
"""


@pytest.fixture(scope="module")
def trainer(tmp_path_factory: pytest.TempPathFactory) -> RLTrainer:
    directory = tmp_path_factory.mktemp("export")
    trained = RLTrainer(PointMassEnv(num_envs=16, seed=0), device="cpu", seed=0, checkpoint_dir=directory,
                        progress=False, agent_cfg={"rollouts": 8})
    trained.train(6)
    return trained


def _run_outside(kind: str, path: str) -> np.ndarray:
    out = subprocess.run([sys.executable, "-c", _LOAD, kind, path, json.dumps(OBS)], check=True,
                         capture_output=True, text=True).stdout
    return np.array(json.loads(out), dtype=np.float32)


@pytest.mark.parametrize(("suffix", "kind"), [(".onnx", "onnx"), (".pt", "torchscript"), (".ts", "torchscript")])
def test_exported_policy_matches_trainer(trainer: RLTrainer, tmp_path: Path, suffix: str, kind: str) -> None:
    if kind == "onnx":
        pytest.importorskip("onnxruntime")
        pytest.importorskip("onnx")
    written = trainer.export_policy(tmp_path / f"policy{suffix}")
    assert written == str(tmp_path / f"policy{suffix}")
    expected = trainer.act(np.array(OBS, dtype=np.float32))
    assert np.abs(expected).max() <= 1.0 and not np.allclose(expected, expected[0])  # a non-trivial policy
    np.testing.assert_allclose(_run_outside(kind, written), expected, rtol=1e-5, atol=1e-6)


def test_export_checkpoint_without_a_trainer(trainer: RLTrainer, tmp_path: Path) -> None:
    best = trainer.checkpoint_dir / "latest.pt"
    out = export_checkpoint(best, tmp_path / "from_checkpoint.bin", format="torchscript")
    expected = trainer.act(torch.tensor(OBS))
    np.testing.assert_allclose(torch.jit.load(out)(torch.tensor(OBS)).detach().numpy(), expected.numpy(),
                               rtol=1e-5, atol=1e-6)


def test_export_errors(trainer: RLTrainer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SimuloValueError, match=r"policy\.txt.*\.onnx for ONNX"):
        trainer.export_policy(tmp_path / "policy.txt")
    with pytest.raises(SimuloValueError, match="format='tflite'"):
        export_checkpoint(trainer.checkpoint_dir / "latest.pt", tmp_path / "p.onnx", format="tflite")
    with pytest.raises(SimuloValueError, match="does not exist"):
        export_checkpoint(tmp_path / "missing.pt", tmp_path / "p.pt")
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(MissingDependencyError, match=r"simulo-local\[export\]"):
        trainer.export_policy(tmp_path / "policy.onnx")
    assert not (tmp_path / "policy.onnx").exists()
