"""Robot model assets: a checked URDF plus how to spawn it.

An :class:`Asset` is a plain value. The file and string constructors validate the URDF with
:func:`~simulo.authoring.urdf.check_urdf` at once, so a bad model fails where it is named, not when a
scene is built. A registry reference (:meth:`Asset.from_registry`) is checked for its form at once and
resolved on first use, as the cloud SDK resolves it at submit: importing an app to list its jobs
(``simulo run FILE --list``) reads no model file. Both engines load URDF; a USD asset (:meth:`Asset.from_usd_file`)
is read with usd-core and turned into URDF (:mod:`simulo.authoring.usd`), then checked as a URDF string is.

Paths are held as ``str`` (``os.path``) and handed out as :class:`pathlib.Path` by the public members:
:mod:`pathlib` and the modules it imports (``urllib.parse``, ``ipaddress``) cost about 4 ms, 1.6 % of a
``simulo pick-place`` run, which reads a catalog file and never needs a ``Path``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import field, replace
from functools import cached_property, partial
from typing import TYPE_CHECKING

from simulo.authoring.catalog import lookup, parse_ref
from simulo.authoring.checked_urdf import checked_file
from simulo.authoring.config import ActuatorGainsConfig
from simulo.authoring.limits import MAX_URDF_BYTES, read_bounded
from simulo.authoring.model_physics import ModelPhysics
from simulo.authoring.pose import Pose
from simulo.authoring.urdf_model import UrdfModel
from simulo.errors import AssetError
from simulo.frozen import frozen_dataclass

if TYPE_CHECKING:
    from pathlib import Path

_USD_SUFFIXES = (".usd", ".usda", ".usdc", ".usdz")  # simulo.authoring.usd.USD_SUFFIXES, without importing it


def _folder(base_dir: str | os.PathLike[str] | None) -> str | None:
    if base_dir is None:
        return None
    folder = os.path.realpath(os.path.expanduser(os.fspath(base_dir)))
    if not os.path.isdir(folder):
        raise AssetError(f"base_dir {str(base_dir)!r} is not an existing folder; expected the folder that the "
                         "URDF's relative mesh paths start from")
    return folder


def _fixed(fixed_base: object) -> bool | None:
    if fixed_base is not None and not isinstance(fixed_base, bool):
        raise AssetError(f"fixed_base must be True, False or None, got {fixed_base!r}")
    return fixed_base


def _path(text: str | None) -> Path | None:
    """``text`` as a :class:`pathlib.Path` (imported on first use), or None."""
    if text is None:
        return None
    from pathlib import Path  # noqa: PLC0415 (see the module's docstring)

    return Path(text)


@frozen_dataclass
class _Model:
    """What a resolved asset holds (see :class:`Asset` for the fields)."""

    name: str
    urdf_text: str
    base_dir: str | None
    fixed_base: bool | None
    spawn_pose: Pose | None
    model: UrdfModel
    source_path: str | None
    engine_inertia: bool = False
    physics: ModelPhysics = ModelPhysics()


def _read_urdf(path: str | os.PathLike[str], fixed_base: bool | None, spawn_pose: Pose | None = None) -> _Model:
    """Read and check a URDF file; relative mesh paths start from its folder."""
    path = os.fspath(path)
    try:
        file = os.path.realpath(os.path.expanduser(path))
    except (OSError, ValueError) as exc:  # ValueError: an embedded null byte
        raise AssetError(f"URDF file {path!r} cannot be resolved: {exc}") from exc
    if os.path.splitext(file)[1].lower() in _USD_SUFFIXES:
        raise AssetError(f"{str(path)!r} is a USD file, not a URDF file; load it with Asset.from_usd_file(...)")
    if not os.path.isfile(file):
        raise AssetError(f"URDF file {str(path)!r} not found; expected a path to a .urdf file")
    data = read_bounded(file, MAX_URDF_BYTES, "URDF file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AssetError(f"URDF file {str(path)!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    model = checked_file(text, file)
    return _Model(model.name, text, os.path.dirname(file), fixed_base, spawn_pose, model, file)


def _read_usd(path: str | os.PathLike[str], fixed_base: bool | None) -> _Model:
    """Read a USD articulation as URDF (:mod:`simulo.authoring.usd`) and check it as a URDF string is checked."""
    from simulo.authoring.urdf import check_urdf  # noqa: PLC0415 (only for a USD asset)
    from simulo.authoring.usd import urdf_from_usd  # noqa: PLC0415 (usd-core is imported only for a USD asset)

    converted = urdf_from_usd(path)
    model = check_urdf(converted.urdf_text, source=f"{os.fspath(path)} (converted to URDF)",
                       base_dir=converted.base_dir)
    fixed = converted.fixed_base if fixed_base is None else fixed_base
    return _Model(converted.name, converted.urdf_text, converted.base_dir, fixed, converted.spawn_pose, model, None,
                  engine_inertia=converted.engine_inertia, physics=converted.physics)


def _resolve_catalog(ref: str) -> _Model:
    entry = lookup(ref)
    model = replace(_read_urdf(entry.file_path, entry.fixed_base, entry.spawn_pose),
                    engine_inertia=entry.engine_inertia)
    if not entry.name_prefix:
        return model
    from simulo.authoring.catalog.rename import drop_name_prefix  # noqa: PLC0415 (only for a prefixed model)
    from simulo.authoring.urdf import check_urdf  # noqa: PLC0415

    text = drop_name_prefix(model.urdf_text, entry.name_prefix)  # the SDK's names: a variant of the file's text
    checked = check_urdf(text, source=str(model.source_path), base_dir=model.base_dir)
    return replace(model, urdf_text=text, model=checked, source_path=None)


def _resolve_organisation(ref: str, app_folder: str) -> _Model:
    from simulo.authoring.catalog.organisation import locate  # noqa: PLC0415 (catalog models never search folders)

    found = locate(parse_ref(ref), app_folder)
    if found.entry.suffix.lower() in _USD_SUFFIXES:  # without a simulo.asset.json the stage says if the base is fixed
        from simulo.authoring.catalog.organisation import SIDECAR  # noqa: PLC0415

        return _read_usd(found.entry, found.fixed_base if (found.folder / SIDECAR).is_file() else None)
    return _read_urdf(found.entry, found.fixed_base)


def _caller_folder(depth: int) -> str:
    """The folder of the file ``depth`` frames up the stack, or the working directory if it has none."""
    name = sys._getframe(depth + 1).f_code.co_filename
    return os.path.dirname(os.path.realpath(name)) if os.path.isfile(name) else os.getcwd()


def _registry_resolver(uri: str, caller_folder: str) -> tuple[str, Callable[[], _Model]]:
    """The reference as written and what reads its model on first use; a catalog reference is looked up now.

    Raises:
        AssetError: ``uri`` is malformed, or names a catalog model or version that does not exist.
    """
    parsed = parse_ref(uri)
    if parsed.publisher is None:
        return parsed.text, partial(_resolve_organisation, parsed.text, caller_folder)
    lookup(parsed)
    return parsed.text, partial(_resolve_catalog, parsed.text)


@frozen_dataclass
class Asset:
    """A robot model the engine can load: a checked URDF document and its spawn defaults.

    ``Asset(uri)`` is the SDK's registry handle, the same as :meth:`from_registry`: a reference checked for its
    form at once and resolved on first use. :meth:`from_urdf_string`, :meth:`from_urdf_file` and
    :meth:`from_usd_file` build one from a model. A registry asset reads and checks its file the first time one of
    the model's members is read.

    Args:
        uri: A registry reference (see :meth:`from_registry`).
        read_only: The SDK's read-only flag of a registry mount, recorded (:attr:`is_read_only`). Assets are never
            written here, so it changes nothing else.

    Raises:
        AssetError: ``uri`` is malformed, or names a catalog model or version that does not exist.

    Attributes:
        ref: The registry reference it was made from, or None.
        name: Model name (the URDF robot name unless given).
        urdf_text: The URDF document.
        base_dir: The folder relative mesh paths start from, or None.
        fixed_base: Whether the base is bolted to the world; None leaves the choice to the robot.
        spawn_pose: The model's own spawn pose, used when the scene places it at identity
            (the catalog cartpole's 2 m rail height), or None.
        model: The checked URDF summary (links, joints, root link).
        source_path: The URDF file the asset was read from, or None for a string.
    """

    ref: str | None = None
    _model: _Model | None = field(default=None, repr=False)
    _resolve: Callable[[], _Model] | None = field(default=None, repr=False, compare=False)
    _read_only: bool = True

    def __init__(self, uri: str, *, read_only: bool = True) -> None:
        ref, resolve = _registry_resolver(uri, _caller_folder(1))
        self._fill(ref, None, resolve, read_only)

    def _fill(self, ref: str | None, model: _Model | None, resolve: Callable[[], _Model] | None,
              read_only: bool) -> None:
        """Set the fields (the class is frozen): ``model`` for a model asset, ``resolve`` for a registry one."""
        if not isinstance(read_only, bool):
            raise AssetError(f"read_only must be True or False, got {read_only!r}")
        for name, value in (("ref", ref), ("_model", model), ("_resolve", resolve), ("_read_only", read_only)):
            object.__setattr__(self, name, value)

    @classmethod
    def _made(cls, ref: str | None, model: _Model | None, resolve: Callable[[], _Model] | None = None,
              read_only: bool = True) -> Asset:
        """An asset with these fields: the constructors' path past ``__init__``, which takes only a reference."""
        asset = cls.__new__(cls)
        asset._fill(ref, model, resolve, read_only)
        return asset

    @cached_property
    def _loaded(self) -> _Model:
        if self._model is not None:
            return self._model
        assert self._resolve is not None  # _fill sets one of the two
        return self._resolve()

    @property
    def is_read_only(self) -> bool:
        """Whether this handle is read-only (the SDK's flag; ``Asset(uri, read_only=...)``, True by default)."""
        return self._read_only

    @property
    def name(self) -> str:
        """Model name (the URDF robot name unless given)."""
        return self._loaded.name

    @property
    def urdf_text(self) -> str:
        """The URDF document."""
        return self._loaded.urdf_text

    @property
    def base_dir(self) -> Path | None:
        """The folder relative mesh paths start from, or None."""
        return _path(self._loaded.base_dir)

    @property
    def fixed_base(self) -> bool | None:
        """Whether the base is bolted to the world; None leaves the choice to the robot."""
        return self._loaded.fixed_base

    @property
    def spawn_pose(self) -> Pose | None:
        """The model's own spawn pose, used when the scene places it at identity, or None."""
        return self._loaded.spawn_pose

    @property
    def model(self) -> UrdfModel:
        """The checked URDF summary (links, joints, root link)."""
        return self._loaded.model

    @property
    def drive_gains(self) -> dict[str, ActuatorGainsConfig]:
        """The model's own joint drives, by joint name: a USD ``DriveAPI``'s stiffness and damping, as the
        ideal PD drive of :class:`~simulo.ActuatorGainsConfig` (N·m/rad, N·m·s/rad; N/m, N·s/m). Empty for URDF.
        A robot's ``actuator_gains`` override them joint by joint."""
        return {name: ActuatorGainsConfig(stiffness=stiffness, damping=damping)
                for name, stiffness, damping in self._loaded.physics.drive_gains}

    @property
    def physics(self) -> ModelPhysics:
        """What the model file gives beyond its URDF text: a USD stage's drive gains, contact materials, solver
        iterations and self-collision setting, and the reader's notes. Empty for URDF."""
        return self._loaded.physics

    @property
    def inertia_from_file(self) -> bool:
        """Whether the engine takes the links' inertia tensors from the file: every model but the catalog's seed arm
        and pybullet_data Panda, whose inertia PyBullet computes from their collision shapes, as the seed program
        and PyBullet's own examples load them (see ``CatalogEntry.engine_inertia``)."""
        return not self._loaded.engine_inertia

    @property
    def source_path(self) -> Path | None:
        """The URDF file the asset was read from, or None for a string."""
        return _path(self._loaded.source_path)

    def __repr__(self) -> str:
        if self.ref is not None:
            flag = "" if self._read_only else ", read_only=False"
            return f"Asset.from_registry({self.ref!r}{flag})"
        model = self.model
        source = self._loaded.source_path
        where = f"source_path={source!r}" if source is not None else "from a string"
        return f"Asset(name={self.name!r}, {len(model.links)} links, {len(model.joints)} joints, {where})"

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
        from simulo.authoring.urdf import check_urdf  # noqa: PLC0415 (a string is always checked afresh)

        folder = _folder(base_dir)
        model = check_urdf(text, source=name or "<URDF string>", base_dir=folder)
        return cls._made(None, _Model(name or model.name, text, folder, _fixed(fixed_base), None, model, None))

    @classmethod
    def from_urdf_file(cls, path: str | os.PathLike[str], fixed_base: bool | None = None) -> Asset:
        """An asset from a URDF file; relative mesh paths start from the file's folder.

        Raises:
            AssetError: The file does not exist, is not UTF-8 text, or is a USD file.
            UrdfError: The document has problems (all listed).
        """
        return cls._made(None, _read_urdf(path, _fixed(fixed_base)))

    @classmethod
    def urdf(cls, path: str | os.PathLike[str]) -> Asset:
        """Same as :meth:`from_urdf_file` (the cloud SDK's spelling)."""
        return cls.from_urdf_file(path)

    @classmethod
    def from_registry(cls, uri: str, read_only: bool = True) -> Asset:
        """A model named by a registry reference, read on first use (the same as ``Asset(uri, read_only=...)``).

        * ``simulo/robot/<name>:v<N>``: the local catalog (``simulo asset list`` shows it).
        * ``robot/<name>:v<N>``: your organisation's asset, a folder ``assets/robot/<name>/`` found from
          the calling file's folder upward or on ``SIMULO_ASSET_PATH``
          (see :mod:`simulo.authoring.catalog.organisation`).

        Raises:
            AssetError: At once: ``ref`` is malformed, or names a catalog model or version that does not
                exist (the message lists the available references). On first use: an organisation asset
                is not found (the message lists where it looked) or its files cannot be read.
            UrdfError: On first use: the model's URDF has problems.
        """
        ref, resolve = _registry_resolver(uri, _caller_folder(1))
        return cls._made(ref, None, resolve, read_only)

    @classmethod
    def usd(cls, path: str | os.PathLike[str]) -> Asset:
        """Same as :meth:`from_usd_file` (the cloud SDK's spelling)."""
        return cls.from_usd_file(path)

    @classmethod
    def from_usd(cls, path: str | os.PathLike[str]) -> Asset:
        """Same as :meth:`from_usd_file`."""
        return cls.from_usd_file(path)

    @classmethod
    def from_usd_file(cls, path: str | os.PathLike[str], fixed_base: bool | None = None) -> Asset:
        """An asset from a UsdPhysics articulation in a ``.usd``, ``.usda``, ``.usdc`` or ``.usdz`` file.

        The stage is read with usd-core and turned into URDF (collision meshes as OBJ files in a cache folder,
        which becomes :attr:`base_dir`); the URDF is then checked and loaded as :meth:`from_urdf_string` does.
        What is read and refused: :mod:`simulo.authoring.usd.physics`. Visual meshes are not read yet.

        Args:
            path: The USD file.
            fixed_base: Bolt the base to the world (True), leave it free (False), or follow the stage (None:
                fixed when a PhysicsFixedJoint attaches the root body to the world).

        Raises:
            MissingDependencyError: usd-core is not installed (``pip install 'simulo-local[usd]'``).
            AssetError: The file does not exist or cannot be opened, or its physics uses something the importer
                refuses (the message names the prim and what is expected).
            UrdfError: The converted URDF breaks a URDF rule.
        """
        return cls._made(None, _read_usd(path, _fixed(fixed_base)))

    def read_only(self) -> Asset:
        """A read-only view of this asset (the SDK's builder marker): this asset when it is read-only already."""
        if self._read_only:
            return self
        return self._made(self.ref, self._model, self._resolve)

    def resolve(self) -> Asset:
        """This asset, with its model read and checked now rather than on first use.

        Raises:
            AssetError: A registry asset cannot be found or read.
            UrdfError: Its URDF has problems.
        """
        self._loaded  # noqa: B018 - reading the cached property resolves the model
        return self

    def with_collision_visuals(self) -> Asset:
        """The same model with a visual copy of every collision shape on links that have no visual (for recording)."""
        from simulo.authoring.visuals import with_collision_visuals

        # the drawable copy is written next to the model only when relative mesh paths must keep resolving;
        # otherwise it goes to the temporary folder (an installed package's folder may be read-only)
        base, source = self._loaded.base_dir, self._loaded.source_path
        if "<mesh" not in self.urdf_text:
            base = None
        elif base is None and source is not None:
            base = os.path.dirname(source)
        drawn = replace(self._loaded, urdf_text=with_collision_visuals(self.urdf_text), base_dir=base,
                        source_path=None)
        return Asset._made(self.ref, drawn, read_only=self._read_only)

    def urdf_path(self) -> Path:
        """The URDF file the engine should load (:meth:`urdf_file` as a :class:`pathlib.Path`).

        Raises:
            UrdfError: A mesh file changed since the asset was made and is no longer loadable.
            AssetError: A mesh has no folder to be found in, or a file cannot be written.
        """
        from pathlib import Path  # noqa: PLC0415 (see the module's docstring)

        return Path(self.urdf_file())

    def urdf_file(self) -> str:
        """The URDF file the engine should load, as an absolute path.

        The original file for file and catalog assets that the engine can load as written. A prepared copy
        when the model has ``package://`` or ASCII STL meshes or ``$(optenv ...)`` values (see
        :mod:`simulo.authoring.engine_urdf`). For a string, a file named by a hash of its content, written
        once: inside ``base_dir`` when given (so relative mesh paths resolve), else in a temporary folder.

        Raises:
            UrdfError: A mesh file changed since the asset was made and is no longer loadable.
            AssetError: A mesh has no folder to be found in, or a file cannot be written.
        """
        text, source = self.urdf_text, self._loaded.source_path
        if source is not None and "<mesh" not in text and "$" not in text:
            return source  # no mesh and no substitution: nothing to prepare, the checked file loads as written
        from simulo.authoring.engine_urdf import engine_urdf_path  # noqa: PLC0415 (only for a file to prepare)

        return str(engine_urdf_path(text, self.name, self.base_dir, self.source_path))
