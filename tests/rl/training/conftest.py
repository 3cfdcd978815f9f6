"""Setup of the trainer tests: skip without torch or skrl; make the toy environments importable.

The suite runs with ``--import-mode=importlib``, so sibling helper modules are not on ``sys.path``;
``rl_toy_envs`` is registered here (conftest files load before the test modules of their folder).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("skrl")

if "rl_toy_envs" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("rl_toy_envs", Path(__file__).with_name("rl_toy_envs.py"))
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["rl_toy_envs"] = _module
    _spec.loader.exec_module(_module)
