"""The optional torch dependency of the trainer (importable without torch)."""

from __future__ import annotations

from types import ModuleType

from simulo._optional import EXTRAS, require

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
