"""Makes ``recording_tasks`` (the tasks the recording tests share) importable.

The suite runs with ``--import-mode=importlib``, so sibling helper modules are not on ``sys.path``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "recording_tasks" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("recording_tasks", Path(__file__).with_name("recording_tasks.py"))
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["recording_tasks"] = _module
    _spec.loader.exec_module(_module)
