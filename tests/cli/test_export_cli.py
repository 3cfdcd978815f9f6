"""``simulo export POLICY --format torchscript`` or ``-o FILE.onnx``: a file that runs without simulo acts as the
checkpoint does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.cli.main import main as simulo_main
from simulo.platform import policy_registry
from tests.platform.policy_runs import best_iteration, train_balance

pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.load` is deprecated:DeprecationWarning")

OBS = [[0.1, 0.0, 0.0, 0.0], [-0.3, 1.0, 0.5, -0.2], [0.05, -2.0, -1.0, 0.4]]

# Runs in a fresh interpreter: only onnxruntime or torch, never simulo.
_LOAD = """
import json, sys
import numpy as np
kind, path, obs = sys.argv[1], sys.argv[2], np.array(json.loads(sys.argv[3]), dtype=np.float32)
if kind == "onnx":
    import onnxruntime
    actions = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(["actions"], {"obs": obs})[0]
else:
    import torch
    actions = torch.jit.load(path)(torch.from_numpy(obs)).detach().numpy()
assert not any(name == "simulo" or name.startswith("simulo.") for name in sys.modules), "simulo was imported"
print(json.dumps(actions.tolist()))
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A runs folder holding one registered training run of the fixture app (trained in this process)."""
    runs = tmp_path_factory.mktemp("runs")
    train_balance(runs)
    return runs


def policy_id(root: Path) -> str:
    return policy_registry.all_policies(root)[0].policy_id


def export(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = simulo_main(["export", *argv, "--runs-dir", str(root)])
    out, err = capsys.readouterr()
    return code, out, err


def run_outside(kind: str, path: str) -> np.ndarray:
    out = subprocess.run([sys.executable, "-c", _LOAD, kind, path, json.dumps(OBS)], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    return np.array(json.loads(out), dtype=np.float32)


def checkpoint_actions(root: Path, reference: str) -> np.ndarray:
    player = simulo.PolicyCheckpoint.resolve(reference, root / "balance").load()
    return np.asarray(player(np.array(OBS, dtype=np.float32), deterministic=True), dtype=np.float32)


@pytest.mark.parametrize(("fmt", "kind"), [("torchscript", "latest"), ("onnx", "best")])
def test_exported_file_gives_the_checkpoints_deterministic_actions(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, kind: str
) -> None:
    if fmt == "onnx":
        pytest.importorskip("onnx")
        pytest.importorskip("onnxruntime")
    reference = f"{policy_id(root)}:{kind}"
    # -o FILE.onnx: the bare model (without it, ONNX is the SDK's bundle: tests/platform/test_export_bundle.py)
    output = str(tmp_path / "model.onnx") if fmt == "onnx" else str(tmp_path) + "/"
    code, out, err = export(capsys, root, reference, "--format", fmt, "-o", output, "--json")
    assert code == 0, err
    written = json.loads(out)
    target = tmp_path / "model.onnx" if fmt == "onnx" else tmp_path / f"{policy_id(root)}-{kind}.ts"
    assert written["output"] == str(target)
    assert (written["checkpoint"], written["observation_dim"], written["action_dim"]) == (reference, 4, 1)
    np.testing.assert_allclose(run_outside(fmt, written["output"]), checkpoint_actions(root, reference),
                               atol=1e-5)


def test_default_name_and_text_output(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = export(capsys, root, "latest", "--format", "torchscript")
    assert code == 0, err
    target = tmp_path / f"{policy_id(root)}-best.ts"  # latest: the newest policy; no kind: its best
    assert target.is_file()
    best = best_iteration(root)
    assert out.splitlines()[0] == f"Exported {policy_id(root)}:best (iteration {best}) as torchscript: {target}"


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["policy_quiet-cedar-7k3m4q:best"], 1, "no policy policy_quiet-cedar-7k3m4q under the runs folder"),
    (["job_quiet-cedar-7k3m4q:best"], 2, "job_quiet-cedar-7k3m4q is a job"),
    (["policy_x:best"], 2, "is not a policy ID"),
    ([], 2, "name the policy to export"),
    (["a", "b"], 2, "export takes one POLICY"),
    (["latest", "--format", "tensorrt"], 2, "--format 'tensorrt': expected one of onnx, torchscript"),
    (["latest", "--bogus"], 2, "unknown option '--bogus'"),
])
def test_errors_are_one_line(root: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int,
                             message: str) -> None:
    got, out, err = export(capsys, root, *argv)
    assert got == code and out == "" and message in err and err.count("\n") == 1
