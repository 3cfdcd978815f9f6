"""The SDK's ONNX policy bundle (``simulo.policy-bundle.v1``/``v2`` of simulo-interfaces 0.25.0): names and files.

A bundle is one folder, ``<policy_name>-policy-<kind>`` (``cartpole-policy-best``), holding exactly these files:

=========================  ==========================================================================================
``model.onnx``             the actor in its own tensor space: standardised numeric inputs in, the unclipped action
                           mean ``actions`` out (images enter as uint8 and are converted inside the graph)
``model.pt``               the source checkpoint, byte for byte (the one optional member)
``manifest.json``          identity, provenance (checkpoint SHA-256), graph inputs and outputs, equivalence tolerance
``observation_schema.json``  what the inputs mean: flat components (v1) or the named actor inputs (v2)
``action_schema.json``     what the outputs mean, with their bounds
``normalization.json``     what a caller applies around the graph: ``(obs - mean) / std``, clipped to
                           ``±clip_observations``; the actions clipped to ``clip_actions``
``test_vectors.npz``       100 golden inputs (in the graph's own space) and the policy's outputs for them
``verify.py``              replays the golden vectors with onnxruntime and numpy only
``requirements.txt``       the two packages ``verify.py`` needs
``README.md``              how to verify and how to call the model
=========================  ==========================================================================================

Version 1 is a policy with one flat input ``obs``; version 2 a policy whose ``policy_input_schema`` declares
image inputs, with one graph input per declared actor input. The JSON files are written as the SDK writes them
(sorted keys, two-space indent), with the SDK's explicit ``"unknown"`` for facts a checkpoint does not record.
This module builds the JSON documents; :mod:`simulo.platform.export_bundle` assembles the folder. It imports
only the standard library.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SCHEMA_V1 = "simulo.policy-bundle.v1"
SCHEMA_V2 = "simulo.policy-bundle.v2"
MODEL_FILE, SOURCE_FILE, MANIFEST_FILE = "model.onnx", "model.pt", "manifest.json"
OBSERVATION_FILE, ACTION_FILE = "observation_schema.json", "action_schema.json"
NORMALIZATION_FILE, VECTORS_FILE = "normalization.json", "test_vectors.npz"
VERIFY_FILE, REQUIREMENTS_FILE, README_FILE = "verify.py", "requirements.txt", "README.md"
#: Every file a bundle may hold, in the SDK's listing order; all but ``model.pt`` are always there.
FILES = (MODEL_FILE, SOURCE_FILE, MANIFEST_FILE, OBSERVATION_FILE, ACTION_FILE, NORMALIZATION_FILE, VECTORS_FILE,
         VERIFY_FILE, REQUIREMENTS_FILE, README_FILE)
#: Largest total size of a bundle's files; the source checkpoint is left out first to stay under it.
MAX_BUNDLE_BYTES = 512 * 1024 * 1024
GOLDEN_VECTORS = 100
ABS_TOLERANCE = 1e-4
REL_TOLERANCE = 0.0
UNKNOWN = "unknown"
INPUTS_KEY, EXPECTED_KEY = "inputs", "expected_outputs"
KINDS = ("best", "latest")
#: The verification script's two dependencies, as the SDK's bundle pins floors for them.
REQUIREMENTS = "onnxruntime>=1.17\nnumpy>=1.24\n"
_TOKEN_KEEP = re.compile(r"[a-z0-9._-]+")
_TOKEN_MAX = 64


@dataclass(frozen=True)
class GraphTensor:
    """One input or output of the exported graph.

    Attributes:
        name: Its name in the graph.
        dtype: A numpy dtype name (``"float32"``, ``"uint8"``).
        shape: Its shape, ``None`` for the batch axis.
    """

    name: str
    dtype: str
    shape: tuple[int | None, ...]

    def to_dict(self) -> dict[str, Any]:
        """The SDK's ``PolicyTensorSpec`` as JSON data."""
        return {"name": self.name, "dtype": self.dtype, "shape": list(self.shape)}


