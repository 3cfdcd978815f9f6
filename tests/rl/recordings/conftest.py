"""Makes the recording tests' sibling helper modules importable.

* ``recording_tasks``: the tasks the recording tests share;
* ``vizstream_fields``: the VizStream messages and fields of simulo-viz 0.1.0, as facts.

The suite runs with ``--import-mode=importlib``, so sibling helper modules are not on ``sys.path``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

for _name in ("recording_tasks", "vizstream_fields"):
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(_name, Path(__file__).with_name(f"{_name}.py"))
        assert _spec is not None and _spec.loader is not None
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)
