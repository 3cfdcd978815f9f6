"""``simulo run --record-3d COPIES``: the setting the CLI checks and hands the job process.

Kept apart from :mod:`simulo.rl.recordings.training_3d` so that the CLI and the job runner read it without
importing the recorder.
"""

from __future__ import annotations

import os

from simulo.errors import SimuloValueError

#: Set to the number of copies in the job process by ``simulo run --record-3d COPIES``.
COPIES_VARIABLE = "SIMULO_RECORD_3D_COPIES"
#: The most copies one run records, as the SDK allows.
MAX_COPIES = 64


def parse_copies(text: str) -> int:
    """``--record-3d``'s value as a number of copies.

    Raises:
        SimuloValueError: Not a whole number from 1 to :data:`MAX_COPIES`.
    """
    copies = int(text) if text.strip().isdigit() else -1
    if not 1 <= copies <= MAX_COPIES:
        raise SimuloValueError(f"--record-3d needs a number of copies from 1 to {MAX_COPIES}, got {text!r}")
    return copies


def environ(copies: int | None) -> tuple[tuple[str, str], ...]:
    """The job process's variables for a run that records ``copies`` copies (none for ``None``)."""
    return () if copies is None else ((COPIES_VARIABLE, str(copies)),)


def requested_copies() -> int | None:
    """The copies this job process records, or ``None`` without ``--record-3d``.

    Raises:
        SimuloValueError: The variable holds no valid number of copies.
    """
    text = os.environ.get(COPIES_VARIABLE)
    return None if text is None else parse_copies(text)
