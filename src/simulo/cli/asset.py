"""``simulo asset list`` and ``simulo asset check REF [REF ...]``: the local catalog and its checks.

``list`` prints every catalog reference with its joint count and a description. ``check`` resolves each
reference (a catalog model, an organisation asset ``robot/<name>:v<N>`` found from the current folder
upward or on ``SIMULO_ASSET_PATH``, or a USD file's path) and runs the URDF checker on its file; a USD file is
read first (:mod:`simulo.authoring.usd`), listing every problem of its physics at once, and the notes of one
that loads (what was ignored or approximated) follow its OK line.

Exit status: 0 every asset is OK, 1 an asset has problems or cannot be found, 2 usage error (unknown
subcommand, no reference, malformed or unknown catalog reference), printed as one line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from simulo.authoring.asset import Asset
from simulo.authoring.catalog import entries, locate, lookup, parse_ref
from simulo.authoring.usd import USD_SUFFIXES
from simulo.errors import AssetError, UrdfError

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2

USAGE = """\
usage: simulo asset list
       simulo asset check REF [REF ...]

  list    the local catalog: reference, number of joints (non-fixed), description
  check   resolve each reference and check its URDF; REF is simulo/robot/<name>:v<N> (the catalog),
          robot/<name>:v<N> (an organisation asset: assets/robot/<name>/ in this folder or above,
          or on SIMULO_ASSET_PATH), or the path of a .usd, .usda, .usdc or .usdz file

Exit status: 0 all OK, 1 problems (or an asset not found), 2 usage error."""


def _list() -> int:
    rows = [(entry.ref, str(entry.joints), entry.description) for entry in entries()]
    width = max(len(ref) for ref, _, _ in rows)
    print(f"{'REFERENCE'.ljust(width)}  JOINTS  DESCRIPTION")
    for ref, joints, description in rows:
        print(f"{ref.ljust(width)}  {joints.rjust(6)}  {description}")
    return EXIT_OK


def _resolve(ref: str) -> Asset:
    """The asset of a reference, read and checked now; organisation assets are found from the working folder.

    Raises:
        AssetError: The reference is malformed or unknown (usage), or the asset cannot be found or read (a
            :class:`~simulo.errors.UsdError` lists every problem of a USD file).
        UrdfError: Its URDF has problems.
    """
    if _is_usd_path(ref):
        return Asset.from_usd_file(ref)
    parsed = parse_ref(ref)
    if parsed.publisher is not None:
        lookup(parsed)
        return Asset.from_registry(parsed.text).resolve()
    found = locate(parsed, Path.cwd())
    if found.entry.suffix.lower() in USD_SUFFIXES:
        return Asset.from_usd_file(found.entry, fixed_base=found.fixed_base)
    return Asset.from_urdf_file(found.entry, fixed_base=found.fixed_base)


def _is_usd_path(ref: str) -> bool:
    return Path(ref).suffix.lower() in USD_SUFFIXES


def _check(refs: Sequence[str]) -> int:
    for ref in refs:  # usage errors first, so that nothing is half-reported
        if _is_usd_path(ref):
            continue
        try:
            parsed = parse_ref(ref)
            if parsed.publisher is not None:
                lookup(parsed)
        except AssetError as exc:
            print(f"simulo asset check: {exc}", file=sys.stderr)
            return EXIT_USAGE
    status = EXIT_OK
    for ref in refs:
        try:
            asset = _resolve(ref)
        except (UrdfError, AssetError) as exc:
            print(f"{ref}: {exc}")
            status = EXIT_PROBLEMS
            continue
        model = asset.model
        where = "" if asset.source_path is None else f" {asset.source_path}"  # None: a USD file, named in REF
        print(f"{ref}: OK (robot {model.name}, {len(model.links)} links, {len(model.joints)} joints, "
              f"{len(model.movable_joints)} movable){where}")
        for note in (*model.notes, *asset.physics.notes):
            print(f"  note: {note}")
    return status


def main(argv: Sequence[str]) -> int:
    """Run ``simulo asset``; return the exit status."""
    args = list(argv)
    if not args:
        print("simulo asset: no subcommand given; expected 'list' or 'check' (see 'simulo asset --help')",
              file=sys.stderr)
        return EXIT_USAGE
    if args[0] in ("-h", "--help"):
        print(USAGE)
        return EXIT_OK
    command, rest = args[0], args[1:]
    if any(a in ("-h", "--help") for a in rest):
        print(USAGE)
        return EXIT_OK
    if command == "list":
        if rest:
            print(f"simulo asset list: unexpected argument {rest[0]!r}; 'list' takes none", file=sys.stderr)
            return EXIT_USAGE
        return _list()
    if command == "check":
        if not rest:
            print("simulo asset check: no reference given; expected REF [REF ...], e.g. simulo/robot/cartpole:v1",
                  file=sys.stderr)
            return EXIT_USAGE
        return _check(rest)
    print(f"simulo asset: unknown subcommand {command!r}; expected 'list' or 'check'", file=sys.stderr)
    return EXIT_USAGE
