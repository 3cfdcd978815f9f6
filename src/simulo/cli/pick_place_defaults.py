"""Every flag of ``simulo pick-place`` and its value when it is not given.

Apart from the parser (:mod:`simulo.cli.pick_place_flags`), which takes them as its defaults: the plain
``simulo pick-place`` runs with them as they are and never builds a parser (argparse, gettext and locale stay
unimported).
"""

from __future__ import annotations

from typing import Any

FLAG_DEFAULTS: dict[str, Any] = {
    "json": False, "uncoupled": False, "friction": 1.0, "friction_sweep": False, "ik": "closed-form", "speed": 1.0,
    "stack": False, "trials": None, "seed": None, "noise": None, "workers": None, "address": None, "engine": None,
    "record": None,
}
"""Every flag's value when it is not given (the parser's defaults; the plain run's whole namespace)."""
