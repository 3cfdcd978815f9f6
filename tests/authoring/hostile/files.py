"""Mesh and URDF texts that the hostile-input tests write to files (made here, never downloaded)."""

from __future__ import annotations

import struct

_INERTIAL = ('<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>'
             "</inertial>")


def collada(positions: str = "0 0 0 1 0 0 0 1 0 0 0 1", indices: str = "0 1 2 0 1 3 0 2 3 1 2 3") -> bytes:
    """A COLLADA 1.4.1 document with one triangle mesh (a tetrahedron unless told otherwise)."""
    count = len(positions.split()) // 3
    triangles = len(indices.split()) // 3
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="1" name="meter"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries><geometry id="g" name="g"><mesh>
    <source id="p"><float_array id="pa" count="{count * 3}">{positions}</float_array>
      <technique_common><accessor source="#pa" count="{count}" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles count="{triangles}"><input semantic="VERTEX" source="#v" offset="0"/><p>{indices}</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n"><instance_geometry url="#g"/></node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
""".encode()


def tetra_obj() -> bytes:
    """A tetrahedron as OBJ text."""
    return b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n"


def ascii_stl() -> bytes:
    """One ASCII STL triangle pair (a tetrahedron's four faces)."""
    v = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    faces = [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    body = "".join("facet normal 0 0 1\nouter loop\n" + "".join(f"vertex {x} {y} {z}\n" for x, y, z in
                   (v[i] for i in face)) + "endloop\nendfacet\n" for face in faces)
    return f"solid t\n{body}endsolid t\n".encode()


def binary_stl(triangles: int = 1) -> bytes:
    """A binary STL of ``triangles`` copies of one triangle."""
    tri = struct.pack("<12fH", 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0)
    return b"binary".ljust(80, b" ") + struct.pack("<I", triangles) + tri * triangles


def link(name: str, body: str = "", inertial: bool = True) -> str:
    """A ``<link>`` with a unit inertial unless told otherwise."""
    return f'<link name="{name}">{_INERTIAL if inertial else ""}{body}</link>'


def mesh_link(name: str, filename: str, collision: bool = True) -> str:
    """A link whose collision (or visual) shape is the mesh ``filename``."""
    tag = "collision" if collision else "visual"
    return link(name, f'<{tag}><geometry><mesh filename="{filename}"/></geometry></{tag}>')


def robot(*parts: str, name: str = "r") -> str:
    """A ``<robot>`` document holding ``parts``, one per line."""
    return f'<robot name="{name}">\n' + "\n".join(parts) + "\n</robot>\n"


def revolute(name: str, parent: str, child: str) -> str:
    """A revolute joint about z."""
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            '<origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')


def chain(links: int) -> str:
    """A serial chain of ``links`` links, one element per line."""
    parts = [link(f"l{i}", '<collision><geometry><box size="0.01 0.01 0.01"/></geometry></collision>')
             for i in range(links)]
    parts += [revolute(f"j{i}", f"l{i - 1}", f"l{i}") for i in range(1, links)]
    return robot(*parts)
