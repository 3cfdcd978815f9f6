"""Usage errors of the ``simulo`` commands: one line on stderr, exit status 2, no traceback.

:class:`OneLineParser` is an :class:`argparse.ArgumentParser` whose errors are one line that points at
``--help`` (argparse's own print the whole usage first); :func:`parse` turns argparse's exits into a
returned status, so a command's ``main(argv)`` returns 2 instead of raising ``SystemExit``. A command run with
``--json`` also gets its usage error as one JSON object on stdout (:func:`json_usage_error`), so that its
standard output is JSON whatever happens.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import NoReturn

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line: ``PROG: error: MESSAGE (see 'PROG --help')``.

    Attributes:
        last_error: The line of the last usage error, or None.
    """

    last_error: str | None = None

    def error(self, message: str) -> NoReturn:
        """Print the one-line error on stderr and exit with status 2."""
        self.last_error = f"{self.prog}: error: {message} (see '{self.prog} --help')"
        self.exit(EXIT_USAGE, self.last_error + "\n")


def json_usage_error(parser: argparse.ArgumentParser, argv: Sequence[str], status: int) -> int:
    """Return ``status``; first, for a usage error of a command run with ``--json``, print
    ``{"error": LINE, "exit_status": 2}`` on stdout (the line also went to stderr)."""
    line = getattr(parser, "last_error", None)
    if status == EXIT_USAGE and line is not None and "--json" in argv:
        print(json.dumps({"error": line, "exit_status": EXIT_USAGE}))
    return status


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    """``parser.parse_args(argv)``, or the exit status argparse asked for (0 after ``--help``, 2 on an error)."""
    try:
        return parser.parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
