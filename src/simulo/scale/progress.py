"""One progress bar for work spread over workers, drawn by the process that gathers the results."""

from __future__ import annotations

import sys
from typing import IO, Any


class Progress:
    """A bar on stderr: tqdm when installed, else one carriage-return line.

    Workers never draw; the gathering process advances the bar as their results arrive, so a sweep over
    any number of workers shows one bar.

    Args:
        total: Units of work (trials, environments).
        desc: Label in front of the bar.
        unit: Name of one unit.
        enabled: Draw nothing when False.
        stream: Where to draw (default ``sys.stderr``).
    """

    def __init__(self, total: int, desc: str, unit: str = "it", enabled: bool = True,
                 stream: IO[str] | None = None) -> None:
        self.total = total
        self.done = 0
        self._desc = desc
        self._unit = unit
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = enabled and total > 0
        self._bar: Any = None
        if self._enabled:
            try:
                from tqdm import tqdm  # noqa: PLC0415 - optional

                self._bar = tqdm(total=total, desc=desc, unit=unit, file=self._stream, dynamic_ncols=True)
            except ImportError:
                self._bar = None

    def update(self, n: int, note: str | None = None) -> None:
        """Advance by ``n`` units; ``note`` replaces the text after the bar."""
        self.done += n
        if not self._enabled:
            return
        if self._bar is not None:
            if note is not None:
                self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(n)
        else:
            tail = f" {note}" if note else ""
            self._stream.write(f"\r{self._desc} {self.done}/{self.total} {self._unit}{tail}")
            self._stream.flush()

    def write(self, message: str) -> None:
        """Print one line above the bar (without breaking it)."""
        if self._bar is not None:
            self._bar.write(message, file=self._stream)
        else:
            prefix = "\n" if self._enabled and self.done else ""
            self._stream.write(f"{prefix}{message}\n")
            self._stream.flush()

    def close(self) -> None:
        """Finish the bar (idempotent)."""
        if not self._enabled:
            return
        self._enabled = False
        if self._bar is not None:
            self._bar.close()
        else:
            self._stream.write("\n")
            self._stream.flush()
