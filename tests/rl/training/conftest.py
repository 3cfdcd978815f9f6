"""Setup of the trainer tests: skip without torch or skrl; make the toy environments importable.

The suite runs with ``--import-mode=importlib``, so sibling helper modules are not on ``sys.path``;
``rl_toy_envs`` and ``camera_tasks`` are registered here (conftest files load before the test modules of their folder).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("skrl")

for _name in ("rl_toy_envs", "camera_tasks"):
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(_name, Path(__file__).with_name(f"{_name}.py"))
        assert _spec is not None and _spec.loader is not None
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)
