"""``simulo outputs [RUN] [--json] [--runs-dir DIR]``: list the files a run kept (see :mod:`simulo.cli.result`)."""

from __future__ import annotations

from simulo.cli.result import outputs_main


def main(argv: list[str]) -> int:
    """Run ``simulo outputs``; returns the exit status."""
    return outputs_main(argv)
