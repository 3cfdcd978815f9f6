"""Setup of the scale-out tests: a local Ray cluster per test module, and the cartpole sample task.

Each module that asks for ``ray_cluster`` starts ``ray.init(num_cpus=2)`` once and shuts it down after
its last test. ``cartpole_task`` is the sample app's task module, imported from ``samples/cartpole``
(not an installed package: the scale code ships it to the workers by value).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SAMPLES = Path(__file__).parents[2] / "samples" / "cartpole"


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A two-CPU local Ray cluster for the module's tests (skipped without Ray)."""
    ray = pytest.importorskip("ray")

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def cartpole_task() -> ModuleType:
    """``samples/cartpole/task.py``, imported as module ``cartpole_sample_task``."""
    pytest.importorskip("torch")
    name = "cartpole_sample_task"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SAMPLES / "task.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
