"""Usage errors of the ``simulo`` commands: one line on stderr, exit status 2, no traceback.

:class:`OneLineParser` is an :class:`argparse.ArgumentParser` whose errors are one line that points at
``--help`` (argparse's own print the whole usage first); :func:`parse` turns argparse's exits into a
returned status, so a command's ``main(argv)`` returns 2 instead of raising ``SystemExit``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line: ``PROG: error: MESSAGE (see 'PROG --help')``."""

    def error(self, message: str) -> NoReturn:
        """Print the one-line error on stderr and exit with status 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    """``parser.parse_args(argv)``, or the exit status argparse asked for (0 after ``--help``, 2 on an error)."""
    try:
        return parser.parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
