"""The local robot catalog: registry references such as ``simulo/robot/cartpole:v1`` -> packaged URDF files.

A reference has the form ``simulo/robot/<name>:v<N>``: the ``simulo`` publisher (the global catalog), the
``robot`` kind, a model name and an explicit version. Files live next to this module as package data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from simulo.authoring.pose import Pose
from simulo.errors import AssetError

REF_FORM = "simulo/robot/<name>:v<N>"
"""The form of a catalog reference, for error messages."""

_REF = re.compile(
    r"^(?P<publisher>[a-z0-9][a-z0-9_-]*)/(?P<kind>[a-z]+)/(?P<name>[a-z0-9][a-z0-9_.-]*):v(?P<version>[1-9][0-9]*)$"
)
_FOLDER = Path(__file__).resolve().parent


@dataclass(frozen=True)
class CatalogEntry:
    """One catalog model.

    Attributes:
        ref: Its registry reference, e.g. ``"simulo/robot/cartpole:v1"``.
        file: The URDF file, inside the catalog package.
        fixed_base: Whether the model's base is bolted to the world.
        spawn_pose: The model's own spawn pose (added to where the scene places it), or None.
    """

    ref: str
    file: Path
    fixed_base: bool
    spawn_pose: Pose | None


_ENTRIES: dict[str, CatalogEntry] = {
    entry.ref: entry
    for entry in (
        # Isaac Lab's cartpole also spawns with its rail 2 m above the ground.
        CatalogEntry("simulo/robot/cartpole:v1", _FOLDER / "cartpole.urdf", True, Pose.from_xyz(0.0, 0.0, 2.0)),
        CatalogEntry("simulo/robot/pick_arm:v1", _FOLDER / "pick_arm.urdf", True, None),
    )
}


def available() -> list[str]:
    """The registry references the local catalog holds, sorted."""
    return sorted(_ENTRIES)


def lookup(ref: str) -> CatalogEntry:
    """The catalog entry of a registry reference.

    Args:
        ref: A reference of the form ``simulo/robot/<name>:v<N>``.

    Raises:
        AssetError: ``ref`` is not a string of that form, or names a model or version the catalog lacks
            (the message lists the available references).
    """
    if not isinstance(ref, str):
        raise AssetError(f"registry reference must be a string of the form {REF_FORM!r}, got {ref!r}")
    match = _REF.match(ref.strip())
    if match is None:
        hint = " (the version is required)" if ":" not in ref else ""
        raise AssetError(f"bad registry reference {ref!r}: expected the form {REF_FORM!r}{hint}, "
                         f"e.g. 'simulo/robot/cartpole:v1'")
    entry = _ENTRIES.get(ref.strip())
    if entry is None:
        if match["publisher"] != "simulo" or match["kind"] != "robot":
            what = "only the 'simulo' publisher's robots are available locally"
        else:
            what = "no such model or version in the local catalog"
        raise AssetError(f"unknown registry reference {ref!r}: {what}; available: {', '.join(available())}")
    return entry
