"""The SDK's cloud-only names: ``Volume``, ``save_output`` and ``simulo.callbacks``.

They resolve so that an app written for the Simulo cloud imports unchanged; using one raises
:class:`~simulo.authoring.unavailable.CloudOnlyError`, which says what to do locally instead.
"""

from __future__ import annotations

from typing import Any, NoReturn

from simulo.authoring import callbacks
from simulo.authoring.unavailable import CloudOnlyError

__all__ = ["Volume", "callbacks", "save_output"]


class Volume:
    """A cloud storage volume (cloud-only).

    Args:
        name: Volume name.
        create_if_missing: Create the volume on the platform if it does not exist.

    Raises:
        CloudOnlyError: Always; local runs read and write ordinary directories.
    """

    def __init__(self, name: str, *, create_if_missing: bool = False) -> None:
        raise CloudOnlyError(f"simulo.Volume({name!r}) is a Simulo cloud storage volume and has no meaning in "
                             "simulo-local; read and write a local directory instead")

    @classmethod
    def from_name(cls, name: str, *, create_if_missing: bool = False) -> Volume:
        """The volume called ``name`` (cloud-only; raises :class:`CloudOnlyError`)."""
        return cls(name, create_if_missing=create_if_missing)


def save_output(name: str, path: str, *args: Any, **kwargs: Any) -> NoReturn:
    """Register a file as a job output on the cloud platform (cloud-only).

    Raises:
        CloudOnlyError: Always; a local run's files stay where the app wrote them.
    """
    raise CloudOnlyError(f"simulo.save_output({name!r}, ...) registers a cloud job output and has no meaning in "
                         f"simulo-local; the file stays at {path!r}")
