"""The optional torch dependency of the trainer, and device selection (importable without torch)."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

from simulo._optional import EXTRAS, require
from simulo.errors import SimuloValueError

INSTALL_HINT = EXTRAS["torch"][1]


def require_torch(feature: str = "simulo.RLTrainer") -> ModuleType:
    """Import and return ``torch``, or explain how to install it.

    Args:
        feature: What needs torch, named in the error message.

    Returns:
        The ``torch`` module.

    Raises:
        MissingDependencyError: torch is not installed.
    """
    return require("torch", feature)


def resolve_device(device: Any) -> Any:
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
    torch = require_torch()
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
