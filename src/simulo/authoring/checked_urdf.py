"""Checked URDF summaries kept between runs, so a file that passed :func:`~simulo.authoring.urdf.check_urdf` once
is not parsed and checked again at every start.

Checking the pick-and-place arm's file takes about 2.5 ms and imports six checker modules (about 3 ms more);
``simulo pick-place`` does it at every start. A summary is kept only when the check depends on the document's
text alone: no ``<mesh`` (a mesh file can change under it) and no ``$(`` (substitutions read the
environment). It is stored with the whole text, and with the size and modification time of every module of
:mod:`simulo.authoring` (the checker's code): a stored summary is used only for the very same text checked by
the very same code; anything else checks the text again (and stores the new summary). Only passes are stored,
so a document with problems always raises its full :class:`~simulo.errors.UrdfError`.

The models checked in this process are also kept (at most 64: the record starts again when full), so that an
engine loading one of those files can have its link and joint order without parsing the document again
(:func:`checked_model`).

Summaries are plain tuples written with :mod:`marshal` into a per-user folder (``<tmp>/simulo-checked-<uid>``,
mode 0700), atomically. A folder that another user owns, or that others may write to, is never read or
written; nor is anything when no temporary folder exists. A stored file that cannot be read or decoded counts
as absent.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
from typing import Any

from simulo.authoring.urdf_model import JointLimits, UrdfJoint, UrdfMesh, UrdfModel

_FORMAT = 1
_CLASSES: dict[str, type] = {cls.__name__: cls for cls in (UrdfModel, UrdfJoint, JointLimits, UrdfMesh)}
_AUTHORING = os.path.dirname(__file__)
_KEPT = 64  # models of this process's files kept for checked_model
_SEEN: dict[str, tuple[str, UrdfModel]] = {}  # str(path) -> (the text checked, its model)


def checked_file(text: str, path: str | os.PathLike[str]) -> UrdfModel:
    """``check_urdf(text, source=path, base_dir=<its folder>)``, from the stored summary when there is one.

    Args:
        text: The document read from ``path``.
        path: The resolved URDF file.

    Raises:
        UrdfError: The document has problems (checked afresh; problems are never stored).
    """
    path = os.fspath(path)
    cacheable = "<mesh" not in text and "$(" not in text
    store = _store_path(path) if cacheable else None
    key = _checker_key() if store is not None else None
    model = _load(store, text, key) if store is not None else None
    if model is None:
        from simulo.authoring.urdf import check_urdf  # noqa: PLC0415 (the checker loads only when a text is new)

        model = check_urdf(text, source=path, base_dir=os.path.dirname(path))
        if store is not None and not model.meshes and not model.substitutions:
            _save(store, (_FORMAT, key, text, _encode(model)))
    if len(_SEEN) >= _KEPT:  # a bound, not a policy: an engine asks right after the check (no thread can break it)
        _SEEN.clear()
    _SEEN[path] = (text, model)
    return model


def checked_model(path: str | os.PathLike[str]) -> UrdfModel | None:
    """The model :func:`checked_file` gave for the file ``path`` in this process, while the file still holds
    the very text it checked and that text has no ``$(`` substitutions (which change names); else None.

    Its ``links`` and ``joint_names`` are then the document's ``<link>`` and ``<joint>`` names in document
    order (a document with a duplicate or unnamed one does not pass the check).
    """
    seen = _SEEN.get(str(path))
    if seen is None or "$(" in seen[0]:
        return None
    try:
        with open(path, "rb") as file:
            text = file.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return seen[1] if text == seen[0] else None


def cache_folder() -> str | None:
    """This user's folder of stored summaries (made if missing), or None when none can be used safely."""
    root = next((os.environ[v] for v in ("TMPDIR", "TEMP", "TMP") if os.path.isdir(os.environ.get(v, ""))), "/tmp")
    if not os.path.isdir(root) or not hasattr(os, "getuid"):
        return None
    folder = os.path.join(root, f"simulo-checked-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if info.st_uid != os.getuid() or info.st_mode & 0o077 or not os.path.isdir(folder) or os.path.islink(folder):
        return None  # someone else's folder, or one that others can write to: never trusted
    return folder


def _store_path(path: str) -> str | None:
    folder = cache_folder()
    if folder is None:
        return None
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in path)
    return os.path.join(folder, f"{name[-120:]}.checked")


def _checker_key() -> tuple[Any, ...]:
    """Every authoring module's (name, size, mtime): a changed checker misses every stored summary."""
    stats = []
    with os.scandir(_AUTHORING) as entries:
        for entry in entries:
            if entry.name.endswith(".py"):
                info = entry.stat()
                stats.append((entry.name, info.st_size, info.st_mtime_ns))
    return tuple(sorted(stats))


def _load(store: str, text: str, key: tuple[Any, ...] | None) -> UrdfModel | None:
    try:
        with open(store, "rb") as file:
            fmt, stored_key, stored_text, encoded = marshal.loads(file.read())
        if fmt != _FORMAT or stored_key != key or stored_text != text:
            return None
        model = _decode(encoded)
    except (OSError, EOFError, ValueError, TypeError, KeyError, IndexError):
        return None
    return model if isinstance(model, UrdfModel) else None


def _save(store: str, record: tuple[Any, ...]) -> None:
    """Write ``record`` atomically (a failed write leaves no file and is not an error: the cache is optional)."""
    folder, name = os.path.split(store)
    partial = os.path.join(folder, f".{name}.{os.getpid()}.part")
    try:
        data = marshal.dumps(record)
    except ValueError:  # a value marshal cannot write: nothing is stored
        return
    try:
        with open(partial, "wb") as file:
            file.write(data)
        os.replace(partial, store)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass


def _encode(value: Any) -> Any:
    """Plain data for a summary: each dataclass as (class name, field values), tuples element by element."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple(_encode(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, tuple):
        return ("", tuple(_encode(v) for v in value))
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, tuple):
        tag, items = value
        decoded = tuple(_decode(v) for v in items)
        return decoded if tag == "" else _CLASSES[tag](*decoded)
    return value
