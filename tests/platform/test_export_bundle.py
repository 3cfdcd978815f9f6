"""``simulo export`` writes the SDK's ONNX policy bundle: the SDK's own contract classes read and validate every
file, the bundled model with its normalization acts as the player does, ``verify.py`` replays the golden vectors
without simulo, the source checkpoint loads back, and a failed check or a foreign folder writes nothing."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simulo
from simulo.cli.main import main as simulo_main
from simulo.platform import policy_registry
from tests.platform.policy_runs import best_iteration, train_balance

pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
sdk = pytest.importorskip("simulo.interfaces.platform.onnx_bundle")
from simulo.platform.export_bundle import ExportMismatchError, export_bundle  # noqa: E402 - needs torch

RAW = np.array([[0.1, 0.0, 0.0, 0.0], [-0.3, 1.0, 0.5, -0.2], [0.05, -2.0, -1.0, 0.4], [2.0, 30.0, -1.5, 9.0]],
               dtype=np.float32)  # the last row's standardised values pass the ±5 clip
# Runs in a fresh interpreter from the bundle folder: verify.py, then proof that simulo was not imported.
_VERIFY = """
import runpy, sys
sys.argv = ["verify.py"]
try:
    runpy.run_path("verify.py", run_name="__main__")
except SystemExit as exit:
    assert not any(n == "simulo" or n.startswith("simulo.") for n in sys.modules), "simulo was imported"
    raise
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A runs folder with one registered run of the fixture app ``balance``."""
    folder = tmp_path_factory.mktemp("runs")
    train_balance(folder)
    return folder


@pytest.fixture(scope="module")
def bundle(runs: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[simulo.PolicyCheckpoint, Path]:
    """The run's best checkpoint and its bundle folder."""
    checkpoint = simulo.PolicyCheckpoint.resolve(f"{policy_id(runs)}:best", root=runs)
    written = export_bundle(checkpoint, tmp_path_factory.mktemp("out"))
    assert written.folder is not None
    return checkpoint, written.folder


def policy_id(runs: Path) -> str:
    return policy_registry.all_policies(runs)[0].policy_id


def read(folder: Path, name: str) -> str:
    return (folder / name).read_text(encoding="utf-8")


def test_the_bundle_holds_the_sdks_files_and_the_sdks_contract_accepts_them(bundle: tuple[Any, Path]) -> None:
    checkpoint, folder = bundle
    assert folder.name == "balance-policy-best"
    assert sorted(p.name for p in folder.iterdir()) == sorted(sdk.ONNX_BUNDLE_FILES)
    manifest = sdk.OnnxBundleManifest.from_json(read(folder, "manifest.json"))
    files = (manifest, sdk.PolicyObservationSchema.from_json(read(folder, "observation_schema.json")),
             sdk.PolicyActionSchema.from_json(read(folder, "action_schema.json")),
             sdk.PolicyNormalization.from_json(read(folder, "normalization.json")))
    sdk.validate_onnx_bundle(*files)
    for parsed, name in zip(files, ("manifest", "observation_schema", "action_schema", "normalization"),
                            strict=True):
        assert parsed.to_json() == read(folder, f"{name}.json")  # byte for byte as the SDK writes it
    assert sdk.onnx_bundle_root_dir(manifest) == folder.name
    assert (manifest.schema_version, manifest.model_kind, manifest.policy_name) == (sdk.ONNX_BUNDLE_SCHEMA_VERSION,
                                                                                    "best", "balance")
    assert [(t.name, t.shape) for t in manifest.inputs + manifest.outputs] == [("obs", (None, 4)),
                                                                              ("actions", (None, 1))]
    # the period of one policy step as trained (Balance keeps the Task defaults)
    assert manifest.control_period_s == simulo.Task.physics_dt * simulo.Task.physics_steps_per_action
    assert manifest.source.model_id == checkpoint.checkpoint and manifest.includes_source_checkpoint
    assert (folder / "model.pt").read_bytes() == checkpoint.path.read_bytes()
    assert manifest.source.checkpoint_digest_sha256 == hashlib.sha256(checkpoint.path.read_bytes()).hexdigest()
    with np.load(folder / "test_vectors.npz") as vectors:
        assert sorted(vectors) == ["expected_outputs", "inputs"]
        assert vectors["inputs"].shape == (100, 4) and vectors["expected_outputs"].shape == (100, 1)


