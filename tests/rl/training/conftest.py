"""Setup of the trainer tests: skip without torch or skrl; make the toy environments importable.

``rl_toy_envs``, ``camera_tasks`` and ``slider_tasks`` are registered under their bare names (see
:mod:`tests.sibling_modules`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sibling_modules import register

pytest.importorskip("torch")
pytest.importorskip("skrl")

register(Path(__file__).parent, ("rl_toy_envs", "camera_tasks", "slider_tasks"))
