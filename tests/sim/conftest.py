"""Engines of the behaviour suites: the ``engine`` fixture, and the engine differences table applied to them.

``engine`` runs a test once per engine of :data:`engine_differences.ENGINES`, with ``SIMULO_ENGINE`` set, so
every Simulation and LearningEnv the test builds without naming an engine is built on it. The sensor and
controller suites use it for every test (their conftest files), the property tests by a module mark; the
contract suite has its own ``engine`` fixture (with its mock engine). For any test with an engine parameter,
the table of ``tests/engine_differences.py`` says where the outcome differs, and the hook below holds the
test to it.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest


def _differences() -> Any:
    name = "engine_differences"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[1] / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


differences = _differences()


@pytest.fixture(params=differences.ENGINES)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The engine under test, also the default of every simulation the test builds (``SIMULO_ENGINE``)."""
    name = str(request.param)
    monkeypatch.setenv("SIMULO_ENGINE", name)
    return name


@pytest.fixture
def record_calls() -> Callable[[Any, Sequence[str]], list[str]]:
    """``record(batch, names)``: wrap those engine-batch methods so that each call appends its name to the list
    ``record`` returns (and then makes the call)."""

    def record(batch: Any, names: Sequence[str]) -> list[str]:
        calls: list[str] = []

        def recorder(name: str) -> Any:
            call = getattr(batch, name)

            def recording(*arrays: np.ndarray) -> None:
                calls.append(name)
                call(*arrays)
            return recording
        for name in names:
            setattr(batch, name, recorder(name))
        return calls

    return record


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """Hold a test that the differences table names for its engine to the outcome the table gives."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    engine = params.get("engine")
    difference = None if engine is None else differences.expected(f"{item.path.name}::{item.name}", engine)
    outcome = yield
    if difference is None:
        return
    excinfo = outcome.excinfo
    problem = differences.mismatch(difference, engine, None if excinfo is None else excinfo[1])
    if problem is None:
        outcome.force_result(None)
    else:
        outcome.force_exception(AssertionError(problem))
