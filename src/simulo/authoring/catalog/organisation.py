"""Your organisation's assets: ``robot/<name>:v<N>`` references resolved to local folders.

The cloud keeps an organisation's published assets in its catalog. Locally they are the folders they
are published from, laid out as in the SDK's samples repository::

    assets/<kind>/<name>/            one package: its entry file at the top, meshes beneath it
    assets/<kind>/<name>/v<N>/       optional: one folder per published version

A reference is looked for in these roots, in order, and the first folder found wins:

1. each folder on ``SIMULO_ASSET_PATH`` (``os.pathsep``-separated); each holds ``<kind>/<name>/``;
2. ``assets/`` in the app's folder (the folder of the file that called ``Asset.from_registry``), then in
   each folder above it, so ``samples/<sample>/task.py`` finds the repository's ``assets/``.

A folder with ``v<N>`` subfolders must hold the requested version; a folder without them is the one
version there is and serves every ``:v<N>``. The entry is the folder's only ``.urdf`` file, or the file
named by an optional ``simulo.asset.json`` (``{"entry": "robot.urdf", "base": "fixed"}``, the
``--entry`` and ``--base`` of ``simulo asset publish``). The base is fixed unless that file says
``"floating"``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from simulo.authoring.catalog.registry import AssetRef
from simulo.authoring.limits import read_bounded
from simulo.errors import AssetError, SizeLimitError
from simulo.frozen import frozen_dataclass

_MAX_SIDECAR_BYTES = 1024 * 1024

ASSET_PATH_ENV = "SIMULO_ASSET_PATH"
"""Environment variable listing extra asset roots (``os.pathsep``-separated)."""

SIDECAR = "simulo.asset.json"
"""The optional file in an asset folder that names its entry file and base mode."""

_VERSION = re.compile(r"v[1-9][0-9]*")
_ENTRY_SUFFIXES = (".urdf", ".usd", ".usda", ".usdc", ".usdz")
_BASES = {"fixed": True, "floating": False}


@frozen_dataclass
class OrgAsset:
    """A located organisation asset.

    Attributes:
        ref: The reference it was found for.
        folder: The package folder (the version folder when the layout has versions).
        entry: The entry file (a URDF; a USD file is reported by the loader).
        fixed_base: Whether the base is bolted to the world.
    """

    ref: str
    folder: Path
    entry: Path
    fixed_base: bool


def search_roots(app_folder: str | os.PathLike[str]) -> list[Path]:
    """The asset roots searched for references made from ``app_folder``, in order (see the module docstring)."""
    roots = [Path(part).expanduser() for part in os.environ.get(ASSET_PATH_ENV, "").split(os.pathsep) if part]
    folder = Path(app_folder).resolve()
    roots.extend(d / "assets" for d in (folder, *folder.parents))
    return roots


def locate(ref: AssetRef, app_folder: str | os.PathLike[str]) -> OrgAsset:
    """Find the folder and entry file of an organisation reference.

    Args:
        ref: A parsed reference without a publisher.
        app_folder: The folder of the app that made the reference.

    Raises:
        AssetError: No root holds the asset (the message lists every folder looked in), the folder lacks
            the requested version, or its entry file cannot be chosen.
    """
    looked: list[str] = []
    for root in search_roots(app_folder):
        folder = root / ref.kind / ref.name
        looked.append(str(folder))
        if folder.is_dir():
            package = _version_folder(ref, folder)
            entry, fixed = _entry(ref, package)
            return OrgAsset(ref.text, package, entry, fixed)
    listed = "\n".join(f"  - {place}" for place in looked)
    raise AssetError(f"organisation asset {ref.text!r} not found: no folder {ref.kind}/{ref.name}/ in the asset "
                     f"roots ({ASSET_PATH_ENV}, then assets/ in the app's folder {str(app_folder)!r} and every "
                     f"folder above it). Looked in:\n{listed}")


def _version_folder(ref: AssetRef, folder: Path) -> Path:
    versions = sorted((p.name for p in folder.iterdir() if p.is_dir() and _VERSION.fullmatch(p.name)),
                      key=lambda name: int(name[1:]))
    if not versions:
        return folder
    wanted = f"v{ref.version}"
    if wanted not in versions:
        raise AssetError(f"organisation asset {ref.text!r}: {str(folder)!r} holds versions {', '.join(versions)} "
                         f"but not {wanted}; expected a folder {str(folder / wanted)!r}")
    return folder / wanted


def _entry(ref: AssetRef, folder: Path) -> tuple[Path, bool]:
    """The entry file and base mode of a package folder."""
    sidecar = folder / SIDECAR
    settings = _read_sidecar(ref, sidecar) if sidecar.is_file() else {}
    base = settings.get("base", "fixed")
    if base not in _BASES:
        raise AssetError(f"{str(sidecar)!r}: \"base\" is {base!r}; expected \"fixed\" or \"floating\"")
    name = settings.get("entry")
    if name is not None:
        entry = (folder / name).resolve()
        if not entry.is_relative_to(folder.resolve()) or not entry.is_file():
            raise AssetError(f"{str(sidecar)!r}: \"entry\" {name!r} is not a file inside {str(folder)!r}; "
                             "expected a path relative to that folder, e.g. \"robot.urdf\"")
        return entry, _BASES[base]
    candidates = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in _ENTRY_SUFFIXES)
    if len(candidates) != 1:
        found = ", ".join(p.name for p in candidates) or "none"
        raise AssetError(f"organisation asset {ref.text!r}: cannot choose the entry file in {str(folder)!r} "
                         f"(entry files found: {found}); expected exactly one .urdf file at the top of the folder, "
                         f"or a {SIDECAR} naming it: {{\"entry\": \"robot.urdf\"}}")
    return candidates[0], _BASES[base]


def _read_sidecar(ref: AssetRef, sidecar: Path) -> dict[str, str]:
    try:
        data = json.loads(read_bounded(sidecar, _MAX_SIDECAR_BYTES, "asset sidecar").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, SizeLimitError) as exc:
        raise AssetError(f"organisation asset {ref.text!r}: cannot read {str(sidecar)!r} as JSON: {exc}") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) for k, v in data.items() if k in ("entry", "base")):
        raise AssetError(f"{str(sidecar)!r} must hold a JSON object whose \"entry\" and \"base\" are strings, "
                         f"got {repr(data)[:200]}")
    return {k: v for k, v in data.items() if k in ("entry", "base")}
