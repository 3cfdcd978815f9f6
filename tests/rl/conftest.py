"""Makes ``report_shapes`` (the SDK report shape check the preview and evaluation tests share) importable.

The suite runs with ``--import-mode=importlib``, so sibling helper modules are not on ``sys.path``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "report_shapes" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("report_shapes", Path(__file__).with_name("report_shapes.py"))
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["report_shapes"] = _module
    _spec.loader.exec_module(_module)