def test_the_bundled_model_with_its_normalization_acts_as_the_player(bundle: tuple[Any, Path]) -> None:
    checkpoint, folder = bundle
    norm = json.loads(read(folder, "normalization.json"))
    standardised = np.clip((RAW - np.array(norm["observation_mean"])) / np.array(norm["observation_std"]),
                           -norm["clip_observations"], norm["clip_observations"]).astype(np.float32)
    session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    raw_actions = session.run(["actions"], {"obs": standardised})[0]
    actions = np.clip(raw_actions, norm["clip_actions"]["low"], norm["clip_actions"]["high"])
    expected = np.asarray(checkpoint.load("cpu")(RAW, deterministic=True), dtype=np.float32)
    np.testing.assert_allclose(actions, expected, atol=1e-5)
    # the bundle's source checkpoint is the same policy, loaded back as any checkpoint file
    again = simulo.PolicyCheckpoint.resolve(folder / "model.pt").load("cpu")
    np.testing.assert_array_equal(np.asarray(again(RAW, deterministic=True)), expected)


def test_verify_py_passes_without_simulo_and_fails_on_changed_vectors(bundle: tuple[Any, Path], tmp_path: Path
                                                                      ) -> None:
    _, folder = bundle
    done = subprocess.run([sys.executable, "-c", _VERIFY], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "✓ 100 golden inference vectors passed"  # the SDK's lines
    assert done.stdout.splitlines()[1].startswith("✓ Maximum action difference: ")
    copy = tmp_path / folder.name
    copy.mkdir()
    for file in folder.iterdir():
        copy.joinpath(file.name).write_bytes(file.read_bytes())
    with np.load(copy / "test_vectors.npz") as vectors:
        arrays = dict(vectors)
    arrays["expected_outputs"][7] += 1e-3
    np.savez(copy / "test_vectors.npz", **arrays)
    failed = subprocess.run([sys.executable, "-c", _VERIFY], cwd=copy, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    assert failed.stdout.splitlines()[0] == "✗ 99 of 100 golden inference vectors passed"
    assert "export_local_validation_failed" in failed.stderr


def test_a_conversion_that_changes_the_actions_writes_nothing(runs: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    checkpoint = simulo.PolicyCheckpoint.resolve(f"{policy_id(runs)}:latest", root=runs)
    run = ort.InferenceSession.run
    monkeypatch.setattr(ort.InferenceSession, "run", lambda self, *a, **k: [x + 1e-3 for x in run(self, *a, **k)])
    with pytest.raises(ExportMismatchError, match="differ from the policy's by up to 0.001"):
        export_bundle(checkpoint, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_earlier_bundle_is_replaced_and_a_foreign_folder_is_not(bundle: tuple[Any, Path], tmp_path: Path) -> None:
    checkpoint, _ = bundle
    first = export_bundle(checkpoint, tmp_path, exported_at="2026-01-01T00:00:00Z").folder
    assert first is not None
    second = export_bundle(checkpoint, tmp_path, exported_at="2026-02-01T00:00:00Z").folder
    assert second == first and json.loads(read(first, "manifest.json"))["exported_at"] == "2026-02-01T00:00:00Z"
    (first / "notes.txt").write_text("mine")
    with pytest.raises(simulo.SimuloValueError, match="is not an earlier bundle .it holds 'notes.txt'"):
        export_bundle(checkpoint, tmp_path)
    assert (first / "notes.txt").read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == [first.name]


def test_simulo_export_writes_the_bundle_and_says_how_to_verify_it(runs: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    reference = f"{policy_id(runs)}:best"
    assert simulo_main(["export", reference, "-o", str(tmp_path), "--runs-dir", str(runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    folder = tmp_path / "balance-policy-best"
    assert lines[0] == (f"Exported {reference} (iteration {best_iteration(runs)}) as an ONNX bundle "
                        "(simulo.policy-bundle.v1)")
    assert lines[1].startswith("Export validation: PASSED (100 of 100 golden vectors, maximum action difference ")
    assert lines[2:] == ["ONNX bundle written:", f"  {folder}", "Verify it on this machine:", f"  cd {folder}",
                         "  python -m pip install -r requirements.txt", "  python verify.py"]
    assert (folder / "manifest.json").is_file()
    assert simulo_main(["export", reference, "--json", "--no-download", "-o", str(tmp_path / "none"),
                        "--runs-dir", str(runs)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["verdict"], result["bundle_dir"]) == ("passed", None) and not (tmp_path / "none").exists()
    sdk.PolicyExportValidation.from_json(json.dumps(result["export"]["validation"]))
    assert simulo_main(["export", reference, "--format", "torchscript", "--no-download",
                        "--runs-dir", str(runs)]) == 2
    assert capsys.readouterr().err.startswith("simulo export: error: --no-download goes with the ONNX bundle")


@pytest.mark.slow
def test_an_image_policy_exports_as_a_named_input_bundle(tmp_path: Path) -> None:
    from simulo.rl.training import RLTrainer  # noqa: PLC0415
    from tests.rl.training.camera_tasks import camera_cartpole  # noqa: PLC0415

    task = camera_cartpole(16)()
    env = simulo.LearningEnv(task, num_envs=3, seed=0, enable_cameras=True)
    try:
        trainer = RLTrainer(env, device="cpu", seed=0, checkpoint_dir=tmp_path / "train", progress=False,
                            agent_cfg={"rollouts": 4, "mini_batches": 2, "learning_epochs": 1})
        trainer.train(1)
        trainer.close()
        policy_inputs = task.get_policy_inputs()
        inputs = {name: np.asarray(value) for name, value in policy_inputs.items()}
    finally:
        env.close()
    checkpoint = simulo.PolicyCheckpoint.resolve(tmp_path / "train" / "latest.pt")
    folder = export_bundle(checkpoint, tmp_path / "out").folder
    assert folder is not None
    files = (sdk.OnnxBundleManifest.from_json(read(folder, "manifest.json")),
             sdk.PolicyObservationSchema.from_json(read(folder, "observation_schema.json")),
             sdk.PolicyActionSchema.from_json(read(folder, "action_schema.json")),
             sdk.PolicyNormalization.from_json(read(folder, "normalization.json")))
    sdk.validate_onnx_bundle(*files)
    assert files[0].schema_version == sdk.ONNX_BUNDLE_NAMED_INPUT_SCHEMA_VERSION
    assert [(i.name, i.kind, i.dtype) for i in files[1].inputs] == [("image", "image", "uint8"),
                                                                    ("velocities", "numeric", "float32")]
    with np.load(folder / "test_vectors.npz") as vectors:
        assert sorted(vectors) == ["expected_outputs", "inputs.image", "inputs.velocities"]
    norm = files[3]
    velocities = np.clip((inputs["velocities"] - np.array(norm.observation_mean))
                         / np.array(norm.observation_std), -norm.clip_observations, norm.clip_observations)
    session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    raw = session.run(["actions"], {"image": inputs["image"], "velocities": velocities.astype(np.float32)})[0]
    assert norm.clip_actions is not None
    actions = np.clip(raw, norm.clip_actions.low, norm.clip_actions.high)
    expected = np.asarray(checkpoint.load("cpu")(policy_inputs, deterministic=True))
    np.testing.assert_allclose(actions, expected, atol=1e-5)
