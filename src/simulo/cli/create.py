"""``simulo create NAME [--dir PATH] [--force]``: write a starter app into the folder ``NAME``.

The app (see :mod:`simulo.cli.starter`) has the SDK starter's files: ``task.py``, ``preview.py``,
``train.py``, ``eval.py``, ``play.py`` and ``.simuloignore``. A folder that exists and is not empty
is refused unless ``--force``, which names the files it overwrote. Exit status: 0 written, 2 usage
error (a bad name, a folder in the way, a folder that cannot be written).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from simulo.cli.starter import APP_NAME_TOKEN, FILES

USAGE = """\
usage: simulo create NAME [--dir PATH] [--force]

Write a starter app (task.py, preview.py, train.py, eval.py, play.py, .simuloignore) into the folder NAME.

  NAME        the app's name and folder: a letter or '_' first, then letters, digits, '_' or '-' (at most 64)
  --dir PATH  the folder to create NAME in (default: the current folder)
  --force     overwrite the files of a NAME folder that is not empty"""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                       *(f"LPT{i}" for i in range(1, 10))})


def _error(message: str) -> int:
    print(f"simulo create: error: {message}", file=sys.stderr)
    return 2


def _parse(argv: list[str]) -> tuple[str | None, str | None, bool]:
    name: str | None = None
    parent: str | None = None
    force = False
    i = 0
    while i < len(argv):
        token = argv[i]
        key, eq, inline = token.partition("=")
        if key == "--dir":
            if not eq:
                if i + 1 >= len(argv):
                    raise ValueError("--dir needs a folder")
                i += 1
                inline = argv[i]
            parent = inline
        elif token == "--force":
            force = True
        elif token.startswith("-") or name is not None:
            raise ValueError(f"unexpected argument {token!r} (see 'simulo create --help')")
        else:
            name = token
        i += 1
    return name, parent, force


def write_starter(name: str, parent: Path, force: bool = False) -> tuple[Path, list[str]]:
    """Write the starter app ``name`` into ``parent / name``.

    Returns:
        The folder, and the names of the files that were overwritten.

    Raises:
        ValueError: A bad name, or the folder is in the way (a file, or not empty without ``force``).
        OSError: The folder cannot be written.
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"app name {name!r} is not valid: start with a letter or '_', then use letters, digits, "
                         "'_' or '-', at most 64 characters (e.g. 'cartpole-trainer')")
    if name.upper() in _RESERVED:
        raise ValueError(f"app name {name!r} is a reserved device name on Windows; choose another")
    folder = parent / name
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} exists and is not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise ValueError(f"{folder} exists and is not empty; pass --force to overwrite its starter files")
    folder.mkdir(parents=True, exist_ok=True)
    overwritten = [file for file in FILES if (folder / file).exists()]
    for file, text in FILES.items():
        (folder / file).write_text(text.replace(APP_NAME_TOKEN, name), encoding="utf-8")
    return folder, overwritten


def main(argv: list[str]) -> int:
    """Run ``simulo create``; returns the exit status."""
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    try:
        name, parent, force = _parse(argv)
        if name is None:
            return _error("the app's NAME is missing: simulo create NAME [--dir PATH] [--force] "
                          "(see 'simulo create --help')")
        folder, overwritten = write_starter(name, Path(parent) if parent else Path("."), force)
    except ValueError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot write the app: {exc.strerror or exc}")
    if overwritten:
        print(f"Overwrote {', '.join(overwritten)} in {folder}.")
    print(f"Created the app {name!r} in {folder}/ ({', '.join(FILES)}).")
    print("Next steps:")
    print(f"  cd {folder}")
    print("  simulo run preview.py")
    print("  simulo run train.py")
    print("  simulo run eval.py --policy <policy ID>:best   # the policy ID training printed")
    print("  simulo run play.py --policy <policy ID>:best")
    return 0
