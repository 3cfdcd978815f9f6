"""Where a URDF's mesh filename points: a path relative to the URDF's folder, or a ``package://`` URI.

Rules (each refusal names the filename and what was expected):

- A relative path starts from the URDF's folder and must stay inside it (no ``..`` out of it, no symbolic
  link leading out of it). Absolute paths, ``file://`` and other URLs are refused: nothing is downloaded.
- ``package://PKG/PATH`` follows the ROS convention. The package folder is found, in this order, as the first
  folder at or above the URDF's folder that is named ``PKG`` or holds a folder named ``PKG``, then in each
  folder of ``ROS_PACKAGE_PATH`` (``os.pathsep``-separated) that is named ``PKG`` or holds ``PKG``. ``PATH``
  must stay inside the package folder.

The engine is always given the resolved absolute path of a ``package://`` mesh (PyBullet's own search for
``package://`` differs from ROS's), so it loads the file that was checked.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path, PurePosixPath, PureWindowsPath

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
PACKAGE_PATH_VARIABLE = "ROS_PACKAGE_PATH"
"""The environment variable listing folders that hold ROS packages."""


def resolve_mesh(filename: str, base_dir: Path | None) -> tuple[Path | None, str | None]:
    """Resolve a ``<mesh filename>`` as the engine should load it.

    Args:
        filename: The attribute as written.
        base_dir: The URDF's folder (resolved), or None to check the text only.

    Returns:
        The resolved file and None; or None and None when the text is fine but there is no folder to look in
        (only ``package://`` then needs one); or None and a problem.
    """
    url = _URL.match(filename)
    if url:
        scheme = url.group(1).lower()
        if scheme == "package":
            return _resolve_package(filename, filename[url.end():], base_dir)
        if scheme == "file":
            return None, (f"mesh filename {filename!r} cannot be resolved: a file:// URL is an absolute path that "
                          "leaves the asset's folder; use a path relative to the URDF file")
        return None, (f"mesh filename {filename!r} cannot be resolved: {scheme}:// URLs are never downloaded; copy "
                      "the mesh into the asset's folder and use a path relative to the URDF file")
    if PurePosixPath(filename).is_absolute() or PureWindowsPath(filename).drive:
        return None, (f"mesh filename {filename!r} is an absolute path, which leaves the asset's folder; use a path "
                      "relative to the URDF file")
    normal = posixpath.normpath(filename.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        return None, (f"mesh filename {filename!r} leaves the asset's folder through '..'; keep meshes in the URDF "
                      "file's folder or below it")
    if base_dir is None:
        return None, None
    return _inside(filename, base_dir / normal, base_dir, "the asset's folder")


def _resolve_package(filename: str, rest: str, base_dir: Path | None) -> tuple[Path | None, str | None]:
    package, _, inner = rest.partition("/")
    normal = posixpath.normpath(inner.replace("\\", "/")) if inner else ""
    if not package or package in (".", "..") or not normal or normal == "." or PurePosixPath(normal).is_absolute():
        return None, (f"mesh filename {filename!r} is not a package URI; expected package://PACKAGE/PATH/TO/MESH")
    if normal == ".." or normal.startswith("../"):
        return None, (f"mesh filename {filename!r} leaves package {package!r} through '..'; expected a path inside "
                      "the package")
    roots = find_package(package, base_dir)
    if not roots:
        where = (f"no folder named {package!r} at or above {str(base_dir)!r}" if base_dir is not None
                 else "no URDF folder to search from")
        listed = os.environ.get(PACKAGE_PATH_VARIABLE, "")
        return None, (f"mesh filename {filename!r}: package {package!r} not found: {where}, and none in "
                      f"{PACKAGE_PATH_VARIABLE}={listed!r}; put the package folder next to (or above) the URDF, or "
                      f"add its parent folder to {PACKAGE_PATH_VARIABLE}")
    return _inside(filename, roots[0] / normal, roots[0], f"package {package!r} ({str(roots[0])!r})")


def find_package(package: str, base_dir: Path | None) -> list[Path]:
    """The candidate folders of a ROS package, in search order (see the module docstring)."""
    candidates: list[Path] = []
    if base_dir is not None:
        candidates += [p for folder in (base_dir, *base_dir.parents) for p in (folder, folder / package)]
    for entry in os.environ.get(PACKAGE_PATH_VARIABLE, "").split(os.pathsep):
        if entry.strip():
            folder = Path(entry).expanduser()
            candidates += [folder, folder / package]
    return [p.resolve() for p in candidates if p.name == package and p.is_dir()]


def _inside(filename: str, path: Path, root: Path, what: str) -> tuple[Path | None, str | None]:
    resolved = path.resolve()
    root = root.resolve()
    if not resolved.is_relative_to(root):
        return None, (f"mesh filename {filename!r} resolves to {str(resolved)!r} (through a symbolic link), outside "
                      f"{what} {str(root)!r}")
    if not resolved.is_file():
        return None, f"mesh file {filename!r} not found in {what} {str(root)!r}"
    return resolved, None
