"""URDF checking: parse a robot description safely and list every problem in it at once.

:func:`check_urdf` parses safely (a DTD, entity declaration or external reference is refused,
never expanded), then checks the document the way urdfdom and PyBullet read it: names, the link tree, joint
types and limits, inertials, geometry, mesh paths and mesh files. It raises one :class:`~simulo.errors.UrdfError`
listing every problem with its line number, or returns a :class:`UrdfModel` summary.

What is accepted, as urdfdom and PyBullet accept it:

- Massless links, and links without ``<inertial>``, as :mod:`simulo.authoring.masses` documents: a massless
  root is noted (PyBullet makes the base static); only a joint that moves nothing but massless links is refused.
- An ``<axis>`` on a fixed or floating joint is ignored, as urdfdom ignores it.
- ``<geometry>`` takes its first element as the shape, as both parsers do; further non-shape elements (a
  stray ``<material>``) are ignored; two shapes are refused. A visual's size may be 0 (it draws nothing); a
  collision's must be > 0; likewise a mesh without triangles may be a visual only.
- ``package://`` meshes and ``$(optenv ...)`` values: see :mod:`simulo.authoring.packages` and
  :mod:`simulo.authoring.xacro_args`. Mesh files are read and checked by :mod:`simulo.authoring.meshes`.

Pure Python; imports neither ``pybullet`` nor ``numpy``.
"""

from __future__ import annotations

import os
from pathlib import Path

from simulo.authoring import xacro_args
from simulo.authoring.inertia import inertia_problem, usable_from_file
from simulo.authoring.limits import (
    MAX_INERTIA,
    MAX_LINKS,
    MAX_NAME_BYTES,
    line_problems,
    magnitude_problem,
    mass_problem,
)
from simulo.authoring.masses import mass_rules
from simulo.authoring.packages import resolve_mesh
from simulo.authoring.urdf_joints import JointChecks
from simulo.authoring.urdf_model import JOINT_TYPES, JointLimits, UrdfJoint, UrdfMesh, UrdfModel
from simulo.authoring.urdf_xml import Node, number, parse
from simulo.errors import UrdfError

__all__ = ["JOINT_TYPES", "JointLimits", "UrdfJoint", "UrdfMesh", "UrdfModel", "check_urdf"]

_INERTIA_ATTRS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
_SHAPES = ("box", "cylinder", "sphere", "capsule", "mesh")


