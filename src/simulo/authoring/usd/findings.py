"""What reading a stage found: every problem (reported together, as ``check-urdf`` reports a URDF's) and notes.

A reader that meets a problem records it and goes on with the next prim, so that one run lists all of them;
:meth:`Findings.check` then raises them at once. A note is something accepted that changes or drops what the
file says (a PhysX-only setting without a meaning here, an engine's friction rule); ``simulo asset check``
prints the notes of a file that loads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from simulo.errors import AssetError, UsdError

T = TypeVar("T")


class Findings:
    """The problems and notes of one stage.

    Attributes:
        problems: Each problem, naming its prim and what is expected.
        notes: Each note, once.
    """

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.notes: list[str] = []

    def problem(self, text: str) -> None:
        """Record a problem."""
        self.problems.append(text)

    def note(self, text: str) -> None:
        """Record a note (a note already recorded is not repeated)."""
        if text not in self.notes:
            self.notes.append(text)

    def attempt(self, read: Callable[[], T]) -> T | None:
        """``read()``, or None with its :class:`~simulo.errors.AssetError` recorded as a problem."""
        try:
            return read()
        except UsdError as exc:
            self.problems.extend(exc.problems)
        except AssetError as exc:
            self.problem(str(exc))
        return None

    def check(self, source: str = "the stage") -> None:
        """Raise every problem recorded so far.

        Raises:
            UsdError: Some problem was recorded.
        """
        if self.problems:
            raise UsdError(source, self.problems)
