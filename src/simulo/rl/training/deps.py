"""The optional dependencies of training: torch, skrl, onnx (this module imports none of them)."""

from __future__ import annotations

from types import ModuleType

from simulo._optional import EXTRAS, require

INSTALL_HINT = EXTRAS["torch"][1]
SKRL_HINT = "pip install 'simulo-local[train]' (or: pip install skrl==1.4.3)"
EXPORT_HINT = "pip install 'simulo-local[export]' (or: pip install onnx==1.23.2 onnxruntime==1.32.0)"


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


def require_skrl(feature: str = "simulo.RLTrainer") -> ModuleType:
    """Import and return ``skrl`` (the PPO implementation of the trainer), or explain how to install it.

    Raises:
        MissingDependencyError: skrl (or torch) is not installed.
    """
    require_torch(feature)
    return require("skrl", feature, what="skrl", install_hint=SKRL_HINT)


def require_onnx(feature: str = "ONNX export") -> ModuleType:
    """Import and return ``onnx``, or explain how to install the ``export`` extra.

    Raises:
        MissingDependencyError: onnx is not installed.
    """
    return require("onnx", feature, what="onnx", install_hint=EXPORT_HINT)
