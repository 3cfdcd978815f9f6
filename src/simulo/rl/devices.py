"""Device names: where an environment's tensors live and where a trainer's networks run.

Apps written for a cloud GPU say ``device="cuda"``; here they run unchanged. An environment's batch
tensors are the engine's CPU buffers, so :func:`env_device` is always the CPU. A trainer's networks
may run on CUDA where it exists (:func:`torch_device`) and fall back to the CPU where it does not.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from simulo._optional import require
from simulo.errors import SimuloValueError

_CUDA_WARNED = False


def env_device(device: str) -> str:
    """Always ``"cpu"``: the batch tensors live in the engine's CPU buffers. Asking for CUDA warns once."""
    global _CUDA_WARNED
    if not isinstance(device, str) or not device:
        raise SimuloValueError(f"device must be a string such as 'cpu' or 'cuda', got {device!r}")
    if device == "cpu":
        return "cpu"
    if not device.startswith("cuda"):
        raise SimuloValueError(f"device must be 'cpu' or 'cuda[:N]', got {device!r}")
    if not _CUDA_WARNED:
        torch = sys.modules.get("torch")
        why = ("an environment's tensors live in CPU memory on every engine here (MuJoCo Warp on a GPU included: its "
               "state is copied to the host)" if torch is not None and torch.cuda.is_available()
               else "CUDA is not available here")
        warnings.warn(f"device={device!r} requested but {why}; running on the CPU", RuntimeWarning, stacklevel=3)
        _CUDA_WARNED = True
    return "cpu"


def torch_device(device: Any) -> Any:
    """Turn a device name into a ``torch.device``, falling back to the CPU where CUDA is missing.

    ``"cuda"`` (or ``"cuda:N"``) on a machine without CUDA issues one ``RuntimeWarning`` and
    returns the CPU, so that apps written for a cloud GPU run unchanged.

    Args:
        device: A device name such as ``"cpu"``, ``"cuda"`` or ``"cuda:0"``, or a ``torch.device``.

    Returns:
        The ``torch.device`` to use.

    Raises:
        SimuloValueError: The name is not a device torch knows.
    """
    torch = require("torch", "simulo.RLTrainer")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise SimuloValueError(f"device={device!r}: expected 'cpu', 'cuda' or 'cuda:N'") from exc
    if resolved.type == "cuda":
        if not torch.cuda.is_available():
            warnings.warn(f"device={device!r} requested but CUDA is not available; using the CPU", RuntimeWarning,
                          stacklevel=3)
            return torch.device("cpu")
        if resolved.index is not None and resolved.index >= torch.cuda.device_count():
            raise SimuloValueError(f"device={device!r}: only {torch.cuda.device_count()} CUDA device(s) exist")
    elif resolved.type != "cpu":
        raise SimuloValueError(f"device={device!r}: expected 'cpu', 'cuda' or 'cuda:N'")
    return resolved
