"""The URDF file the engine loads: the checked file itself, or a prepared copy of it.

The engine gets the asset's own file when it can load it as written. It gets a prepared copy when the
document needs something PyBullet would get wrong:

- ``package://`` meshes: rewritten to the absolute path the checker resolved (ROS's search, not PyBullet's);
- ASCII STL meshes: converted to binary STL (PyBullet 3.2.7 loads ASCII STL as empty geometry) and the
  filename pointed at the binary copy, written next to the prepared URDF;
- ``$(optenv ...)`` values: replaced by what the checker read.

A prepared copy names every mesh and texture by its absolute path, so it lives in a per-user cache folder
(``<tmp>/simulo-urdf-<uid>``) and never writes into the asset's own folder. Everything else in the document
stays byte for byte as written. Files are named by a hash of their content and written once, atomically.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from simulo.authoring.meshes import binary_stl_copy, write_once
from simulo.authoring.packages import resolve_mesh
from simulo.authoring.urdf import check_urdf
from simulo.authoring.urdf_xml import edit_attributes, parse
from simulo.errors import AssetError

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def cache_folder() -> Path:
    """The per-user folder for prepared URDFs and converted meshes."""
    user = f"-{os.getuid()}" if hasattr(os, "getuid") else ""  # one folder per user on shared machines
    return Path(tempfile.gettempdir()) / f"simulo-urdf{user}"


def engine_urdf_path(text: str, name: str, base_dir: Path | None, source_path: Path | None) -> Path:
    """The URDF file the engine should load for an asset.

    Args:
        text: The asset's URDF document (already checked; checked again here, so that the mesh positions
            belong to this very text, which may be a derived variant such as the one with collision visuals).
        name: The asset's name (for file names and messages).
        base_dir: The folder relative mesh paths start from, or None.
        source_path: The file the text was read from, or None.

    Returns:
        ``source_path`` when the engine can load it as written; otherwise a written file: the prepared copy
        (see the module docstring), or, for a string that needs no preparing, the text itself, inside
        ``base_dir`` when given (so relative mesh paths resolve), else in :func:`cache_folder`.

    Raises:
        UrdfError: A mesh file changed since the asset was made and is no longer loadable.
        AssetError: A mesh cannot be found because the asset has no folder, or a file cannot be written.
    """
    model = check_urdf(text, source=str(source_path) if source_path is not None else name, base_dir=base_dir)
    unresolved = [m.filename for m in model.meshes if m.path is None]
    if unresolved:
        raise AssetError(f"asset {name!r} names mesh {unresolved[0]!r} but has no folder to find it in; pass "
                         "base_dir= to Asset.from_urdf_string, or use Asset.from_urdf_file")
    folder = cache_folder()
    prepare = any(m.package or m.ascii_stl for m in model.meshes) or bool(model.substitutions)
    if not prepare and source_path is not None:
        return source_path
    if prepare:
        edits = {(offset, attr): value for offset, attr, value in model.substitutions}
        for mesh in model.meshes:
            assert mesh.path is not None  # unresolved meshes were refused above
            path = binary_stl_copy(mesh.path, folder) if mesh.ascii_stl else mesh.path
            edits[(mesh.offset, "filename")] = str(path)
        edits.update(_texture_edits(text, base_dir))
        text = edit_attributes(text, edits)
    elif base_dir is not None:
        folder = base_dir
    data = text.encode("utf-8")
    target = folder / f".simulo-{_UNSAFE.sub('_', name)[:40]}-{hashlib.sha256(data).hexdigest()[:16]}.urdf"
    write_once(target, data, f"the URDF of asset {name!r}")
    return target


def _texture_edits(text: str, base_dir: Path | None) -> dict[tuple[int, str], str]:
    """Absolute paths for the ``<texture filename>`` values that resolve inside the asset's folder.

    Textures are drawn, never simulated; one that does not resolve is left as written (PyBullet then draws
    the link untextured, as it would have from the original file).
    """
    root, _ = parse(text)
    edits: dict[tuple[int, str], str] = {}
    for node in root.iter() if root is not None else []:
        if node.tag == "texture" and node.attrib.get("filename", "").strip():
            path, problem = resolve_mesh(node.attrib["filename"], base_dir)
            if path is not None and problem is None:
                edits[(node.offset, "filename")] = str(path)
    return edits
