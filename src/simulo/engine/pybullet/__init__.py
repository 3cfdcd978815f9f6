"""The PyBullet engine (the embedded default).

Importing this package imports ``pybullet`` first, with the banner its C library writes to the standard error
at import (``pybullet build time: ...``) kept off the terminal: it would otherwise interleave with every
command's progress lines. Errors are unaffected: a failed import raises as usual once the stream is back.
"""

from __future__ import annotations

import os
import sys


def _import_quietly() -> None:
    if "pybullet" in sys.modules:
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            import pybullet  # noqa: F401, PLC0415 (loaded here once, so that its banner goes nowhere)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


_import_quietly()
