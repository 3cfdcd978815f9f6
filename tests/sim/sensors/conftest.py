"""Every sensor test runs on every engine (the ``engine`` fixture of tests/sim/conftest.py).

Where an engine's outcome differs (cameras without OpenGL on MuJoCo), tests/engine_differences.py says so.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def on_every_engine(engine: str) -> str:
    """Run the test once per engine, that engine being the default of the simulations it builds."""
    return engine
