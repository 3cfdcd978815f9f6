"""URDF checking: parse a robot description safely and list every problem in it at once.

:func:`check_urdf` parses with ``defusedxml`` (a DTD, entity declaration or external reference is refused,
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

import math
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
from simulo.authoring.meshes import check_mesh_file
from simulo.authoring.packages import resolve_mesh
from simulo.authoring.urdf_model import JOINT_TYPES, JointLimits, UrdfJoint, UrdfMesh, UrdfModel
from simulo.authoring.urdf_xml import Node, number, numbers, parse
from simulo.errors import UrdfError

__all__ = ["JOINT_TYPES", "JointLimits", "UrdfJoint", "UrdfMesh", "UrdfModel", "check_urdf"]

_LIMITED_TYPES = ("revolute", "prismatic")
_LIMIT_ATTRS = ("lower", "upper", "effort", "velocity")
_INERTIA_ATTRS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
_SHAPES = ("box", "cylinder", "sphere", "capsule", "mesh")
_MAX_LISTED = 12


class _Checker:
    """Collects problems as ``(line, message)`` pairs while walking a parsed URDF."""

    def __init__(self, base_dir: Path | None) -> None:
        self.base_dir = base_dir.resolve() if base_dir is not None else None
        self.problems: list[tuple[int, str]] = []
        self.notes: list[str] = []
        self.meshes: list[UrdfMesh] = []
        self.substitutions: list[tuple[int, str, str]] = []
        self.masses: dict[str, float] = {}
        self.joint_lines: dict[str, int] = {}
        self.no_inertial: list[str] = []
        self.not_from_file: list[str] = []

    def add(self, node: Node, message: str) -> None:
        self.problems.append((node.line, message))

    def named(self, node: Node, tag: str, expected: str, seen: dict[str, int]) -> tuple[str, str]:
        """Check that a <link>/<joint> has a name not used before (``seen`` maps names to their lines).

        Returns the name and a label for later messages (``link 'arm'`` or ``unnamed link``).
        """
        name = node.attrib.get("name", "")
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            self.add(node, f"<{tag}> name {name[:40]!r}... has {len(name.encode('utf-8'))} bytes, more than the "
                     f"{MAX_NAME_BYTES} accepted (PyBullet keeps names in 1024-byte buffers and crashes past them)")
            return "", f"{tag} {name[:40]!r}..."  # reported here; left out of the tree checks
        if not name.strip():
            self.add(node, f"<{tag}> has no name; expected {expected}")
        elif name in seen:
            self.add(node, f"duplicate {tag} name {name!r} (first defined on line {seen[name]})")
        else:
            seen[name] = node.line
        return name, (f"{tag} {name!r}" if name.strip() else f"unnamed {tag}")

    def numbers(self, node: Node, attr: str, count: int, what: str) -> tuple[float, ...] | None:
        """Parse a space-separated attribute of ``count`` finite numbers; report and return None if bad."""
        values = numbers(node.attrib[attr], count)
        if values is None:
            self.add(node, f"{what}: {attr}={node.attrib[attr]!r} must be {count} finite number(s) separated by spaces")
        return values

    def vec3(
        self, node: Node | None, attr: str, default: tuple[float, float, float], what: str
    ) -> tuple[float, float, float]:
        if node is None or attr not in node.attrib:
            return default
        values = self.numbers(node, attr, 3, what)
        return (values[0], values[1], values[2]) if values is not None else default

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

    # -- joints ---------------------------------------------------------------------------------------

    def check_joints(self, robot: Node, link_lines: dict[str, int]) -> tuple[list[UrdfJoint], set[str], set[str]]:
        """Check every joint; return the good joints, every link named as a child, and the children of joints
        whose parent is missing (already reported, so the tree check does not report them again)."""
        joints: list[UrdfJoint] = []
        orphans: set[str] = set()
        joint_lines = self.joint_lines
        child_of: dict[str, tuple[str, int]] = {}
        for node in robot.findall("joint"):
            name, label = self.named(node, "joint", '<joint name="..." type="...">', joint_lines)
            kind = node.attrib.get("type", "")
            if not kind:
                self.add(node, f"{label} has no type; expected one of {', '.join(JOINT_TYPES)}")
            elif kind not in JOINT_TYPES:
                self.add(node, f"{label} has unknown type {kind!r}; expected one of {', '.join(JOINT_TYPES)}")
            elif kind == "floating":
                self.notes.append(f"{label} is floating: PyBullet would load it as fixed, so a scene refuses it "
                                  "(SceneError); load the child as a robot of its own, or write type=\"fixed\"")
            ends = {end: self.check_joint_end(node, end, label, link_lines) for end in ("parent", "child")}
            parent, child = ends["parent"], ends["child"]
            if parent is not None and child is not None and parent == child:
                self.add(node, f"{label} connects link {parent!r} to itself")
            if child is not None:
                if child in child_of:
                    other, line = child_of[child]
                    self.add(node, f"link {child!r} is the child of two joints: {other!r} (line {line}) and {name!r} "
                             f"(line {node.line}); a link may have only one parent joint")
                else:
                    child_of[child] = (name, node.line)
                if parent is None:
                    orphans.add(child)
            axis = (self.check_axis(node, label) if kind not in ("fixed", "floating")
                    else self.vec3_quiet(node.find("axis"), "xyz", (1.0, 0.0, 0.0)))
            limits = self.check_limits(node, label, kind)
            origin = node.find("origin")
            if name.strip() and kind in JOINT_TYPES and parent is not None and child is not None:
                joints.append(UrdfJoint(
                    name=name, type=kind, parent=parent, child=child, axis=axis, limits=limits,
                    origin_xyz=self.vec3_quiet(origin, "xyz"), origin_rpy=self.vec3_quiet(origin, "rpy"),
                ))
        return joints, set(child_of), orphans

    @staticmethod
    def vec3_quiet(
        node: Node | None, attr: str, default: tuple[float, float, float] = (0.0, 0.0, 0.0)
    ) -> tuple[float, float, float]:
        """A vector that is checked elsewhere (origins) or ignored (a fixed joint's axis); ``default`` if bad."""
        values = numbers(node.attrib[attr], 3) if node is not None and attr in node.attrib else None
        return (values[0], values[1], values[2]) if values is not None else default

    def check_joint_end(self, joint: Node, end: str, label: str, link_lines: dict[str, int]) -> str | None:
        element = joint.find(end)
        link = element.attrib.get("link", "") if element is not None else ""
        if not link.strip():
            self.add(element or joint, f"{label} has no {end} link; expected <{end} link=\"...\"/>")
            return None
        if link not in link_lines:
            known = sorted(link_lines)
            listed = ", ".join(known[:_MAX_LISTED]) + (", ..." if len(known) > _MAX_LISTED else "")
            self.add(element or joint,
                     f"{label}: {end} link {link!r} is not defined; defined links: {listed or 'none'}")
            return None
        return link

    def check_axis(self, joint: Node, label: str) -> tuple[float, float, float]:
        axis_node = joint.find("axis")
        axis = self.vec3(axis_node, "xyz", (1.0, 0.0, 0.0), f"{label} <axis>")
        if axis_node is not None and math.hypot(*axis) < 1e-12:
            self.add(axis_node,
                     f"{label}: <axis xyz=\"0 0 0\"> has zero length; expected a direction such as \"0 0 1\"")
        return axis

    def check_limits(self, joint: Node, label: str, kind: str) -> JointLimits | None:
        limit = joint.find("limit")
        required = kind in _LIMITED_TYPES
        if limit is None:
            if required:
                self.add(joint, f"{label} ({kind}) has no <limit>; expected <limit lower=\"...\" upper=\"...\" "
                         "effort=\"...\" velocity=\"...\"/>")
            return None
        values: dict[str, float] = {}
        bad: list[str] = []
        for attr in _LIMIT_ATTRS:
            if attr in limit.attrib:
                value = number(limit.attrib[attr])
                if value is None:
                    bad.append(f"{attr}={limit.attrib[attr]!r}")
                else:
                    values[attr] = value
        if bad:
            self.add(limit, f"{label}: <limit> values must be finite numbers, got {', '.join(bad)}")
        missing = [a for a in _LIMIT_ATTRS if a not in limit.attrib]
        if required and missing:
            self.add(limit, f"{label} ({kind}): <limit> is missing {', '.join(missing)}; a {kind} joint needs lower, "
                     "upper, effort and velocity")
        if "lower" in values and "upper" in values and values["lower"] > values["upper"]:
            self.add(limit, f"{label}: <limit> lower={values['lower']:g} is above upper={values['upper']:g}")
        for attr in ("effort", "velocity"):
            if values.get(attr, 0.0) < 0:
                self.add(limit, f"{label}: <limit> {attr}={values[attr]:g} must be >= 0")
        if required and len(values) == len(_LIMIT_ATTRS):
            return JointLimits(values["lower"], values["upper"], values["effort"], values["velocity"])
        return None

    # -- tree -----------------------------------------------------------------------------------------

    def check_tree(
        self, robot: Node, link_lines: dict[str, int], joints: list[UrdfJoint], children: set[str], orphans: set[str]
    ) -> str:
        if not link_lines:
            return ""
        roots = [link for link in link_lines if link not in children]
        if not roots:
            self.add(robot, "no root link: every link is the child of a joint, so the joints form a loop")
            return ""
        if len(roots) > 1:
            listed = ", ".join(f"{r!r} (line {link_lines[r]})" for r in roots[:_MAX_LISTED])
            self.add(robot, f"{len(roots)} root links: {listed}; exactly one link may be no joint's child, so "
                     "connect the others with joints")
            return ""
        below: dict[str, list[str]] = {}
        for joint in joints:
            below.setdefault(joint.parent, []).append(joint.child)
        todo = [roots[0], *sorted(orphans)]  # orphans' joints are already reported; don't report their subtrees
        reached = set(todo)
        while todo:
            for child in below.get(todo.pop(), []):
                if child not in reached:
                    reached.add(child)
                    todo.append(child)
        detached = [link for link in link_lines if link not in reached]
        if detached:
            self.add(robot, f"links {', '.join(repr(d) for d in detached)} are not connected to the root link "
                     f"{roots[0]!r}: their joints form a loop")
        return roots[0]


def check_urdf(text: str, source: str = "<string>", base_dir: Path | None = None) -> UrdfModel:
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
