"""The contract suite runs every test once per engine: PyBullet, MuJoCo, MuJoCo Warp (on Warp's CPU device here;
skipped without the ``gpu`` extra), MuJoCo Warp again with ``host_copies=True`` (``"mujoco_warp_copies"``: the
data path a GPU takes, every read a copy of the device's arrays and every write copied back, so that a write the
engine forgets to send to the device fails here and not only on a GPU) and the kinematic mock.

A test that holds for one engine only says so by name (``..._on_pybullet`` / ``..._on_the_mock``) and
skips the others with :func:`only`. MuJoCo passes every shared test with the same tolerances as PyBullet, so
there is no per-engine tolerance table (docs/engines.md lists where the engines' numbers differ).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import simulo
from simulo.engine.registry import available_engines, register_engine, unregister_engine

from .mock_engine import MockEngine

ENGINES = ["pybullet", "mock", "mujoco", "mujoco_warp", "mujoco_warp_copies"]
#: The two MuJoCo Warp entries.
WARP = ("mujoco_warp", "mujoco_warp_copies")


@pytest.fixture(scope="session", autouse=True)
def extra_engines_registered() -> Iterator[None]:
    """Register the mock engine as ``"mock"``, and MuJoCo Warp with host copies as ``"mujoco_warp_copies"``, for
    the session."""
    register_engine("mock", MockEngine)
    warp = importlib.util.find_spec("mujoco_warp") is not None
    if warp:
        from simulo.engine.mujoco_warp.engine import MuJoCoWarpEngine  # noqa: PLC0415 (the gpu extra)

        class WarpHostCopies(MuJoCoWarpEngine):
            """MuJoCo Warp on the data path of a GPU (``host_copies=True``)."""

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs, host_copies=True)

        register_engine("mujoco_warp_copies", WarpHostCopies)
    yield
    unregister_engine("mock")
    assert "mock" not in available_engines()
    if warp:
        unregister_engine("mujoco_warp_copies")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine name under test."""
    if request.param in WARP:
        pytest.importorskip("mujoco_warp", reason="the MuJoCo Warp engine needs the gpu extra")
    return str(request.param)


def not_on_warp(engine: str, feature: str) -> None:
    """Skip on MuJoCo Warp, which refuses ``feature`` with a clear error (its one table of what it lacks,
    ``simulo.engine.mujoco_warp.unsupported.UNSUPPORTED``; ``tests/engine/mujoco_warp`` checks the refusals)."""
    if engine in WARP:
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
