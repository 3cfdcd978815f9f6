"""The contract suite runs every test once per engine: PyBullet and the kinematic mock.

A test that holds for one engine only says so by name (``..._on_pybullet`` / ``..._on_the_mock``) and
skips the other with :func:`only`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import simulo
from simulo.engine.registry import available_engines, register_engine, unregister_engine

from .mock_engine import MockEngine

ENGINES = ["pybullet", "mock"]


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
def make(engine: str) -> Iterator[Callable[..., tuple[simulo.Robot, simulo.Simulation]]]:
    """``make(asset, num_envs=1, plane=False, at=..., scene=..., sim=..., extra=..., **robot_kwargs)`` on ``engine``.

    Builds a scene with one robot (and a ground plane when asked) and a Simulation on the engine under
    test; returns ``(robot, sim)``. Every simulation made is closed after the test.
    """
    made: list[simulo.Simulation] = []

    def _make(asset: simulo.Asset, num_envs: int = 1, plane: bool = False, at: str = "/World/Robot",
              scene: dict[str, Any] | None = None, sim: dict[str, Any] | None = None,
              extra: Callable[[simulo.Scene], None] | None = None, **robot_kwargs: Any
              ) -> tuple[simulo.Robot, simulo.Simulation]:
        sc = simulo.Scene(num_envs=num_envs, **(scene or {}))
        if plane:
            sc.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
        robot = simulo.Robot(asset, **robot_kwargs)
        sc.add(robot, at=at)
        if extra is not None:
            extra(sc)
        simulation = simulo.Simulation(sc, engine=engine, **(sim or {}))
        made.append(simulation)
        return robot, simulation

    yield _make
    for s in made:
        s.close()
