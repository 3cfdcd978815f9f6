"""``simulo check-urdf FILE [FILE ...]``: check URDF files and list every problem in each.

Prints ``FILE: OK (robot NAME, N links, M joints)`` for a good file, followed by a ``  note: ...`` line for each
thing accepted that changes how the engine treats the model (a massless root link makes a static base), or the
full problem list for a bad one. Exit status: 0 when every file is OK, 1 when any has problems, 2 when a file is
missing or unreadable. Mesh paths are checked against each file's own folder (``package://`` meshes against the
folders at or above it, then ``ROS_PACKAGE_PATH``), and mesh files are read and checked. A file larger than
the limit of ``docs/limits.md`` (8 MiB) is refused unread (exit 2). What it calls OK, the loader loads.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from simulo.authoring.limits import MAX_URDF_BYTES, read_bounded
from simulo.authoring.urdf import check_urdf
from simulo.cli._usage import OneLineParser, parse
from simulo.errors import AssetError, UrdfError


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="simulo check-urdf",
        description="Check URDF files and list every problem in each (exit 0: all OK, 1: problems, 2: missing file).",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="URDF file to check")
    return parser


def main(argv: list[str]) -> int:
    """Check each file; return the exit status."""
    args = parse(_parser(), argv)
    if isinstance(args, int):
        return args
    status = 0
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            what = "is a folder, not a file" if path.is_dir() else "no such file"
            print(f"simulo check-urdf: {name}: {what}", file=sys.stderr)
            status = 2
            continue
        try:
            text = read_bounded(path, MAX_URDF_BYTES, "URDF file").decode("utf-8")
        except AssetError as exc:
            print(f"simulo check-urdf: {exc}", file=sys.stderr)
            status = 2
            continue
        except UnicodeDecodeError as exc:
            print(f"simulo check-urdf: {name}: not UTF-8 text ({exc.reason} at byte {exc.start})", file=sys.stderr)
            status = 2
            continue
        try:
            model = check_urdf(text, source=name, base_dir=path.resolve().parent)
        except UrdfError as exc:
            print(exc)
            status = max(status, 1)
            continue
        print(f"{name}: OK (robot {model.name}, {len(model.links)} links, {len(model.joints)} joints)")
        for note in model.notes:
            print(f"  note: {note}")
    return status
