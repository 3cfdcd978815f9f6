"""Robot model assets: a checked URDF plus how to spawn it.

An :class:`Asset` is a plain value. Every constructor validates the URDF with
:func:`~simulo.authoring.urdf.check_urdf` at once, so a bad model fails where it is named, not when a
scene is built. The PyBullet engine loads URDF; USD assets are refused with a message saying so.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from simulo.authoring.catalog import lookup
from simulo.authoring.pose import Pose
from simulo.authoring.urdf import UrdfModel, check_urdf
from simulo.errors import AssetError

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _folder(base_dir: str | os.PathLike[str] | None) -> Path | None:
    if base_dir is None:
        return None
    folder = Path(base_dir).expanduser().resolve()
    if not folder.is_dir():
        raise AssetError(f"base_dir {str(base_dir)!r} is not an existing folder; expected the folder that the "
                         "URDF's relative mesh paths start from")
    return folder


def _fixed(fixed_base: object) -> bool | None:
    if fixed_base is not None and not isinstance(fixed_base, bool):
        raise AssetError(f"fixed_base must be True, False or None, got {fixed_base!r}")
    return fixed_base


@dataclass(frozen=True)
class Asset:
    """A robot model the engine can load: a checked URDF document and its spawn defaults.

    Build one with :meth:`from_urdf_string`, :meth:`from_urdf_file` or :meth:`from_registry`.

    Attributes:
        name: Model name (the URDF robot name unless given).
        urdf_text: The URDF document.
        base_dir: The folder relative mesh paths start from, or None.
        fixed_base: Whether the base is bolted to the world; None leaves the choice to the robot.
        spawn_pose: The model's own spawn pose, applied on top of where the scene places it
            (the catalog cartpole's 2 m rail height), or None.
        model: The checked URDF summary (links, joints, root link).
        source_path: The URDF file the asset was read from, or None for a string.
    """

    name: str
    urdf_text: str
    base_dir: Path | None
    fixed_base: bool | None
    spawn_pose: Pose | None
    model: UrdfModel
    source_path: Path | None = None

    @classmethod
    def from_urdf_string(
        cls,
        text: str,
        name: str | None = None,
        fixed_base: bool | None = None,
        base_dir: str | os.PathLike[str] | None = None,
    ) -> Asset:
        """An asset from a URDF document held in a string.

        Args:
            text: The URDF document.
            name: Model name; defaults to the URDF's robot name.
            fixed_base: Bolt the base to the world (True), leave it free (False), or let the robot decide (None).
            base_dir: Folder that relative mesh paths start from; meshes must stay inside it.

        Raises:
            UrdfError: The document has problems (all listed).
            AssetError: ``base_dir`` is not a folder, or ``name``/``fixed_base`` have the wrong type.
        """
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise AssetError(f"asset name must be a non-empty string, got {name!r}")
        folder = _folder(base_dir)
        model = check_urdf(text, source=name or "<URDF string>", base_dir=folder)
        return cls(name or model.name, text, folder, _fixed(fixed_base), None, model)

    @classmethod
    def from_urdf_file(cls, path: str | os.PathLike[str], fixed_base: bool | None = None) -> Asset:
        """An asset from a URDF file; relative mesh paths start from the file's folder.

        Raises:
            AssetError: The file does not exist, is not UTF-8 text, or is a USD file.
            UrdfError: The document has problems (all listed).
        """
        file = Path(path).expanduser().resolve()
        if file.suffix.lower() in (".usd", ".usda", ".usdc", ".usdz"):
            cls.usd(path)
        if not file.is_file():
            raise AssetError(f"URDF file {str(path)!r} not found; expected a path to a .urdf file")
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise AssetError(f"URDF file {str(path)!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
        model = check_urdf(text, source=str(path), base_dir=file.parent)
        return cls(model.name, text, file.parent, _fixed(fixed_base), None, model, file)

    @classmethod
    def urdf(cls, path: str | os.PathLike[str]) -> Asset:
        """Same as :meth:`from_urdf_file` (the cloud SDK's spelling)."""
        return cls.from_urdf_file(path)

    @classmethod
    def from_registry(cls, ref: str) -> Asset:
        """A model from the local catalog, e.g. ``Asset.from_registry("simulo/robot/cartpole:v1")``.

        Raises:
            AssetError: ``ref`` is malformed (expected ``simulo/robot/<name>:v<N>``) or unknown (the message
                lists the available references).
        """
        entry = lookup(ref)
        return replace(cls.from_urdf_file(entry.file, fixed_base=entry.fixed_base), spawn_pose=entry.spawn_pose)

    @classmethod
    def usd(cls, path: str | os.PathLike[str]) -> Asset:
        """USD is not loadable here; always raises.

        Raises:
            AssetError: Always: the PyBullet engine loads URDF only.
        """
        raise AssetError(
            f"USD asset {str(path)!r} cannot be loaded: the PyBullet engine loads URDF only. Convert the model to "
            "URDF (for example with a USD-to-URDF exporter, or export URDF from the tool that made it) and use "
            "Asset.from_urdf_file(...)"
        )

    @classmethod
    def from_usd(cls, path: str | os.PathLike[str]) -> Asset:
        """Same as :meth:`usd`; always raises :class:`~simulo.errors.AssetError`."""
        return cls.usd(path)

    def read_only(self) -> Asset:
        """This asset (assets are immutable values, so always read-only)."""
        return self

    def with_collision_visuals(self) -> Asset:
        """The same model with a visual copy of every collision shape on links that have no visual (for recording)."""
        from simulo.authoring.visuals import with_collision_visuals

        # the drawable copy is written next to the model only when relative mesh paths must keep resolving;
        # otherwise it goes to the temporary folder (an installed package's folder may be read-only)
        base = None
        if "<mesh" in self.urdf_text:
            base = self.base_dir if self.base_dir is not None else (
                self.source_path.parent if self.source_path is not None else None)
        return replace(self, urdf_text=with_collision_visuals(self.urdf_text), base_dir=base, source_path=None)

    def urdf_path(self) -> Path:
        """The URDF file the engine should load.

        The original file for file and catalog assets. For a string, a file named by a hash of its content,
        written once: inside ``base_dir`` when given (so relative mesh paths resolve), else in a temporary folder.

        Raises:
            AssetError: The file cannot be written.
        """
        if self.source_path is not None:
            return self.source_path
        data = self.urdf_text.encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()[:16]
        user = f"-{os.getuid()}" if hasattr(os, "getuid") else ""  # one folder per user on shared machines
        folder = self.base_dir if self.base_dir is not None else Path(tempfile.gettempdir()) / f"simulo-urdf{user}"
        target = folder / f".simulo-{_UNSAFE.sub('_', self.name)[:40]}-{digest}.urdf"
        partial: str | None = None
        try:
            if target.is_file() and target.read_bytes() == data:
                return target
            folder.mkdir(parents=True, exist_ok=True)
            fd, partial = tempfile.mkstemp(dir=folder, prefix=".simulo-", suffix=".partial")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(partial, target)  # atomic: a concurrent reader never sees half a file
            partial = None
        except OSError as exc:
            if partial is not None:
                Path(partial).unlink(missing_ok=True)
            raise AssetError(f"cannot write the URDF of asset {self.name!r} to {str(target)!r}: {exc}; "
                             "use Asset.from_urdf_file with a file on disk instead") from exc
        return target
