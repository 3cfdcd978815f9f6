"""Export a policy checkpoint as the SDK's ONNX bundle (imports torch, onnx and onnxruntime).

:func:`export_bundle` writes the folder :mod:`simulo.platform.bundle_contract` describes, as the SDK's exporter
does: it converts the checkpoint's deterministic actor to ONNX in the actor's own tensor space (standardised numeric
inputs in, the unclipped action mean out; the standardisation and the action clip go to ``normalization.json``),
runs 100 seeded golden inputs through both the PyTorch actor and the ONNX graph (onnxruntime), and refuses the
export when they differ by more than the manifest's tolerance. The folder is assembled beside its destination and
moved into place only once complete, so a refused export leaves nothing, and an earlier bundle of the same name
is replaced only by a complete one.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from simulo._optional import require
from simulo.checks import is_real
from simulo.errors import SimuloValueError
from simulo.platform import bundle_contract as contract
from simulo.platform import policy_registry
from simulo.platform.policies import PolicyCheckpoint
from simulo.rl.training.actors import ImageActor
from simulo.rl.training.checkpoints import read_checkpoint
from simulo.rl.training.deps import EXPORT_HINT, require_onnx
from simulo.rl.training.export import ONNX_OPSET, load_actor

Actor = Any  # DeterministicActor | ImageActor
_TORCH_DTYPES = {"float32": torch.float32, "float64": torch.float64, "uint8": torch.uint8}


class ExportMismatchError(SimuloValueError):
    """The ONNX graph's actions differ from the PyTorch actor's beyond the tolerance (no bundle is written)."""


@dataclass(frozen=True)
class ExportedBundle:
    """A written bundle.

    Attributes:
        folder: The bundle folder (``<policy_name>-policy-<kind>``), or ``None`` when nothing was written.
        manifest: ``manifest.json``'s data.
        validation: The conversion check, as the SDK's ``PolicyExportValidation`` data.
    """

    folder: Path | None
    manifest: dict[str, Any]
    validation: dict[str, Any]


class _Graph(nn.Module):
    """The actor in its own tensor space: standardised numeric inputs in, the unclipped Gaussian mean out."""

    def __init__(self, actor: Actor) -> None:
        super().__init__()
        self.actor = actor

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        """Actions before the clip, for inputs already standardised as ``normalization.json`` says."""
        actor = self.actor
        if not isinstance(actor, ImageActor):
            return actor.net(inputs[0])
        images = [value for spec, value in zip(actor.inputs, inputs, strict=True) if spec.kind == "image"]
        numeric = [value.reshape(value.shape[0], -1).float()
                   for spec, value in zip(actor.inputs, inputs, strict=True) if spec.kind != "image"]
        x = torch.cat(numeric, dim=1) if numeric else inputs[0].new_zeros((inputs[0].shape[0], 0), dtype=torch.float32)
        return actor.core(images, x)


def export_bundle(checkpoint: PolicyCheckpoint, out_dir: str | os.PathLike[str], *, write: bool = True,
                  include_source: bool = True, exported_at: str | None = None, seed: int = 0) -> ExportedBundle:
    """Export ``checkpoint`` as an ONNX bundle in the folder ``out_dir`` (created if needed).

    Args:
        checkpoint: The resolved checkpoint.
        out_dir: Where the bundle folder goes.
        write: ``False`` converts and checks without writing anything (``simulo export --no-download``).
        include_source: Put the checkpoint file in the bundle as ``model.pt`` (byte for byte).
        exported_at: The manifest's export time (ISO 8601 UTC); now by default.
        seed: Seed of the golden inputs.

    Returns:
        The bundle written.

    Raises:
        SimuloValueError: The checkpoint keeps no exportable actor, or the destination holds something that is
            not an earlier bundle.
        ExportMismatchError: The conversion changed the actions beyond the tolerance.
        MissingDependencyError: onnx or onnxruntime is not installed.
    """
    require_onnx()
    onnxruntime = require("onnxruntime", "ONNX bundle export", what="onnxruntime", install_hint=EXPORT_HINT)
    actor = load_actor(checkpoint.path).cpu().eval()
    facts, components = _facts(checkpoint, actor, include_source, exported_at)
    destination = Path(out_dir) / contract.root_dir(facts)
    if write:
        _check_replaceable(destination)
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out_dir if write else None, prefix=f".{destination.name}."))
    try:
        graph = _Graph(actor).eval()
        inputs = _golden_inputs(actor, facts, seed)
        tensors = tuple(torch.from_numpy(inputs[t.name]) for t in facts.inputs)
        with torch.no_grad():
            expected = graph(*tensors).numpy().astype(np.float32)
        _onnx_export(graph, facts, tensors, staging / contract.MODEL_FILE)
        session = onnxruntime.InferenceSession(str(staging / contract.MODEL_FILE), providers=["CPUExecutionProvider"])
        actual = np.asarray(session.run(["actions"], inputs)[0], dtype=np.float32)
        validation = _validation(facts, actual, expected)
        if validation["verdict"] != "passed":
            raise ExportMismatchError(
                f"export of {checkpoint.checkpoint}: the ONNX graph's actions differ from the policy's by up to "
                f"{validation['max_absolute_difference']:.3g} (tolerance {contract.ABS_TOLERANCE:g}); "
                "no bundle was written (export_equivalence_mismatch)")
        document = contract.manifest(facts)
        if write:
            _write_files(staging, checkpoint, facts, components, document, inputs, expected)
            staging.chmod(0o755)  # mkdtemp's folder is private; a bundle is an ordinary folder
            if destination.exists():
                shutil.rmtree(destination)
            os.replace(staging, destination)
        return ExportedBundle(destination if write else None, document, validation)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _facts(checkpoint: PolicyCheckpoint, actor: Actor, include_source: bool, exported_at: str | None
           ) -> tuple[contract.BundleFacts, list[tuple[str, tuple[int, ...]]]]:
    payload = read_checkpoint(checkpoint.path)
    schema = payload.get("policy_input_schema") or {}
    declared = [dict(spec) for spec in schema.get("actor") or []]
    if isinstance(actor, ImageActor):
        by_name = {spec["name"]: spec for spec in declared}
        named = tuple(by_name.get(s.name, {"name": s.name, "shape": list(s.shape), "kind": s.kind,
                                           "dtype": "uint8" if s.kind == "image" else "float32", "camera": None,
                                           "preprocessing": s.preprocessing}) for s in actor.inputs)
        inputs = tuple(contract.GraphTensor(s.name, str(spec["dtype"]), (None, *s.shape))
                       for s, spec in zip(actor.inputs, named, strict=True))
        components: list[tuple[str, tuple[int, ...]]] = []
    else:
        named = ()
        inputs = (contract.GraphTensor("obs", "float32", (None, actor.input_dim)),)
        components = [(str(s["name"]), tuple(int(d) for d in s["shape"])) for s in declared]
        if not components or sum(math.prod(shape) for _, shape in components) != actor.input_dim:
            components = [("observations", (actor.input_dim,))]
    record = policy_registry.read_record(checkpoint.path.parent.parent) or {}
    name = str(record.get("app") or (checkpoint.task_name if checkpoint.task_name != contract.UNKNOWN
                                     else checkpoint.path.stem))
    size = checkpoint.path.stat().st_size
    algorithm = checkpoint.meta.get("algorithm")
    period = payload.get("control_period_s")  # seconds per policy step, when the trainer recorded it
    facts = contract.BundleFacts(
        policy_name=contract.policy_name_token(name),
        model_kind=checkpoint.kind if checkpoint.kind in contract.KINDS else "latest",
        job_id=str(record.get("run_dir") or checkpoint.policy_id),
        model_id=checkpoint.checkpoint,
        checkpoint_name=checkpoint.path.name,
        checkpoint_sha256=hashlib.sha256(checkpoint.path.read_bytes()).hexdigest(),
        algorithm=str(algorithm).lower() if algorithm else contract.UNKNOWN,
        inputs=inputs,
        outputs=(contract.GraphTensor("actions", "float32", (None, actor.action_dim)),),
        named_inputs=named,
        action_limit=float(actor.action_limit),
        mean=tuple(float(v) for v in actor.mean.tolist()) if actor.normalize else (),
        std=tuple(float(v) for v in actor.scale.tolist()) if actor.normalize else (),
        clip_observations=float(actor.clip) if actor.normalize else None,
        exported_at=exported_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        includes_source=include_source and size <= contract.MAX_BUNDLE_BYTES // 2,
        opset=ONNX_OPSET,
        control_period_s=float(period) if is_real(period, 0.0, low_open=True) else None,
    )
    return facts, components


def _golden_inputs(actor: Actor, facts: contract.BundleFacts, seed: int) -> dict[str, np.ndarray]:
    """Seeded inputs in the graph's own space: images uniform bytes, numeric inputs standard normal (clipped
    to ``±clip_observations`` where the policy standardises them)."""
    rng = np.random.default_rng(seed)
    clip = facts.clip_observations
    out: dict[str, np.ndarray] = {}
    for tensor in facts.inputs:
        shape = (contract.GOLDEN_VECTORS, *(int(d) for d in tensor.shape[1:] if d is not None))
        if tensor.dtype == "uint8":
            out[tensor.name] = rng.integers(0, 256, size=shape, dtype=np.uint8)
        else:
            values = rng.standard_normal(shape)
            out[tensor.name] = (values if clip is None else np.clip(values, -clip, clip)).astype(tensor.dtype)
    return out


def _onnx_export(graph: _Graph, facts: contract.BundleFacts, example: tuple[torch.Tensor, ...], path: Path) -> None:
    names = [t.name for t in facts.inputs]
    axes = {name: {0: "batch"} for name in (*names, "actions")}
    with warnings.catch_warnings():  # the TorchScript-based exporter needs no onnxscript; it is deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(graph, tuple(t[:1] for t in example), str(path), dynamo=False, input_names=names,
                          output_names=["actions"], dynamic_axes=axes, opset_version=facts.opset)


def _validation(facts: contract.BundleFacts, actual: np.ndarray, expected: np.ndarray) -> dict[str, Any]:
    """The SDK's ``PolicyExportValidation`` of the conversion check."""
    difference = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    within = difference <= contract.ABS_TOLERANCE + contract.REL_TOLERANCE * np.abs(expected.astype(np.float64))
    passed = int(within.reshape(len(expected), -1).all(axis=1).sum())
    ok = actual.shape == expected.shape and passed == len(expected)
    return {"schema_version": facts.schema_version, "verdict": "passed" if ok else "failed",
            "vectors_compared": len(expected), "vectors_passed": passed,
            "max_absolute_difference": float(difference.max()), "absolute_tolerance": contract.ABS_TOLERANCE,
            "failure_reason": None if ok else "export_equivalence_mismatch"}


