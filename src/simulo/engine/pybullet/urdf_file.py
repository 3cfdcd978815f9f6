"""What a URDF file itself says that the PyBullet engine needs: its link and joint names in document order, and
the links' inertia diagonals.

PyBullet numbers links depth-first and recomputes inertias from collision shapes, so the engine reads both from
the file (:class:`~simulo.engine.pybullet.articulation.PyBulletArticulationBatch` keeps the order, the engine sets
the inertias). The XML parser loads only when a file is read.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from simulo.authoring.urdf_xml import Node


def _parsed_file(path: str | os.PathLike[str]) -> Node | None:
    """The root element of a URDF file, or ``None`` if it cannot be read or parsed."""
    from simulo.authoring.urdf_xml import parse  # noqa: PLC0415 (the XML parser loads only for a file to read)

    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError):
        return None
    root, refused = parse(text)
    return None if refused is not None else root


def document_order(path: str | os.PathLike[str]) -> tuple[list[str], list[str]] | None:
    """Link names and joint names of a URDF file, each in document order (``None`` if it cannot be read)."""
    root = _parsed_file(path)
    if root is None:
        return None
    links = [node.attrib.get("name", "") for node in root.findall("link")]
    joints = [node.attrib.get("name", "") for node in root.findall("joint")]
    return links, joints


def file_inertias(path: str | os.PathLike[str]) -> dict[str, tuple[float, float, float]]:
    """The diagonal of each link's ``<inertia>`` in a URDF, by link name: links whose diagonal is positive and finite.

    PyBullet's default loading recomputes every link's inertia from its collision shapes (and gives a link without
    one about 3e-8 kg·m² whatever its mass: the dummy links that split the catalog humanoid's hips and shoulders
    into single-axis joints then make it explode at dt = 1/120 s under the SDK sample's torques). The engine sets
    these diagonals instead. Off-diagonal terms are dropped, as PyBullet's own recomputation drops them; a link
    whose file gives no usable inertia (zero, negative, or moments that break the triangle inequality) keeps
    PyBullet's value.
    """
    root = _parsed_file(path)
    if root is None:
        return {}
    found: dict[str, tuple[float, float, float]] = {}
    for node in root.findall("link"):
        inertial = node.find("inertial")
        inertia = None if inertial is None else inertial.find("inertia")
        if inertia is None:
            continue
        try:
            values = tuple(float(inertia.attrib.get(k, "0")) for k in ("ixx", "iyy", "izz"))
        except ValueError:
            continue
        a, b, c = values
        # a rigid body's principal moments are positive and obey the triangle inequality; PyBullet steps a link
        # with any other diagonal to NaN, so such a link keeps PyBullet's own value
        if all(math.isfinite(v) and v > 0.0 for v in values) and a + b >= c and b + c >= a and a + c >= b:
            found[node.attrib.get("name", "")] = (a, b, c)
    return found


__all__ = ["document_order", "file_inertias"]
