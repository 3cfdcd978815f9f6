"""Makes the recording tests' sibling helper modules importable under their bare names (see
:mod:`tests.sibling_modules`):

* ``recording_tasks``: the tasks the recording tests share;
* ``vizstream_fields``: the VizStream messages and fields of simulo-viz 0.1.0, as facts.
"""

from __future__ import annotations

from pathlib import Path

from tests.sibling_modules import register

register(Path(__file__).parent, ("recording_tasks", "vizstream_fields"))
