"""The contract suite runs every test once per engine: PyBullet, MuJoCo, MuJoCo Warp (on Warp's CPU device here;
skipped without the ``gpu`` extra) and the kinematic mock.

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

ENGINES = ["pybullet", "mock", "mujoco", "mujoco_warp"]


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
    if request.param == "mujoco_warp":
        pytest.importorskip("mujoco_warp", reason="the MuJoCo Warp engine needs the gpu extra")
    return str(request.param)


def not_on_warp(engine: str, feature: str) -> None:
    """Skip on MuJoCo Warp, which refuses ``feature`` with a clear error (its one table of what it lacks,
    ``simulo.engine.mujoco_warp.unsupported.UNSUPPORTED``; ``tests/engine/mujoco_warp`` checks the refusals)."""
    if engine == "mujoco_warp":
        from simulo.engine.mujoco_warp.unsupported import UNSUPPORTED  # noqa: PLC0415 (the gpu extra)

        pytest.skip(f"MuJoCo Warp refuses {feature!r}: {UNSUPPORTED[feature]}")


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
