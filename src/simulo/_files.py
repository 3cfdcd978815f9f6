"""Atomic file writes: a kill at any instant leaves the old file or the new one, never a torn one.

Every run record (``run.json``, ``result.json``, ``policy.json``, ``outputs.json``, ``attempt-N.error.json``),
checkpoint and recording is written to a hidden temporary file in its own folder (``.NAME.PID.tmp``, which
readers skip) and then renamed over its name with :func:`os.replace`, which is atomic on one file system. A
failed write (a full disk) removes the temporary file and raises :class:`~simulo.errors.RecordWriteError`
naming the file; the file itself is untouched. Nothing is fsynced: the fault guarded against is a killed
process, not a power cut.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from simulo.errors import RecordWriteError

__all__ = ["copy_atomically", "partial_path", "publish", "write_atomically", "write_error"]


def partial_path(target: str | os.PathLike[str]) -> Path:
    """The hidden temporary file that :func:`write_atomically` and :func:`publish` use for ``target``.

    It sits in ``target``'s folder (so the rename stays on one file system), starts with ``.`` and ends in
    ``.tmp`` (so listings of checkpoints and recordings skip it), and names this process (so two writers of
    one file never share it).
    """
    path = Path(target)
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_error(target: str | os.PathLike[str], what: str, exc: OSError) -> RecordWriteError:
    """The error that says ``what`` could not be written to ``target`` and why (``no space left on device``).

    Args:
        target: The file that was being written.
        what: What the file is (``"checkpoint"``, ``"run record"``), named in the message.
        exc: The operating system's error.

    Returns:
        The error, to be raised (``raise write_error(...) from exc``).
    """
    reason = "no space left on device" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
    return RecordWriteError(f"cannot write the {what} {str(target)!r}: {reason}; the file keeps its previous "
                            "content (if any)")


def publish(partial: str | os.PathLike[str], target: str | os.PathLike[str], what: str) -> Path:
    """Rename the finished temporary file ``partial`` over ``target`` (atomically).

    Args:
        partial: The complete temporary file (from :func:`partial_path`).
        target: The file's name.
        what: What the file is, named in an error.

    Returns:
        ``target`` as a Path.

    Raises:
        RecordWriteError: The rename failed; ``partial`` is removed.
    """
    try:
        os.replace(partial, target)
    except OSError as exc:
        Path(partial).unlink(missing_ok=True)
        raise write_error(target, what, exc) from exc
    return Path(target)


def write_atomically(target: str | os.PathLike[str], data: bytes | str, what: str) -> Path:
    """Write ``data`` (a ``str`` as UTF-8) to ``target`` through a temporary file and a rename.

    Args:
        target: The file; its folder must exist.
        data: The whole content.
        what: What the file is (``"run record"``, ``"checkpoint"``), named in an error.

    Returns:
        ``target`` as a Path.

    Raises:
        RecordWriteError: The write failed (a full disk, a read-only folder); ``target`` is unchanged and no
            temporary file is left.
    """
    partial = partial_path(target)
    content = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with open(partial, "wb") as out:
            out.write(content)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise write_error(target, what, exc) from exc
    return publish(partial, target, what)


def copy_atomically(source: str | os.PathLike[str], target: str | os.PathLike[str], what: str) -> Path:
    """Copy the file ``source`` (its content and times) to ``target`` through a temporary file and a rename.

    Args:
        source: The file to copy.
        target: The copy; its folder must exist.
        what: What the file is, named in an error.

    Returns:
        ``target`` as a Path.

    Raises:
        RecordWriteError: The copy failed (a full disk, ``source`` unreadable); ``target`` is unchanged and no
            temporary file is left.
    """
    partial = partial_path(target)
    try:
        shutil.copy2(source, partial)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise write_error(target, what, exc) from exc
    return publish(partial, target, what)
