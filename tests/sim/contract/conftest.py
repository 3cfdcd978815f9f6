"""The contract suite runs every test once per engine: PyBullet, MuJoCo and the kinematic mock.

A test that holds for one engine only says so by name (``..._on_pybullet`` / ``..._on_the_mock``) and
skips the others with :func:`only`. MuJoCo passes every shared test with the same tolerances as PyBullet, so
there is no per-engine tolerance table (docs/engines.md lists where the engines' numbers differ).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import simulo
from simulo.engine.registry import available_engines, register_engine, unregister_engine

from .mock_engine import MockEngine

ENGINES = ["pybullet", "mock", "mujoco"]


@pytest.fixture(scope="session", autouse=True)
def mock_engine_registered() -> Iterator[None]:
    """Register the mock engine as ``"mock"`` for the session."""
    register_engine("mock", MockEngine)
    yield
    unregister_engine("mock")
    assert "mock" not in available_engines()


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine name under test."""
    return str(request.param)


def only(engine: str, name: str) -> None:
    """Skip unless ``engine`` is ``name`` (for behaviour one engine legitimately lacks)."""
    if engine != name:
        pytest.skip(f"behaviour of the {name!r} engine only")


@pytest.fixture
def make(make: Callable[..., tuple[simulo.Robot, simulo.Simulation]], engine: str
         ) -> Callable[..., tuple[simulo.Robot, simulo.Simulation]]:
    """The shared ``make`` fixture (tests/conftest.py), with every Simulation built on the engine under test."""

    def _make(*args: Any, sim: dict[str, Any] | None = None, **kwargs: Any) -> tuple[simulo.Robot, simulo.Simulation]:
        return make(*args, sim={"engine": engine, **(sim or {})}, **kwargs)

    return _make
