"""Bounds checked before any work: file sizes, URDF line length, link count and XML nesting depth.

Each limit sits below what was measured to break PyBullet 3.2.7 or to take unbounded time or memory
(``docs/limits.md`` gives the measurements). Files are measured with ``stat`` before they are opened, so a
64 GiB file is refused without reading a byte of it. Pure Python.
"""

from __future__ import annotations

import os

from simulo.errors import AssetError, SizeLimitError

MAX_URDF_BYTES = 8 * 1024 * 1024
"""Largest URDF file or string read (8 MiB; the largest real robot description seen is well under 1 MiB)."""

MAX_MESH_BYTES = 64 * 1024 * 1024
"""Largest mesh file read (64 MiB)."""

MAX_LINE_BYTES = 8190
"""Longest URDF line, in UTF-8 bytes without its line break. PyBullet reads a URDF in pieces of 8191 bytes and
breaks the document wherever a piece ends inside a tag or a value ("Cannot load URDF file")."""

MAX_LINKS = 256
"""Most links in one URDF. PyBullet's load time grows about as the cube of the link count (2.3 s for 250 links,
17 s for 500, over 100 s for 1000)."""

MAX_NAME_BYTES = 255
"""Longest robot, link or joint name, in UTF-8 bytes. PyBullet copies names into 1024-byte buffers: a base link
named with 7990 characters loads and steps, then ``getBodyInfo`` crashes the process (SIGSEGV)."""

MAX_XML_DEPTH = 64
"""Deepest element nesting in a URDF (a URDF needs 5 levels: robot, link, collision, geometry, mesh)."""


def read_bounded(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """Read a whole file after checking its size, turning every file-system error into an ``AssetError``.

    Args:
        path: The file.
        limit: Largest size accepted, in bytes.
        what: What the file is, for messages (``"URDF file"``).

    Returns:
        The file's bytes.

    Raises:
        SizeLimitError: The file is larger than ``limit`` (nothing was read).
        AssetError: The file cannot be read (missing, a folder, no permission, an I/O error).
    """
    try:
        size = os.stat(path).st_size
        if size > limit:
            raise SizeLimitError(f"{what} {str(path)!r} has {size} bytes, more than the {limit} bytes "
                                 f"({limit // (1024 * 1024)} MiB) accepted; nothing was read")
        with open(path, "rb") as file:
            data = file.read(limit + 1)  # a file that grew since stat() is still bounded
    except OSError as exc:
        raise AssetError(f"{what} {str(path)!r} cannot be read: {exc.strerror or exc}") from exc
    except MemoryError as exc:
        raise SizeLimitError(f"{what} {str(path)!r} does not fit in memory") from exc
    if len(data) > limit:
        raise SizeLimitError(f"{what} {str(path)!r} grew past the {limit} bytes accepted while it was read")
    return data


def line_problems(text: str) -> list[str]:
    """The URDF's size and line-length problems (empty when within :data:`MAX_URDF_BYTES` and
    :data:`MAX_LINE_BYTES`), each naming the line."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        return [f"line {line}: character {text[exc.start]!r} cannot be written as UTF-8 (a lone surrogate); "
                "expected Unicode text"]
    if len(data) > MAX_URDF_BYTES:
        return [f"the document has {len(data)} bytes, more than the {MAX_URDF_BYTES} bytes accepted"]
    problems: list[str] = []
    for line_no, row in enumerate(data.split(b"\n"), start=1):
        length = len(row.rstrip(b"\r"))
        if length > MAX_LINE_BYTES:
            problems.append(f"line {line_no}: {length} bytes long, more than the {MAX_LINE_BYTES} accepted (PyBullet "
                            "reads a URDF in pieces of 8191 bytes and breaks tags that cross a piece's end); put "
                            "line breaks between elements")
            if len(problems) >= 3:
                break
    return problems


MAX_LENGTH = 1e6
"""Largest magnitude of a length in a URDF (m): shape sizes, origins, mesh scales. PyBullet steps to NaN poses
with lengths of 1e100 (measured fine at 1e50)."""

MIN_COLLISION_SIZE = 1e-6
"""Smallest non-zero size of a collision shape (m). PyBullet steps to NaN with a box of 1e-20 (fine at 1e-9)."""

MASS_RANGE = (1e-9, 1e9)
"""A link's mass is 0 or lies in this range (kg). PyBullet steps to NaN with 1e200 kg or 1e-200 kg (measured fine
from 1e-100 to 1e100)."""

MAX_INERTIA = 1e12
"""Largest magnitude of an ``<inertia>`` entry (kg·m²)."""


def magnitude_problem(values: tuple[float, ...], what: str, collision: bool = False) -> str | None:
    """Why lengths are out of the ranges above (``what`` names them), or None."""
    if any(abs(v) > MAX_LENGTH for v in values):
        return f"{what} has a length beyond {MAX_LENGTH:g} m in magnitude; PyBullet's poses turn NaN at 1e100"
    if collision and any(0 < abs(v) < MIN_COLLISION_SIZE for v in values):
        return (f"{what} has a size below {MIN_COLLISION_SIZE:g} m, too small for a collision shape (PyBullet's "
                "poses turn NaN)")
    return None


def mass_problem(mass: float) -> str | None:
    """Why a (finite, >= 0) mass is out of :data:`MASS_RANGE`, or None."""
    low, high = MASS_RANGE
    if mass != 0 and not low <= mass <= high:
        return f"mass {mass:g} kg is outside {low:g} to {high:g} kg (or 0); PyBullet's poses turn NaN with 1e200 kg"
    return None
