"""The local robot catalog and the registry reference grammar.

A reference reads ``[<publisher>/]<kind>/<name>:v<N>``, as in the cloud SDK:

* ``simulo/robot/cartpole:v1``: the ``simulo`` publisher names the global catalog, which this module
  holds (URDF files next to it as package data, plus pybullet_data's Franka Panda, found at run time).
* ``robot/byo-urdf-arm:v1``: no publisher names your own organisation's assets, which live in local
  folders (see :mod:`simulo.authoring.catalog.organisation`).

The version is always required here: there is no server to pick the latest one.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from simulo.authoring.pose import Pose
from simulo.errors import AssetError
from simulo.frozen import frozen_dataclass

if TYPE_CHECKING:
    from pathlib import Path

REF_FORM = "simulo/robot/<name>:v<N>"
"""The form of a catalog reference, for error messages."""

ORG_REF_FORM = "robot/<name>:v<N>"
"""The form of an organisation reference, for error messages."""

KINDS: tuple[str, ...] = ("robot", "world", "prop")
"""The asset kinds a reference may name (the SDK's ``ASSET_KINDS``)."""

GLOBAL_PUBLISHER = "simulo"
"""The publisher segment of the global catalog."""

_REF = (  # compiled on first use (re keeps it), not at import
    r"^(?:(?P<publisher>[a-z0-9][a-z0-9_-]*)/)?(?P<kind>[a-z]+)/(?P<name>[a-z0-9][a-z0-9_.-]*)"
    r":v(?P<version>[1-9][0-9]*)$"
)
_FOLDER = os.path.dirname(os.path.realpath(__file__))
_PYBULLET_DATA = "pybullet_data"


@frozen_dataclass
class AssetRef:
    """A parsed registry reference.

    Attributes:
        text: The reference as written (surrounding spaces removed).
        publisher: ``"simulo"`` for the global catalog, another publisher, or None for your organisation.
        kind: One of :data:`KINDS`.
        name: The asset name.
        version: The version number (>= 1).
    """

    text: str
    publisher: str | None
    kind: str
    name: str
    version: int


def parse_ref(ref: object) -> AssetRef:
    """Parse a registry reference.

    Args:
        ref: ``simulo/robot/<name>:v<N>`` (the catalog) or ``robot/<name>:v<N>`` (your organisation).

    Raises:
        AssetError: ``ref`` is not a string of one of those forms, or names an unknown kind.
    """
    if not isinstance(ref, str):
        raise AssetError(f"registry reference must be a string of the form {REF_FORM!r} or {ORG_REF_FORM!r}, "
                         f"got {ref!r}")
    text = ref.strip(" \t")
    if text in _ENTRIES:  # one of the catalog's own references, well formed (a test parses each with _REF)
        publisher, kind, rest = text.split("/")
        name, version = rest.rsplit(":v", 1)
        return AssetRef(text, publisher, kind, name, int(version))
    match = re.match(_REF, text)
    if match is None or "\n" in text:
        hint = " (the version is required)" if ":" not in ref else ""
        raise AssetError(f"bad registry reference {ref!r}: expected the form {REF_FORM!r} (the catalog) or "
                         f"{ORG_REF_FORM!r} (your organisation's assets){hint}, e.g. 'simulo/robot/cartpole:v1'")
    if match["kind"] not in KINDS:
        raise AssetError(f"bad registry reference {ref!r}: unknown kind {match['kind']!r}; expected one of "
                         f"{', '.join(KINDS)}")
    return AssetRef(text, match["publisher"], match["kind"], match["name"], int(match["version"]))


@frozen_dataclass
class CatalogEntry:
    """One catalog model.

    Attributes:
        ref: Its registry reference, e.g. ``"simulo/robot/cartpole:v1"``.
        file_name: The URDF file, relative to the folder named by ``data``.
        fixed_base: Whether the model's base is bolted to the world.
        spawn_pose: The model's own spawn pose (used when the scene places it at identity), or None.
        joints: How many non-fixed joints the model has (the width of its joint columns).
        description: One line for ``simulo asset list``.
        data: Where ``file_name`` lives: ``"catalog"`` (this package) or ``"pybullet_data"`` (the
            ``pybullet_data`` package, found at run time without importing it).
        engine_inertia: Whether the engine computes the links' inertia from their collision shapes, as PyBullet
            does by default, instead of reading the file's tensors: the pick-and-place arm, whose numbers are the
            seed program's, which loads it so, and pybullet_data's Panda, loaded as PyBullet's own examples load it
            (its file tensors make the engine-motor arm drift off an IK goal it reached).
        name_prefix: A prefix of the file's link and joint names that the SDK's version of the model does not
            have, dropped when it loads (:mod:`simulo.authoring.catalog.rename`), or ``""``.
    """

    ref: str
    file_name: str
    fixed_base: bool
    spawn_pose: Pose | None
    joints: int
    description: str
    data: str = "catalog"
    engine_inertia: bool = False
    name_prefix: str = ""

    @property
    def file(self) -> Path:
        """:attr:`file_path` as a :class:`pathlib.Path`.

        Raises:
            AssetError: The file lives in ``pybullet_data`` and that package is not installed.
        """
        from pathlib import Path  # noqa: PLC0415 (pathlib costs the flagship's start-up 4 ms; it reads file_path)

        return Path(self.file_path)

    @property
    def file_path(self) -> str:
        """The URDF file, as an absolute path.

        Raises:
            AssetError: The file lives in ``pybullet_data`` and that package is not installed.
        """
        if self.data == "catalog":
            return os.path.join(_FOLDER, self.file_name)
        import importlib.util  # noqa: PLC0415 (only for a model read from pybullet_data)

        spec = importlib.util.find_spec(_PYBULLET_DATA)  # finds the folder; imports nothing
        if spec is None or spec.origin is None:
            raise AssetError(f"catalog model {self.ref!r} is read from the {_PYBULLET_DATA!r} package "
                             f"({self.file_name}), which is not installed; install it with 'pip install pybullet'")
        return os.path.join(os.path.dirname(os.path.realpath(spec.origin)), self.file_name)


def _entries(*entries: CatalogEntry) -> dict[str, CatalogEntry]:
    return {entry.ref: entry for entry in entries}


_PANDA = ("7 arm joints panda_joint1..7 and two prismatic fingers; pybullet_data's franka_panda/panda.urdf "
          "(fixed base)")
_PANDA_V2 = ("the v1 Panda with the SDK's v2 names: joints joint1..7 and finger_joint1..2, links link0..8, hand, "
             "leftfinger, rightfinger")
_ENTRIES: dict[str, CatalogEntry] = _entries(
    # Isaac Lab's cartpole also spawns with its rail 2 m above the ground.
    CatalogEntry("simulo/robot/cartpole:v1", "cartpole.urdf", True, Pose.from_xyz(0.0, 0.0, 2.0), 2,
                 "cart on a 2 m high rail (slider_to_cart) with an unactuated pole (cart_to_pole)"),
    CatalogEntry("simulo/robot/pick_arm:v1", "pick_arm.urdf", True, None, 7,
                 "five-joint arm with a gear-coupled parallel gripper (the pick-and-place app's arm)",
                 engine_inertia=True),
    CatalogEntry("simulo/robot/jetbot:v1", "jetbot.urdf", False, None, 2,
                 "NVIDIA JetBot: differential drive (left_wheel_joint, right_wheel_joint) and a ball caster"),
    CatalogEntry("simulo/robot/jetbot:v2", "jetbot.urdf", False, None, 2,
                 "NVIDIA JetBot (same model as v1)"),
    CatalogEntry("simulo/robot/franka-panda:v1", "franka_panda/panda.urdf", True, None, 9, _PANDA,
                 _PYBULLET_DATA, engine_inertia=True),
    CatalogEntry("simulo/robot/franka-panda:v2", "franka_panda/panda.urdf", True, None, 9, _PANDA_V2,
                 _PYBULLET_DATA, engine_inertia=True, name_prefix="panda_"),
    CatalogEntry("simulo/robot/humanoid:v1", "humanoid.urdf", False, Pose.from_xyz(0.0, 0.0, 1.34), 21,
                 "MuJoCo humanoid: 21 hinge joints, capsules and spheres, floating base (torso at 1.34 m)"),
    CatalogEntry("simulo/robot/anymal-c:v1", "anymal_c.urdf", False, Pose.from_xyz(0.0, 0.0, 0.6), 12,
                 "ANYbotics ANYmal C quadruped: 12 joints LF/LH/RF/RH _HAA/_HFE/_KFE, primitive shapes"),
    CatalogEntry("simulo/robot/unitree-h1:v1", "unitree_h1.urdf", False, Pose.from_xyz(0.0, 0.0, 1.05), 19,
                 "Unitree H1 humanoid: 19 joints (legs, torso, arms), primitive shapes, floating base"),
    CatalogEntry("simulo/robot/pick-and-place:v1", "pick_and_place.urdf", True, None, 3,
                 "gantry with a suction cup on three prismatic joints x_axis, y_axis, z_axis"),
)


def available() -> list[str]:
    """The registry references the local catalog holds, sorted."""
    return sorted(_ENTRIES)


def entries() -> list[CatalogEntry]:
    """Every catalog entry, sorted by reference."""
    return [_ENTRIES[ref] for ref in available()]


def lookup(ref: str | AssetRef) -> CatalogEntry:
    """The catalog entry of a registry reference.

    Args:
        ref: A reference of the form ``simulo/robot/<name>:v<N>``, as text or parsed.

    Raises:
        AssetError: ``ref`` is malformed, is an organisation reference, or names a model or version the
            catalog lacks (the message lists the available references).
    """
    parsed = ref if isinstance(ref, AssetRef) else parse_ref(ref)
    entry = _ENTRIES.get(parsed.text)
    if entry is not None:
        return entry
    if parsed.publisher is None:
        what = (f"it names your organisation's assets (no publisher), which the catalog does not hold; "
                f"the catalog's references start with '{GLOBAL_PUBLISHER}/'")
    elif parsed.publisher != GLOBAL_PUBLISHER or parsed.kind != "robot":
        what = ("only the 'simulo' publisher's robots are available locally (your organisation's assets are "
                f"written without a publisher, e.g. '{parsed.kind}/{parsed.name}:v{parsed.version}')")
    else:
        what = "no such model or version in the local catalog"
    raise AssetError(f"unknown registry reference {parsed.text!r}: {what}; available: {', '.join(available())}")