@dataclass(frozen=True)
class BundleFacts:
    """What a bundle records about its policy.

    Attributes:
        policy_name: The app's name, reduced with :func:`policy_name_token`.
        model_kind: ``"best"`` or ``"latest"``.
        job_id: The training run that made the checkpoint (its run folder under the runs root).
        model_id: The checkpoint reference (``policy_x:best``), or the file.
        checkpoint_name: The checkpoint's file name (``best.pt``).
        checkpoint_sha256: Bare hex SHA-256 of the checkpoint file.
        algorithm: The training algorithm (``"ppo"``), or ``"unknown"``.
        inputs: The graph's inputs, in order.
        outputs: The graph's outputs, in order (one: ``actions``).
        named_inputs: The declared actor inputs (the SDK's ``PolicyInput`` data) of a version-2 bundle, else empty.
        action_limit: The actions are clipped to ``±action_limit``.
        mean: Per-element mean of the numeric inputs (empty: no standardisation).
        std: Per-element divisor of the numeric inputs, same length as ``mean``.
        clip_observations: Clip of the standardised numeric inputs, or ``None``.
        exported_at: ISO 8601 UTC time of the export (``2026-12-01T12:00:00Z``).
        includes_source: Whether ``model.pt`` is in the bundle.
        opset: The ONNX opset of the graph.
        control_period_s: Simulated seconds per policy step the policy was trained at, or ``None`` when its
            checkpoint does not say (checkpoints from before the trainer recorded it).
    """

    policy_name: str
    model_kind: str
    job_id: str
    model_id: str
    checkpoint_name: str
    checkpoint_sha256: str
    algorithm: str
    inputs: tuple[GraphTensor, ...]
    outputs: tuple[GraphTensor, ...]
    named_inputs: tuple[Mapping[str, Any], ...]
    action_limit: float
    mean: tuple[float, ...]
    std: tuple[float, ...]
    clip_observations: float | None
    exported_at: str
    includes_source: bool
    opset: int
    control_period_s: float | None = None

    @property
    def schema_version(self) -> str:
        """``simulo.policy-bundle.v2`` for named (image) inputs, else ``v1``."""
        return SCHEMA_V2 if self.named_inputs else SCHEMA_V1


def policy_name_token(name: str) -> str:
    """The SDK's reduction of a job name to the token a bundle is named after (``"Cart Pole!"`` -> ``"cart-pole"``):
    lowercase, runs outside ``[a-z0-9._-]`` become one ``-``, no leading or trailing separators, at most 64
    characters, ``"policy"`` when nothing is left."""
    token = "-".join(_TOKEN_KEEP.findall(name.lower()))
    token = re.sub(r"-{2,}", "-", token).strip("-.").lstrip("._-")
    if len(token) > _TOKEN_MAX:
        token = token[:_TOKEN_MAX].strip("-.")
    return token or "policy"


def root_dir(facts: BundleFacts) -> str:
    """The bundle folder's name: ``<policy_name>-policy-<model_kind>``."""
    return f"{facts.policy_name}-policy-{facts.model_kind}"


def to_json(document: Mapping[str, Any]) -> str:
    """A bundle file's text, as the SDK writes it (sorted keys, two-space indent)."""
    return json.dumps(document, indent=2, sort_keys=True)