class _Checker(JointChecks):
    """:class:`~simulo.authoring.urdf_joints.JointChecks` plus the document, link, inertial, geometry and mesh
    rules."""

    # -- whole document -------------------------------------------------------------------------------

    def run(self, root: Node) -> UrdfModel | None:
        if root.tag != "robot":
            self.add(root, f"the root element is <{root.tag}>; a URDF's root element must be <robot name=\"...\">")
            return None
        name = root.attrib.get("name", "")
        if not name.strip():
            self.add(root, "<robot> has no name; expected <robot name=\"...\">")
        elif len(name.encode("utf-8")) > MAX_NAME_BYTES:
            self.add(root, f"<robot> name {name[:40]!r}... has {len(name.encode('utf-8'))} bytes, more than the "
                     f"{MAX_NAME_BYTES} accepted (PyBullet keeps names in 1024-byte buffers and crashes past them)")
        for tag in ("link", "joint"):
            count = len(root.findall(tag))
            if count > MAX_LINKS:
                self.add(root, f"the robot has {count} {tag}s, more than the {MAX_LINKS} links accepted (PyBullet's "
                         "load time grows as the cube of the link count: 2.3 s for 250 links, 17 s for 500)")
                return None
        for node in root.iter():
            for attr, value in node.attrib.items():
                expanded, problem = xacro_args.expand(value)
                if problem is not None:
                    self.add(node, f"<{node.tag}> {attr}: {problem}")
                elif expanded != value:
                    node.attrib[attr] = expanded
                    self.substitutions.append((node.offset, attr, expanded))
            if node.tag == "origin":
                for attr in ("xyz", "rpy"):
                    values = self.numbers(node, attr, 3, "<origin>") if attr in node.attrib else None
                    problem = magnitude_problem(values, "<origin> xyz") if values and attr == "xyz" else None
                    if problem:
                        self.add(node, problem)
        link_lines = self.check_links(root)
        joints, children, orphans = self.check_joints(root, link_lines)
        root_link = self.check_tree(root, link_lines, joints, children, orphans)
        if root_link:
            notes, problems = mass_rules(root_link, joints, self.masses, self.no_inertial)
            self.notes += notes
            self.problems += [(self.joint_lines[name], message) for name, message in problems]
        return UrdfModel(name, tuple(link_lines), tuple(joints), root_link, tuple(self.meshes),
                         tuple(self.substitutions), tuple(self.notes), tuple(self.not_from_file))

    # -- links ----------------------------------------------------------------------------------------

    def check_links(self, robot: Node) -> dict[str, int]:
        lines: dict[str, int] = {}
        for link in robot.findall("link"):
            link_name, label = self.named(link, "link", '<link name="...">', lines)
            collisions = link.findall("collision")
            for element in (*link.findall("visual"), *collisions):
                geometry = element.find("geometry")
                if geometry is None:
                    self.add(element, f"{label}: <{element.tag}> has no <geometry>")
                else:
                    self.check_geometry(geometry, f"{label} <{element.tag}>", element.tag == "collision")
            inertial = link.find("inertial")
            if inertial is None:
                if collisions:
                    self.add(link, f"{label} has <collision> geometry but no <inertial>; add one with a <mass> and "
                             "an <inertia> (PyBullet would silently give it 1 kg and unit inertia)")
            self.masses[link_name] = 1.0 if inertial is None else self.check_inertial(inertial, label, link_name)
            if inertial is None and link_name.strip():
                self.no_inertial.append(link_name)
        if not robot.findall("link"):
            self.add(robot, "the robot defines no <link>; a URDF needs at least one")
        return lines

    def check_inertial(self, inertial: Node, label: str, link_name: str) -> float:
        """Check an ``<inertial>``; return its mass (1 kg when malformed, so mass rules stay quiet then)."""
        mass = inertial.find("mass")
        value: float | None = 1.0
        if mass is None or "value" not in mass.attrib:
            self.add(mass or inertial, f"{label}: <inertial> needs <mass value=\"...\"> (kg, >= 0)")
        else:
            value = number(mass.attrib["value"])
            if value is None or value < 0:
                self.add(mass, f"{label}: mass value={mass.attrib['value']!r} must be a number >= 0 (kg)")
            elif mass_problem(value):
                self.add(mass, f"{label}: {mass_problem(value)}")
        inertia = inertial.find("inertia")
        if inertia is None:
            self.add(inertial, f"{label}: <inertial> needs <inertia ixx=... ixy=... ixz=... iyy=... iyz=... izz=...>")
            return value if value is not None and value >= 0 else 1.0
        missing = [a for a in _INERTIA_ATTRS if a not in inertia.attrib]
        if missing:
            self.add(inertia, f"{label}: <inertia> is missing {', '.join(missing)}")
        bad = [f"{a}={inertia.attrib[a]!r}" for a in _INERTIA_ATTRS
               if a in inertia.attrib and number(inertia.attrib[a]) is None]
        if bad:
            self.add(inertia, f"{label}: <inertia> values must be finite numbers, got {', '.join(bad)}")
        elif not missing:
            entries = [float(inertia.attrib[a]) for a in _INERTIA_ATTRS]
            problem = inertia_problem(*entries) if max(map(abs, entries)) <= MAX_INERTIA else (
                f"has an entry beyond {MAX_INERTIA:g} kg·m² in magnitude")
            if problem is not None:
                self.add(inertia, f"{label}: <inertia> {problem}")
            elif value and not usable_from_file(*entries):
                self.not_from_file.append(link_name)
        return value if value is not None and value >= 0 else 1.0

    def check_geometry(self, geometry: Node, label: str, collision: bool) -> None:
        """Check a ``<geometry>``: its first element is the shape, as urdfdom and PyBullet read it."""
        shapes = [c for c in geometry.children if c.tag in _SHAPES]
        if not geometry.children or geometry.children[0].tag not in _SHAPES:
            found = f"<{geometry.children[0].tag}>" if geometry.children else "nothing"
            self.add(geometry, f"{label}: <geometry> must start with one shape ({', '.join(_SHAPES)}), found {found}")
            return
        if len(shapes) != 1:
            self.add(geometry,
                     f"{label}: <geometry> must hold exactly one shape ({', '.join(_SHAPES)}), found {len(shapes)}")
        shape = shapes[0]
        if shape.tag == "mesh":
            self.check_mesh(shape, label, collision)
            scale = self.numbers(shape, "scale", 3, f"{label} <mesh>") if "scale" in shape.attrib else None
            problem = magnitude_problem(scale, f"<mesh> scale={shape.attrib['scale']!r}") if scale else None
            if problem:
                self.add(shape, f"{label}: {problem}")
            return
        needed = {"box": ("size",), "sphere": ("radius",)}.get(shape.tag, ("radius", "length"))
        for attr in needed:
            if attr not in shape.attrib:
                self.add(shape, f"{label}: <{shape.tag}> needs {attr}=\"...\"")
                continue
            values = self.numbers(shape, attr, 3 if attr == "size" else 1, f"{label} <{shape.tag}>")
            if values is not None and any(v < 0 or (collision and v == 0) for v in values):
                self.add(shape, f"{label}: <{shape.tag}> {attr}={shape.attrib[attr]!r} must be "
                         + ("> 0 (a collision shape needs a size)" if collision else ">= 0"))
            elif values is not None:
                problem = magnitude_problem(values, f"<{shape.tag}> {attr}={shape.attrib[attr]!r}", collision)
                if problem:
                    self.add(shape, f"{label}: {problem}")

    def check_mesh(self, mesh: Node, label: str, collision: bool) -> None:
        filename = mesh.attrib.get("filename", "")
        if not filename.strip():
            self.add(mesh, f"{label}: <mesh> has no filename")
            return
        path, problem = resolve_mesh(filename, self.base_dir)
        if problem is not None:
            self.add(mesh, f"{label}: {problem}")
            return
        ascii_stl = False
        if path is not None:
            from simulo.authoring.meshes import check_mesh_file  # noqa: PLC0415 (hashlib, tempfile: meshes only)

            checked = check_mesh_file(path)
            problem = checked.problem
            if problem is None and checked.empty is not None and collision:
                problem = (f"{checked.empty}: as a collision shape PyBullet would collide with a point; give it "
                           "triangles, or use it as a <visual> only")
            if problem is not None:
                self.add(mesh, f"{label}: mesh file {filename!r} ({str(path)!r}) {problem}")
                return
            ascii_stl = checked.ascii_stl
        self.meshes.append(UrdfMesh(mesh.offset, filename, path, ascii_stl, filename.lower().startswith("package://")))



