"""Mesh files: check their content before the engine sees them, and convert ASCII STL to binary STL.

PyBullet 3.2.7 loads an ASCII STL as empty geometry without a warning, and crashes the process on an OBJ
whose face indices point past its vertices. So every mesh a URDF names is read here first:

- binary STL: the size must be the 84-byte header plus 50 bytes per triangle, with finite coordinates;
- ASCII STL (``solid ... facet normal ... vertex ...``): parsed, then :func:`binary_stl_copy` writes the
  binary copy that the engine loads instead;
- OBJ: every ``v`` three finite numbers, every face index in range (1-based, or negative counting back from
  the last vertex read so far, as the OBJ format defines);
- COLLADA (``.dae``): parsed safely (``defusedxml``: no entity, no external reference), then read with
  ``trimesh`` (and ``pycollada``), imported on first use: a garbage document, or one without a scene, is
  refused (PyBullet 3.2.7 crashes on ``<COLLADA/>``); triangles indexing past the vertices are dropped by the
  reader, and a document left with no triangle is empty (below).

A mesh file larger than :data:`~simulo.authoring.limits.MAX_MESH_BYTES` is refused before it is read.

A mesh without triangles (a binary STL of 0 triangles, an OBJ without a face of 3 or more vertices) is
*empty*: PyBullet draws nothing for it and collides with a point, so it may be a visual but never a collision
shape (see :attr:`MeshCheck.empty`). A file of no bytes, or only whitespace, is no mesh at all and is refused.
Any other extension is refused: PyBullet loads no other mesh format from a URDF. Pure Python.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

from simulo.authoring.limits import MAX_MESH_BYTES
from simulo.errors import AssetError
from simulo.frozen import frozen_dataclass

MESH_FORMATS: tuple[str, ...] = (".stl", ".obj", ".dae")
"""Mesh file extensions the engine loads (case-insensitive)."""

_STL_HEADER = 84
_STL_TRIANGLE = struct.Struct("<12fH")


@frozen_dataclass
class MeshCheck:
    """The result of :func:`check_mesh_file`.

    Attributes:
        problem: What is wrong with the file, or None when the engine can load it.
        ascii_stl: The file is a good ASCII STL, which the engine must get as a binary copy.
        empty: Why the file, good otherwise, holds no triangle (acceptable as a visual only), or None.
    """

    problem: str | None
    ascii_stl: bool = False
    empty: str | None = None


_CACHE_SIZE = 4096
_cache: dict[tuple[str, int, int], MeshCheck] = {}


def check_mesh_file(path: Path) -> MeshCheck:
    """Check that the engine can load a mesh file (results are cached by path, size and modification time).

    Args:
        path: An existing file.

    Returns:
        Whether the file is good, and whether it is an ASCII STL.
    """
    try:
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        if key not in _cache:
            if len(_cache) >= _CACHE_SIZE:
                _cache.clear()
            if stat.st_size > MAX_MESH_BYTES:
                return MeshCheck(f"has {stat.st_size} bytes, more than the {MAX_MESH_BYTES} bytes "
                                 f"({MAX_MESH_BYTES // (1024 * 1024)} MiB) accepted for a mesh; nothing was read")
            _cache[key] = _check(path, path.read_bytes())
    except MemoryError:
        return MeshCheck("does not fit in memory")
    except OSError as exc:
        return MeshCheck(f"cannot be read: {exc.strerror or exc}")
    return _cache[key]


def _check(path: Path, data: bytes) -> MeshCheck:
    suffix = path.suffix.lower()
    if suffix not in MESH_FORMATS:
        return MeshCheck(f"has extension {path.suffix!r}; the engine loads {', '.join(MESH_FORMATS)} meshes only")
    if not data.strip():
        return MeshCheck("is empty")
    if suffix == ".dae":
        return _dae_check(data)
    if suffix == ".obj":
        return _obj_check(data)
    if _binary_stl_size_matches(data):
        return _binary_stl_check(data)
    if data.lstrip()[:5].lower() == b"solid":
        try:
            read_ascii_stl(data)
        except ValueError as exc:
            return MeshCheck(f"is not a valid ASCII STL: {exc}")
        return MeshCheck(None, ascii_stl=True)
    count = struct.unpack_from("<I", data, 80)[0] if len(data) >= _STL_HEADER else None
    return MeshCheck(
        f"is neither a binary STL (84-byte header + 50 bytes per triangle: the file has {len(data)} bytes"
        + (f", its header says {count} triangles, which would take {_STL_HEADER + 50 * count}" if count is not None
           else "") + ") nor an ASCII STL (text starting with 'solid')")


def _binary_stl_size_matches(data: bytes) -> bool:
    return len(data) >= _STL_HEADER and _STL_HEADER + 50 * struct.unpack_from("<I", data, 80)[0] == len(data)


def _binary_stl_check(data: bytes) -> MeshCheck:
    count = struct.unpack_from("<I", data, 80)[0]
    if count == 0:
        return MeshCheck(None, empty="is a binary STL with no triangles")
    for k, values in enumerate(_STL_TRIANGLE.iter_unpack(memoryview(data)[_STL_HEADER:])):
        if not all(math.isfinite(v) for v in values[3:12]):
            return MeshCheck(f"binary STL triangle {k + 1} of {count} has a coordinate that is not a finite number")
    return MeshCheck(None)


def read_ascii_stl(data: bytes) -> list[tuple[float, ...]]:
    """Parse an ASCII STL.

    Args:
        data: The file's bytes (``solid NAME``, then ``facet normal nx ny nz / outer loop / vertex x y z`` ×3
            ``/ endloop / endfacet`` per triangle, then ``endsolid``; several solids may follow each other).

    Returns:
        One tuple per triangle: normal, then the three vertices (12 finite numbers).

    Raises:
        ValueError: The text is malformed, holds no triangle, or a number is not finite; the message names the line.
    """
    triangles: list[tuple[float, ...]] = []
    current: list[float] = []
    for line_no, raw in enumerate(data.decode("ascii", errors="replace").splitlines(), start=1):
        words = raw.split()
        if not words:
            continue
        keyword = words[0].lower()
        if keyword == "facet":
            if current:
                raise ValueError(f"line {line_no}: a new facet starts before the last one had 3 vertices")
            current = _stl_numbers(words[2:] if len(words) > 1 and words[1].lower() == "normal" else [], line_no,
                                   "facet normal")
        elif keyword == "vertex":
            if not current:
                raise ValueError(f"line {line_no}: 'vertex' outside a 'facet normal ...' block")
            current += _stl_numbers(words[1:], line_no, "vertex")
            if len(current) == 12:
                triangles.append(tuple(current))
                current = []
        elif keyword not in ("solid", "outer", "endloop", "endfacet", "endsolid"):
            raise ValueError(f"line {line_no}: unexpected {words[0][:40]!r}; expected an ASCII STL keyword")
    if current:
        raise ValueError("the last facet has fewer than 3 vertices")
    if not triangles:
        raise ValueError("no triangles ('facet normal ... vertex ...' blocks)")
    return triangles


def _stl_numbers(words: list[str], line_no: int, what: str) -> list[float]:
    try:
        values = [float(w) for w in words]
    except ValueError:
        values = []
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise ValueError(f"line {line_no}: {what} needs 3 finite numbers, got {' '.join(words)[:60]!r}")
    return values


def _obj_check(data: bytes) -> MeshCheck:
    vertices = faces = 0
    for line_no, raw in enumerate(data.splitlines(), start=1):
        words = raw.split()
        if not words:
            continue
        if words[0] == b"v":
            try:
                coords = [float(w) for w in words[1:4]]
            except ValueError:
                coords = []
            if len(coords) != 3 or not all(math.isfinite(c) for c in coords):
                return MeshCheck(f"line {line_no}: vertex {raw.decode(errors='replace').strip()[:60]!r} needs 3 "
                                 "finite numbers")
            vertices += 1
        elif words[0] == b"f":
            for word in words[1:]:
                index = _obj_index(word)
                position = index if index is None or index > 0 else vertices + index + 1
                if position is None or not 1 <= position <= vertices:
                    return MeshCheck(f"line {line_no}: face index {word.decode(errors='replace')[:20]!r} is out of "
                                     f"range; {vertices} vertices are defined before it (1-based, or negative from "
                                     "the last)")
            faces += len(words) >= 4  # a face of 1 or 2 vertices is a point or a line: loaders skip it
    if faces == 0:
        return MeshCheck(None, empty=f"has {vertices} vertices and no face of 3 or more vertices")
    return MeshCheck(None)


def _dae_check(data: bytes) -> MeshCheck:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import ParseError, fromstring

    try:
        fromstring(data, forbid_dtd=True)
    except DefusedXmlException as exc:
        return MeshCheck(f"is hostile XML, refused unread: {exc}")
    except ParseError as exc:
        return MeshCheck(f"is not a COLLADA document (not XML: {exc})")
    try:
        import trimesh
    except ImportError as exc:  # a base dependency; missing only in a broken install
        return MeshCheck(f"cannot be checked: trimesh is not installed ({exc}); reinstall simulo-local")
    try:
        mesh: Any = trimesh.load(io.BytesIO(data), file_type="dae", force="mesh", process=False)
        faces = len(mesh.faces)
        vertices = len(mesh.vertices)
        top = int(mesh.faces.max()) if faces else -1
    except Exception as exc:  # noqa: BLE001 - any failure of the reader means the engine cannot read it either
        return MeshCheck(f"is not a COLLADA mesh that can be read: {type(exc).__name__}: {str(exc)[:120]}")
    if top >= vertices:
        return MeshCheck(f"has a triangle index {top} out of range; it defines {vertices} vertices")
    if faces == 0:
        return MeshCheck(None, empty=f"is a COLLADA document with {vertices} vertices and no triangle")
    return MeshCheck(None)


def _obj_index(word: bytes) -> int | None:
    try:
        return int(word.split(b"/", 1)[0])
    except ValueError:
        return None


def binary_stl_copy(source: Path, folder: Path) -> Path:
    """Write a binary copy of an ASCII STL into ``folder`` (named by a hash of its content, written once).

    Args:
        source: An ASCII STL that :func:`check_mesh_file` accepted.
        folder: Where the copy goes (created if missing).

    Returns:
        The path of the binary STL.

    Raises:
        AssetError: The source cannot be read or parsed, or the copy cannot be written.
    """
    try:
        data = source.read_bytes()
        triangles = read_ascii_stl(data)
    except (OSError, ValueError) as exc:
        raise AssetError(f"cannot convert ASCII STL {str(source)!r} to binary: {exc}") from exc
    body = b"".join(_STL_TRIANGLE.pack(*t, 0) for t in triangles)
    binary = (b"binary copy of an ASCII STL, written by simulo").ljust(80, b" ")
    binary += struct.pack("<I", len(triangles)) + body
    target = folder / f"{source.stem[:40]}-{hashlib.sha256(data).hexdigest()[:16]}.stl"
    write_once(target, binary, f"the binary copy of ASCII STL {str(source)!r}")
    return target


def write_once(target: Path, data: bytes, what: str) -> None:
    """Write ``data`` to ``target`` atomically unless the file already holds exactly that.

    Raises:
        AssetError: The file cannot be written; the message names ``what`` and the path.
    """
    partial: str | None = None
    try:
        if target.is_file() and target.read_bytes() == data:
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=target.parent, prefix=".simulo-", suffix=".partial")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(partial, target)  # atomic: a concurrent reader never sees half a file
        partial = None
    except OSError as exc:
        if partial is not None:
            Path(partial).unlink(missing_ok=True)
        raise AssetError(f"cannot write {what} to {str(target)!r}: {exc}") from exc