def _write_files(folder: Path, checkpoint: PolicyCheckpoint, facts: contract.BundleFacts,
                 components: list[tuple[str, tuple[int, ...]]], document: dict[str, Any],
                 inputs: dict[str, np.ndarray], expected: np.ndarray) -> None:
    texts = {
        contract.MANIFEST_FILE: contract.to_json(document),
        contract.OBSERVATION_FILE: contract.to_json(contract.observation_schema(facts, components)),
        contract.ACTION_FILE: contract.to_json(contract.action_schema(facts)),
        contract.NORMALIZATION_FILE: contract.to_json(contract.normalization(facts)),
        contract.REQUIREMENTS_FILE: contract.REQUIREMENTS,
        contract.README_FILE: contract.readme(facts),
    }
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    single = facts.schema_version == contract.SCHEMA_V1 and len(facts.inputs) == 1
    arrays: dict[str, Any] = {(contract.INPUTS_KEY if single else f"{contract.INPUTS_KEY}.{name}"): value
                              for name, value in inputs.items()}
    arrays[contract.EXPECTED_KEY] = expected
    np.savez(folder / contract.VECTORS_FILE, **arrays)
    shutil.copyfile(Path(__file__).with_name("bundle_verify.py"), folder / contract.VERIFY_FILE)
    if facts.includes_source:
        shutil.copyfile(checkpoint.path, folder / contract.SOURCE_FILE)


def _check_replaceable(destination: Path) -> None:
    """Refuse a destination that exists and is not an earlier bundle (only bundle files, with a manifest)."""
    if not destination.exists():
        return
    if destination.is_symlink() or not destination.is_dir():
        raise SimuloValueError(f"{str(destination)!r} exists and is not a folder; move it aside or pass -o DIR")
    for entry in destination.iterdir():
        if entry.is_symlink() or not entry.is_file() or entry.name not in contract.FILES:
            raise SimuloValueError(f"{str(destination)!r} exists and is not an earlier bundle (it holds "
                                   f"{entry.name!r}); move it aside or pass -o DIR")
    if not (destination / contract.MANIFEST_FILE).is_file():
        raise SimuloValueError(f"{str(destination)!r} exists and is not an earlier bundle (no "
                               f"{contract.MANIFEST_FILE}); move it aside or pass -o DIR")
