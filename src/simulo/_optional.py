"""Optional dependencies (torch, Ray, Gymnasium, imageio, ...): imported on demand, with one clear error.

There is one way to report a missing optional dependency: :class:`~simulo.errors.MissingDependencyError`
(a ``SimuloError`` and an ``ImportError``) whose message names the feature that needs it and the command
that installs it. :func:`require` imports a module or raises it; :func:`missing_dependency` builds the same
error for code that must use a plain ``import`` statement (for example to subclass a class of the package,
which type checkers need to see).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from simulo.errors import MissingDependencyError

__all__ = ["EXTRAS", "install_command", "missing_dependency", "require"]

EXTRAS: dict[str, tuple[str, str]] = {
    "torch": ("PyTorch", "pip install torch==2.13.0 (or the extra: pip install 'simulo-local[train]')"),
    "ray": ("Ray", "pip install 'simulo-local[ray]' (or: pip install 'ray>=2.9')"),
    "gymnasium": ("Gymnasium", "pip install 'simulo-local[gym]'"),
    "imageio": ("imageio", "pip install 'simulo-local[video]'"),
    "tqdm": ("tqdm", "pip install 'simulo-local[train]'"),
    "imageio_ffmpeg": ("imageio-ffmpeg", "pip install 'simulo-local[video]'"),
    "mcap": ("mcap", "pip install 'simulo-local[record]'"),
    "google": ("protobuf", "pip install 'simulo-local[record]'"),
}
"""Top-level module -> (the package's name as people know it, the command that installs it)."""


def install_command(module: str) -> str:
    """The command that installs ``module`` (``"imageio.v2"`` -> the ``video`` extra; unknown: ``pip install``)."""
    top = module.split(".")[0]
    return EXTRAS[top][1] if top in EXTRAS else f"pip install {top}"


def missing_dependency(
    module: str, feature: str, what: str | None = None, install_hint: str | None = None
) -> MissingDependencyError:
    """The error that says ``feature`` needs ``module``, which is not installed, and how to install it.

    Args:
        module: The module that failed to import (``"torch"``, ``"imageio.v2"``).
        feature: What needs it, named in the message (``"simulo.RLTrainer"``).
        what: The package's name as people know it; defaults to the entry of :data:`EXTRAS`.
        install_hint: The command that installs it; defaults to the entry of :data:`EXTRAS`.

    Returns:
        The error, to be raised (``raise missing_dependency(...) from exc``).
    """
    top = module.split(".")[0]
    known_what = EXTRAS[top][0] if top in EXTRAS else top
    return MissingDependencyError(
        f"{feature} needs {what or known_what}, which is not installed: {install_hint or install_command(module)}"
    )


def require(module: str, feature: str, what: str | None = None, install_hint: str | None = None) -> ModuleType:
    """Import and return ``module``, or raise an error naming the feature and how to install it.

    Args:
        module: Module to import (``"torch"``, ``"ray"``, ``"imageio.v2"``).
        feature: What needs it, named in the error message.
        what: The package's name as people know it (``"PyTorch"``, ``"Ray"``); defaults from :data:`EXTRAS`.
        install_hint: The command that installs it; defaults from :data:`EXTRAS`.

    Raises:
        MissingDependencyError: The module is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing_dependency(module, feature, what, install_hint) from exc