def manifest(facts: BundleFacts) -> dict[str, Any]:
    """``manifest.json``: the SDK's ``OnnxBundleManifest``."""
    return {
        "schema_version": facts.schema_version,
        "export_format": "onnx",
        "export_format_version": f"opset-{facts.opset}",
        "exported_at": facts.exported_at,
        "policy_name": facts.policy_name,
        "model_kind": facts.model_kind,
        "includes_source_checkpoint": facts.includes_source,
        "source": {"job_id": facts.job_id, "model_id": facts.model_id, "checkpoint_name": facts.checkpoint_name,
                   "checkpoint_digest_sha256": facts.checkpoint_sha256, "algorithm": facts.algorithm},
        "inputs": [t.to_dict() for t in facts.inputs],
        "outputs": [t.to_dict() for t in facts.outputs],
        "state_inputs": [],
        "state_outputs": [],
        "control_period_s": UNKNOWN if facts.control_period_s is None else facts.control_period_s,
        "history": {"frames": 1, "includes_previous_action": False},
        "coordinate_frame": UNKNOWN,
        "equivalence": {"golden_vector_count": GOLDEN_VECTORS, "absolute_tolerance": ABS_TOLERANCE,
                        "relative_tolerance": REL_TOLERANCE},
    }


def observation_schema(facts: BundleFacts, components: Sequence[tuple[str, tuple[int, ...]]]) -> dict[str, Any]:
    """``observation_schema.json``: version 1 lists ``components`` (name, shape) of the flat input; version 2 the
    declared actor inputs."""
    if facts.named_inputs:
        return {"schema_version": SCHEMA_V2, "components": [], "inputs": [dict(spec) for spec in facts.named_inputs]}
    return {"schema_version": SCHEMA_V1, "components": [
        {"name": name, "shape": list(shape), "dtype": "float32", "units": UNKNOWN, "frame": UNKNOWN,
         "semantics": UNKNOWN} for name, shape in components]}


def action_schema(facts: BundleFacts) -> dict[str, Any]:
    """``action_schema.json``: one ``actions`` component, bounded by the action clip."""
    width = int(facts.outputs[0].shape[-1] or 0)
    return {"schema_version": facts.schema_version, "components": [
        {"name": "actions", "shape": [width], "dtype": "float32", "units": UNKNOWN, "frame": UNKNOWN,
         "bounds": {"low": [-facts.action_limit] * width, "high": [facts.action_limit] * width},
         "semantics": "the task's apply_actions() input, clipped to the bounds"}]}


def normalization(facts: BundleFacts) -> dict[str, Any]:
    """``normalization.json``: the standardisation of the numeric inputs and the action clip (always present)."""
    width = int(facts.outputs[0].shape[-1] or 0)
    return {"schema_version": facts.schema_version, "identity": False, "observation_mean": list(facts.mean),
            "observation_std": list(facts.std), "clip_observations": facts.clip_observations,
            "clip_actions": {"low": [-facts.action_limit] * width, "high": [facts.action_limit] * width}}


def readme(facts: BundleFacts) -> str:
    """``README.md``: how to verify the bundle and how to call its model."""
    names = ", ".join(f"`{t.name}` {t.dtype} {tuple('batch' if d is None else d for d in t.shape)}"
                      for t in facts.inputs)
    return f"""# {root_dir(facts)}

The ONNX export of `{facts.model_id}` (checkpoint `{facts.checkpoint_name}`, sha256 `{facts.checkpoint_sha256}`),
in the `{facts.schema_version}` bundle layout.

## Verify it on this machine

    python -m pip install -r {REQUIREMENTS_FILE}
    python {VERIFY_FILE}

`{VERIFY_FILE}` replays the {GOLDEN_VECTORS} golden vectors of `{VECTORS_FILE}` through `{MODEL_FILE}` and compares
the actions with those computed at export, within the tolerance `{MANIFEST_FILE}` records. It needs onnxruntime and
numpy only.

## Call the model

Inputs: {names}. Output: `actions` float32 (batch, {facts.outputs[0].shape[-1]}).

1. Standardise the numeric observation as `{NORMALIZATION_FILE}` says: `(obs - observation_mean) / observation_std`,
   then clip to `±clip_observations` (images go in unchanged, uint8 (batch, H, W, 3)).
2. Run `{MODEL_FILE}` (`onnxruntime.InferenceSession("{MODEL_FILE}").run(["actions"], {{...}})`).
3. Clip the actions to `clip_actions`; they are what the task's `apply_actions()` received in training.
"""
