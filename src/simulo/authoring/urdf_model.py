"""The summary of a checked URDF: links, joints, meshes and notes (see :func:`simulo.authoring.urdf.check_urdf`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulo.frozen import frozen_dataclass

if TYPE_CHECKING:
    from pathlib import Path

JOINT_TYPES: tuple[str, ...] = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar", "spherical")
"""Joint types a URDF may use: urdfdom's, and PyBullet's ``spherical`` (a ball joint; pybullet_data's humanoid)."""


@frozen_dataclass
class JointLimits:
    """The ``<limit>`` of a revolute or prismatic joint (rad or m; N·m or N; rad/s or m/s)."""

    lower: float
    upper: float
    effort: float
    velocity: float


@frozen_dataclass
class UrdfJoint:
    """One ``<joint>`` of a checked URDF.

    Attributes:
        name: Joint name.
        type: One of :data:`JOINT_TYPES`.
        parent: Parent link name.
        child: Child link name.
        axis: Joint axis in the joint frame, as written (default ``(1, 0, 0)``).
        limits: Limits of a revolute or prismatic joint; ``None`` for other types.
        origin_xyz: Joint frame position in the parent link frame.
        origin_rpy: Joint frame roll, pitch, yaw in the parent link frame.
    """

    name: str
    type: str
    parent: str
    child: str
    axis: tuple[float, float, float]
    limits: JointLimits | None
    origin_xyz: tuple[float, float, float] = (0.0, 0.0, 0.0)
    origin_rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)


@frozen_dataclass
class UrdfMesh:
    """One ``<mesh>`` of a checked URDF and the file it resolves to.

    Attributes:
        offset: Byte offset of the ``<mesh`` start tag in the UTF-8 document (for rewriting its filename).
        filename: The ``filename`` attribute as written.
        path: The resolved file, or None when the URDF was checked without a folder.
        ascii_stl: The file is an ASCII STL, which the engine must be given as a binary copy.
        package: The filename is a ``package://`` URI, which the engine must be given resolved.
    """

    offset: int
    filename: str
    path: Path | None
    ascii_stl: bool = False
    package: bool = False


@frozen_dataclass
class UrdfModel:
    """Summary of a URDF that passed :func:`check_urdf`.

    Attributes:
        name: The robot name.
        links: Link names in document order.
        joints: Joints in document order.
        root_link: The one link that is no joint's child.
        meshes: Every ``<mesh>``, in document order.
        substitutions: ``$(optenv ...)`` values as (start-tag offset, attribute, expanded value).
        notes: Things accepted that change how the engine treats the model (a massless root link).
        inertia_not_from_file: Links of positive mass whose ``<inertia>`` an engine must not take from the file
            (zero, singular, or breaking the triangle inequality: PyBullet's ``URDF_USE_INERTIA_FROM_FILE`` steps
            them to NaN); compute theirs from the collision shapes instead. See
            :func:`simulo.authoring.inertia.usable_from_file`.
    """

    name: str
    links: tuple[str, ...]
    joints: tuple[UrdfJoint, ...]
    root_link: str
    meshes: tuple[UrdfMesh, ...] = ()
    substitutions: tuple[tuple[int, str, str], ...] = ()
    notes: tuple[str, ...] = ()
    inertia_not_from_file: tuple[str, ...] = ()

    @property
    def joint_names(self) -> tuple[str, ...]:
        """All joint names in document order."""
        return tuple(j.name for j in self.joints)

    @property
    def movable_joints(self) -> tuple[UrdfJoint, ...]:
        """The joints that are not ``fixed``, in document order."""
        return tuple(j for j in self.joints if j.type != "fixed")
