"""An :class:`~simulo.authoring.usd.physics.Articulation` written as URDF text, its meshes as OBJ files.

Mesh files are named by a hash of their content and written once into a folder (the asset's ``base_dir``); the
URDF names them relative to it, as a URDF file names the meshes beside it. Each visual becomes a ``<visual>`` with
its colour as a ``<material>``. A link without a visual is drawn from its collision shapes, as any URDF link is.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from xml.sax.saxutils import quoteattr

from simulo.authoring.meshes import write_once
from simulo.authoring.usd.colliders import Shape
from simulo.authoring.usd.physics import Articulation, Joint, Link

MESH_FOLDER = "meshes"
"""The subfolder of the asset folder that holds the converted collision meshes."""

_PLACEHOLDER_INERTIA = 1e-4
"""The diagonal written for a link whose inertia the engine computes (kg·m²; any valid tensor, never used)."""


def _num(value: float) -> str:
    text = repr(float(value) + 0.0)  # + 0.0: no "-0.0"
    return text[:-2] if text.endswith(".0") else text


def _vec(values: tuple[float, ...]) -> str:
    return " ".join(_num(v) for v in values)


def _origin(xyz: tuple[float, float, float], rpy: tuple[float, float, float]) -> str:
    if not any(xyz) and not any(rpy):
        return ""
    return f'<origin xyz="{_vec(xyz)}" rpy="{_vec(rpy)}"/>'


def mesh_files(articulation: Articulation) -> dict[str, str]:
    """Every mesh's file name (relative to the asset folder) and OBJ text."""
    files: dict[str, str] = {}
    for link in articulation.links:
        for shape in (*link.shapes, *link.visuals):
            if shape.obj is not None:
                files[_mesh_name(link, shape)] = shape.obj
    return files


def _mesh_name(link: Link, shape: Shape) -> str:
    digest = hashlib.sha256(shape.obj.encode("utf-8") if shape.obj else b"").hexdigest()[:16]
    safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in link.name)[:40]
    return f"{MESH_FOLDER}/{safe}-{digest}.obj"


def write_meshes(articulation: Articulation, folder: Path) -> None:
    """Write the meshes into ``folder`` (each once; a file that already holds its text is kept).

    Raises:
        AssetError: A file cannot be written.
    """
    for name, text in mesh_files(articulation).items():
        write_once(folder / name, text.encode("utf-8"), f"mesh {name!r} converted from USD")


def urdf_text(articulation: Articulation, source: str) -> str:
    """The URDF document of ``articulation``; ``source`` (the USD file) is named in a comment."""
    comment = source.replace("--", "- -")
    lines = ['<?xml version="1.0"?>', f"<!-- converted from USD by simulo: {comment} -->",
             f"<robot name={quoteattr(articulation.name)}>"]
    for link in articulation.links:
        lines += _link(link)
    for joint in articulation.joints:
        lines += _joint(joint)
    lines.append("</robot>")
    return "\n".join(lines) + "\n"


def _link(link: Link) -> list[str]:
    lines = [f"  <link name={quoteattr(link.name)}>", "    <inertial>"]
    com = _origin(link.com, (0.0, 0.0, 0.0))
    if com:
        lines.append(f"      {com}")
    inertia = link.inertia
    if inertia is None:  # the engine computes this link's inertia (Articulation.engine_inertia)
        inertia = (_PLACEHOLDER_INERTIA, 0.0, 0.0, _PLACEHOLDER_INERTIA, 0.0, _PLACEHOLDER_INERTIA)
    names = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    values = " ".join(f'{n}="{_num(v)}"' for n, v in zip(names, inertia))
    lines += [f'      <mass value="{_num(link.mass)}"/>', f"      <inertia {values}/>", "    </inertial>"]
    for k, shape in enumerate(link.visuals):
        lines += _shape("visual", link, shape)
        if shape.rgba is not None:
            lines.insert(-1, f'      <material name={quoteattr(f"{link.name}_{k}")}><color rgba="{_vec(shape.rgba)}"/>'
                             "</material>")
    for shape in link.shapes:
        lines += _shape("collision", link, shape)
    lines.append("  </link>")
    return lines


def _shape(element: str, link: Link, shape: Shape) -> list[str]:
    lines = [f"    <{element}>"]
    origin = _origin(shape.xyz, shape.rpy)
    if origin:
        lines.append(f"      {origin}")
    lines.append(f"      <geometry>{_geometry(link, shape)}</geometry>")
    lines.append(f"    </{element}>")
    return lines


def _geometry(link: Link, shape: Shape) -> str:
    if shape.kind == "mesh":
        return f"<mesh filename={quoteattr(_mesh_name(link, shape))}/>"
    if shape.kind == "box":
        return f'<box size="{_vec(shape.size)}"/>'
    if shape.kind == "sphere":
        return f'<sphere radius="{_num(shape.size[0])}"/>'
    return f'<{shape.kind} radius="{_num(shape.size[0])}" length="{_num(shape.size[1])}"/>'


def _joint(joint: Joint) -> list[str]:
    lines = [f'  <joint name={quoteattr(joint.name)} type="{joint.kind}">',
             f"    <parent link={quoteattr(joint.parent)}/>", f"    <child link={quoteattr(joint.child)}/>"]
    origin = _origin(joint.xyz, joint.rpy)
    if origin:
        lines.append(f"    {origin}")
    if joint.kind != "fixed":
        lines.append(f'    <axis xyz="{_vec(joint.axis)}"/>')
        if joint.kind == "continuous":
            if joint.effort or joint.velocity:
                lines.append(f'    <limit effort="{_num(joint.effort)}" velocity="{_num(joint.velocity)}"/>')
        else:
            lines.append(f'    <limit lower="{_num(joint.lower)}" upper="{_num(joint.upper)}" '
                         f'effort="{_num(joint.effort)}" velocity="{_num(joint.velocity)}"/>')
    lines.append("  </joint>")
    return lines
