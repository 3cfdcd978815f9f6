"""Export a trained policy as a file that runs without this package: ONNX or TorchScript (imports torch).

The file holds the deterministic actor of :class:`~simulo.rl.training.networks.DeterministicActor`: raw
policy inputs ``obs`` ``(batch, observation_dim)`` float32 in, clipped actions ``actions``
``(batch, action_dim)`` out, the state standardisation folded in. Load it with
``onnxruntime.InferenceSession(path)`` or ``torch.jit.load(path)``. A policy with image inputs
(:class:`~simulo.rl.training.actors.ImageActor`) takes one input per declared actor input instead, named
as declared and in declared order: images uint8 ``(batch, H, W, 3)``, numeric inputs float32
``(batch, *shape)``; the image conversion to floats happens inside the model.

:func:`export_checkpoint` exports a checkpoint file (``best.pt``, ``latest.pt``) without a trainer:
``simulo export ID --format onnx|torchscript`` calls it.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import torch

from simulo.errors import SimuloValueError
from simulo.rl.training.actors import ImageActor, actor_from_spec
from simulo.rl.training.checkpoints import read_checkpoint
from simulo.rl.training.deps import require_onnx
from simulo.rl.training.networks import DeterministicActor

FORMATS = ("onnx", "torchscript")
SUFFIXES = {".onnx": "onnx", ".pt": "torchscript", ".ts": "torchscript"}
ONNX_OPSET = 17


def export_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The export format for ``path``: ``format`` when given, else from the suffix (``.onnx``, ``.pt``, ``.ts``).

    Raises:
        SimuloValueError: ``format`` is not one of :data:`FORMATS`, or the suffix names none.
    """
    if format is not None:
        if format not in FORMATS:
            raise SimuloValueError(f"format={format!r}: expected one of {FORMATS}")
        return format
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise SimuloValueError(f"export path {str(path)!r}: expected a name ending in one of {sorted(SUFFIXES)} "
                               "(.onnx for ONNX, .pt or .ts for TorchScript)")
    return SUFFIXES[suffix]


def export_actor(actor: DeterministicActor | ImageActor, path: str | os.PathLike[str],
                 format: str | None = None) -> str:
    """Write ``actor`` to ``path`` as ONNX or TorchScript (see :func:`export_format`); return the path written.

    Raises:
        SimuloValueError: The format cannot be told or is unknown.
        MissingDependencyError: ONNX export without onnx installed.
    """
    kind = export_format(path, format)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    actor = actor.cpu().eval()
    names, example = _example(actor)
    if kind == "onnx":
        require_onnx()
        axes = {name: {0: "batch"} for name in (*names, "actions")}
        with warnings.catch_warnings():  # the TorchScript-based exporter needs no onnxscript; it is deprecated
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(actor, example, str(target), dynamo=False, input_names=list(names),
                              output_names=["actions"], dynamic_axes=axes, opset_version=ONNX_OPSET)
    else:
        with torch.no_grad(), warnings.catch_warnings():  # TorchScript is deprecated, still what torch.jit.load reads
            warnings.simplefilter("ignore", DeprecationWarning)
            traced = torch.jit.trace(actor, example)
            traced.save(str(target))
    return str(target)


def _example(actor: DeterministicActor | ImageActor) -> tuple[tuple[str, ...], tuple[torch.Tensor, ...]]:
    """The model's input names and a batch of one zero input each (uint8 for images)."""
    if isinstance(actor, ImageActor):
        return actor.names, tuple(torch.zeros(1, *spec.shape, dtype=torch.uint8 if spec.kind == "image" else None)
                                  for spec in actor.inputs)
    return ("obs",), (torch.zeros(1, actor.input_dim),)


def load_actor(checkpoint_path: str | os.PathLike[str],
               map_location: str | torch.device = "cpu") -> DeterministicActor | ImageActor:
    """The deterministic actor kept in a trainer checkpoint.

    Raises:
        SimuloValueError: The file is not a trainer checkpoint, or it keeps no standalone actor (its state
            preprocessor could not be folded in).
    """
    payload = read_checkpoint(checkpoint_path, map_location=map_location)
    spec = payload.get("actor")
    if spec is None:
        raise SimuloValueError(f"checkpoint {str(checkpoint_path)!r} keeps no standalone actor: its policy used a "
                               "state_preprocessor other than skrl's RunningStandardScaler or None")
    try:
        return actor_from_spec(spec).to(map_location)
    except SimuloValueError as exc:
        raise SimuloValueError(f"checkpoint {str(checkpoint_path)!r}: {exc}") from exc


def describe_inputs(checkpoint_path: str | os.PathLike[str]) -> str:
    """The exported model's inputs, e.g. ``input 'obs' (batch, 4) float32``, comma-separated, for messages.

    Raises:
        SimuloValueError: The checkpoint is unusable.
    """
    actor = load_actor(checkpoint_path)
    names, example = _example(actor)
    return ", ".join(f"input {name!r} (batch, {', '.join(map(str, x.shape[1:]))}) {str(x.dtype).removeprefix('torch.')}"
                     for name, x in zip(names, example, strict=True))


def export_checkpoint(checkpoint_path: str | os.PathLike[str], out_path: str | os.PathLike[str],
                      format: str | None = None) -> str:
    """Export the policy of a trainer checkpoint (``best.pt``, ``latest.pt``) without a trainer.

    Args:
        checkpoint_path: The checkpoint file.
        out_path: The file to write.
        format: ``"onnx"`` or ``"torchscript"``; ``None`` takes it from ``out_path``'s suffix.

    Returns:
        The path written.

    Raises:
        SimuloValueError: The checkpoint is unusable or the format is unknown.
        MissingDependencyError: ONNX export without onnx installed.
    """
    kind = export_format(out_path, format)
    return export_actor(load_actor(checkpoint_path), out_path, kind)