def check_urdf(text: str, source: str = "<string>", base_dir: str | os.PathLike[str] | None = None) -> UrdfModel:
    """Check a URDF document and list every problem in it at once.

    Args:
        text: The URDF document.
        source: Name used in the error message (a file path, or ``"<string>"``).
        base_dir: The asset's folder. Mesh paths must stay inside it (or inside their ``package://`` package);
            when given, mesh files must also exist and be loadable. Without it, relative mesh paths are checked
            by their text only, and ``package://`` packages are looked for in ``ROS_PACKAGE_PATH`` only.

    Returns:
        A summary of the robot: name, links and joints in document order, the root link, its meshes, and notes
        on what was accepted but changes how the engine treats it.

    Raises:
        UrdfError: The text is not XML, is hostile XML (DTD, entities, external references; refused, never
            expanded), breaks URDF rules, or exceeds a limit of :mod:`simulo.authoring.limits` (size, line
            length, links, nesting, magnitudes; see ``docs/limits.md``). ``problems`` lists every issue, each
            with its line number.
    """
    if not isinstance(text, str):
        raise UrdfError(source, [f"expected the URDF document as text (str), got {type(text).__name__}"])
    too_big = line_problems(text)
    if too_big:
        raise UrdfError(source, too_big)
    root, refused = parse(text)
    if refused is not None or root is None:
        raise UrdfError(source, [refused or "not XML"])
    checker = _Checker(Path(base_dir) if base_dir is not None else None)
    model = checker.run(root)
    if checker.problems or model is None:
        ordered = sorted(checker.problems, key=lambda p: p[0])
        raise UrdfError(source, [f"line {line}: {message}" for line, message in ordered])
    return model
