"""Optional dependencies (torch, Ray, ...): imported on demand, with one clear error when missing."""

from __future__ import annotations

import importlib
from types import ModuleType

from simulo.errors import MissingDependencyError


def require(module: str, feature: str, what: str, install_hint: str) -> ModuleType:
    """Import and return ``module``, or raise an error naming the feature and how to install it.

    Args:
        module: Module to import (``"torch"``, ``"ray"``).
        feature: What needs it, named in the error message.
        what: The package's name as people know it (``"PyTorch"``, ``"Ray"``).
        install_hint: The command that installs it.

    Raises:
        MissingDependencyError: The module is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(f"{feature} needs {what}, which is not installed: {install_hint}") from exc
