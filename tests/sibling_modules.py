"""Registers a test folder's helper modules under their bare names, for the conftest files that need it.

The suite runs with ``--import-mode=importlib``, so a test module's sibling helper modules are not on
``sys.path``; a folder's conftest calls :func:`register` (conftest files load before the test modules of their
folder) and its tests then write ``from rl_toy_envs import ...``.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path


def register(folder: Path, names: Iterable[str]) -> None:
    """Import ``folder/<name>.py`` as the module ``name`` for each of ``names`` not imported yet."""
    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
