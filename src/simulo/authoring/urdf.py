"""URDF checking: parse a robot description safely and list every problem in it at once.

:func:`check_urdf` parses with ``defusedxml`` (a DTD, entity declaration or external reference is refused,
never expanded), then checks the document the way a physics engine will read it: names, the link tree,
joint types and limits, inertials, geometry and mesh paths. It raises one :class:`~simulo.errors.UrdfError`
listing every problem with its line number, or returns a :class:`UrdfModel` summary.

Pure Python; imports neither ``pybullet`` nor ``numpy``.
"""

from __future__ import annotations

import math
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from xml.parsers import expat

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser, ParseError

from simulo.errors import UrdfError

JOINT_TYPES: tuple[str, ...] = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
"""Joint types a URDF may use."""

_LIMITED_TYPES = ("revolute", "prismatic")
_LIMIT_ATTRS = ("lower", "upper", "effort", "velocity")
_INERTIA_ATTRS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
_SHAPES = ("box", "cylinder", "sphere", "capsule", "mesh")
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_MAX_LISTED = 12


@dataclass(frozen=True)
class JointLimits:
    """The ``<limit>`` of a revolute or prismatic joint (rad or m; N·m or N; rad/s or m/s)."""

    lower: float
    upper: float
    effort: float
    velocity: float


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class UrdfModel:
    """Summary of a URDF that passed :func:`check_urdf`.

    Attributes:
        name: The robot name.
        links: Link names in document order.
        joints: Joints in document order.
        root_link: The one link that is no joint's child.
    """

    name: str
    links: tuple[str, ...]
    joints: tuple[UrdfJoint, ...]
    root_link: str

    @property
    def joint_names(self) -> tuple[str, ...]:
        """All joint names in document order."""
        return tuple(j.name for j in self.joints)

    @property
    def movable_joints(self) -> tuple[UrdfJoint, ...]:
        """The joints that are not ``fixed``, in document order."""
        return tuple(j for j in self.joints if j.type != "fixed")


@dataclass
class _Node:
    """An XML element with the line its start tag is on."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[_Node] = field(default_factory=list)

    def find(self, tag: str) -> _Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[_Node]:
        return [c for c in self.children if c.tag == tag]

    def iter(self) -> list[_Node]:
        out = [self]
        for child in self.children:
            out.extend(child.iter())
        return out


class _LineTreeBuilder:
    """Parser target that builds :class:`_Node` trees, reading line numbers from the expat parser."""

    def __init__(self) -> None:
        self.expat: Any = None
        self._stack: list[_Node] = []
        self._root: _Node | None = None

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        node = _Node(tag.rpartition("}")[2], dict(attrib), int(self.expat.CurrentLineNumber))
        if self._stack:
            self._stack[-1].children.append(node)
        else:
            self._root = node
        self._stack.append(node)

    def end(self, tag: str) -> None:
        self._stack.pop()

    def data(self, text: str) -> None:
        """Character data is not part of URDF; ignored."""

    def close(self) -> _Node | None:
        return self._root


def _parse(text: str) -> tuple[_Node | None, str | None]:
    """Parse safely; return the root node, or a problem saying why the text was refused."""
    builder = _LineTreeBuilder()
    parser = DefusedXMLParser(target=builder, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    builder.expat = parser.parser
    try:
        parser.feed(text)
        root = parser.close()
    except DTDForbidden:
        line = parser.parser.CurrentLineNumber
        return None, (
            f"line {line}: hostile or unsupported XML refused: a document type declaration (<!DOCTYPE ...>) is not "
            "allowed in a URDF, because it can declare entities (entity expansion, external files); "
            "nothing was expanded"
        )
    except EntitiesForbidden as exc:
        line = parser.parser.CurrentLineNumber
        return None, (f"line {line}: hostile XML refused: entity declaration {exc.name!r} is not allowed; "
                      "nothing was expanded")
    except ExternalReferenceForbidden as exc:
        line = parser.parser.CurrentLineNumber
        return None, (f"line {line}: hostile XML refused: external reference {exc.sysid!r} is not allowed; "
                      "nothing was loaded")
    except ParseError as exc:
        line, column = getattr(exc, "position", (0, 0))
        reason = expat.ErrorString(exc.code) if getattr(exc, "code", None) else str(exc)
        return None, f"line {line}, column {column + 1}: not XML: {reason}"  # expat counts columns from 0
    if root is None:
        return None, "line 1: not XML: no element found"
    return root, None


def _number(value: str) -> float | None:
    try:
        out = float(value)
    except ValueError:
        return None
    return out if math.isfinite(out) else None


def _numbers(raw: str, count: int) -> tuple[float, ...] | None:
    """``count`` space-separated finite numbers, or None."""
    values = [_number(part) for part in raw.split()]
    if len(values) != count or any(v is None for v in values):
        return None
    return tuple(float(v) for v in values if v is not None)


class _Checker:
    """Collects problems as ``(line, message)`` pairs while walking a parsed URDF."""

    def __init__(self, base_dir: Path | None) -> None:
        self.base_dir = base_dir.resolve() if base_dir is not None else None
        self.problems: list[tuple[int, str]] = []

    def add(self, node: _Node, message: str) -> None:
        self.problems.append((node.line, message))

    def named(self, node: _Node, tag: str, expected: str, seen: dict[str, int]) -> tuple[str, str]:
        """Check that a <link>/<joint> has a name not used before (``seen`` maps names to their lines).

        Returns the name and a label for later messages (``link 'arm'`` or ``unnamed link``).
        """
        name = node.attrib.get("name", "")
        if not name.strip():
            self.add(node, f"<{tag}> has no name; expected {expected}")
        elif name in seen:
            self.add(node, f"duplicate {tag} name {name!r} (first defined on line {seen[name]})")
        else:
            seen[name] = node.line
        return name, (f"{tag} {name!r}" if name.strip() else f"unnamed {tag}")

    def numbers(self, node: _Node, attr: str, count: int, what: str) -> tuple[float, ...] | None:
        """Parse a space-separated attribute of ``count`` finite numbers; report and return None if bad."""
        values = _numbers(node.attrib[attr], count)
        if values is None:
            self.add(node, f"{what}: {attr}={node.attrib[attr]!r} must be {count} finite number(s) separated by spaces")
        return values

    def vec3(
        self, node: _Node | None, attr: str, default: tuple[float, float, float], what: str
    ) -> tuple[float, float, float]:
        if node is None or attr not in node.attrib:
            return default
        values = self.numbers(node, attr, 3, what)
        return (values[0], values[1], values[2]) if values is not None else default

    # -- whole document -------------------------------------------------------------------------------

    def run(self, root: _Node) -> UrdfModel | None:
        if root.tag != "robot":
            self.add(root, f"the root element is <{root.tag}>; a URDF's root element must be <robot name=\"...\">")
            return None
        name = root.attrib.get("name", "")
        if not name.strip():
            self.add(root, "<robot> has no name; expected <robot name=\"...\">")
        for node in root.iter():
            if node.tag == "origin":
                for attr in ("xyz", "rpy"):
                    if attr in node.attrib:
                        self.numbers(node, attr, 3, "<origin>")
        link_lines = self.check_links(root)
        joints, children, orphans = self.check_joints(root, link_lines)
        root_link = self.check_tree(root, link_lines, joints, children, orphans)
        return UrdfModel(name, tuple(link_lines), tuple(joints), root_link)

    # -- links ----------------------------------------------------------------------------------------

    def check_links(self, robot: _Node) -> dict[str, int]:
        lines: dict[str, int] = {}
        for link in robot.findall("link"):
            _, label = self.named(link, "link", '<link name="...">', lines)
            collisions = link.findall("collision")
            for element in (*link.findall("visual"), *collisions):
                geometry = element.find("geometry")
                if geometry is None:
                    self.add(element, f"{label}: <{element.tag}> has no <geometry>")
                else:
                    self.check_geometry(geometry, f"{label} <{element.tag}>")
            inertial = link.find("inertial")
            if inertial is None:
                if collisions:
                    self.add(link, f"{label} has <collision> geometry but no <inertial>; add one with a <mass> and "
                             "an <inertia> (PyBullet would silently give it 1 kg and unit inertia)")
            else:
                self.check_inertial(inertial, label)
        if not robot.findall("link"):
            self.add(robot, "the robot defines no <link>; a URDF needs at least one")
        return lines

    def check_inertial(self, inertial: _Node, label: str) -> None:
        mass = inertial.find("mass")
        if mass is None or "value" not in mass.attrib:
            self.add(mass or inertial, f"{label}: <inertial> needs <mass value=\"...\"> (kg, > 0)")
        else:
            value = _number(mass.attrib["value"])
            if value is None or value <= 0:
                self.add(mass, f"{label}: mass value={mass.attrib['value']!r} must be a number > 0 (kg)")
        inertia = inertial.find("inertia")
        if inertia is None:
            self.add(inertial, f"{label}: <inertial> needs <inertia ixx=... ixy=... ixz=... iyy=... iyz=... izz=...>")
            return
        missing = [a for a in _INERTIA_ATTRS if a not in inertia.attrib]
        if missing:
            self.add(inertia, f"{label}: <inertia> is missing {', '.join(missing)}")
        bad = [f"{a}={inertia.attrib[a]!r}" for a in _INERTIA_ATTRS
               if a in inertia.attrib and _number(inertia.attrib[a]) is None]
        if bad:
            self.add(inertia, f"{label}: <inertia> values must be finite numbers, got {', '.join(bad)}")

    def check_geometry(self, geometry: _Node, label: str) -> None:
        shapes = [c for c in geometry.children if c.tag in _SHAPES]
        unknown = [c.tag for c in geometry.children if c.tag not in _SHAPES]
        if unknown:
            self.add(geometry, f"{label}: unknown geometry <{unknown[0]}>; expected one of {', '.join(_SHAPES)}")
        elif len(shapes) != 1:
            self.add(geometry,
                     f"{label}: <geometry> must hold exactly one shape ({', '.join(_SHAPES)}), found {len(shapes)}")
        for shape in shapes:
            if shape.tag == "mesh":
                self.check_mesh(shape, label)
                if "scale" in shape.attrib:
                    self.numbers(shape, "scale", 3, f"{label} <mesh>")
                continue
            needed = {"box": ("size",), "sphere": ("radius",)}.get(shape.tag, ("radius", "length"))
            for attr in needed:
                if attr not in shape.attrib:
                    self.add(shape, f"{label}: <{shape.tag}> needs {attr}=\"...\"")
                    continue
                values = self.numbers(shape, attr, 3 if attr == "size" else 1, f"{label} <{shape.tag}>")
                if values is not None and any(v <= 0 for v in values):
                    self.add(shape, f"{label}: <{shape.tag}> {attr}={shape.attrib[attr]!r} must be > 0")

    def check_mesh(self, mesh: _Node, label: str) -> None:
        filename = mesh.attrib.get("filename", "")
        if not filename.strip():
            self.add(mesh, f"{label}: <mesh> has no filename")
            return
        url = _URL.match(filename)
        if url:
            scheme = url.group(1).lower()
            if scheme == "package":
                hint = ("package:// needs a ROS package path, which simulo does not resolve; copy the mesh into the "
                        "asset's folder and use a path relative to the URDF file (e.g. 'meshes/part.stl')")
            elif scheme == "file":
                hint = ("a file:// URL is an absolute path that leaves the asset's folder; use a path relative to "
                        "the URDF file")
            else:
                hint = (f"{scheme}:// URLs are never downloaded; copy the mesh into the asset's folder and use a path "
                        "relative to the URDF file")
            self.add(mesh, f"{label}: mesh filename {filename!r} cannot be resolved: {hint}")
            return
        if PurePosixPath(filename).is_absolute() or PureWindowsPath(filename).drive:
            self.add(mesh, f"{label}: mesh filename {filename!r} is an absolute path, which leaves the asset's folder; "
                     "use a path relative to the URDF file")
            return
        normal = posixpath.normpath(filename.replace("\\", "/"))
        if normal == ".." or normal.startswith("../"):
            self.add(mesh, f"{label}: mesh filename {filename!r} leaves the asset's folder through '..'; keep meshes "
                     "in the URDF file's folder or below it")
            return
        if self.base_dir is not None:
            resolved = (self.base_dir / normal).resolve()
            if not resolved.is_relative_to(self.base_dir):
                self.add(mesh, f"{label}: mesh filename {filename!r} resolves to {str(resolved)!r} (through a symbolic "
                         f"link), outside the asset's folder {str(self.base_dir)!r}")
            elif not resolved.is_file():
                self.add(mesh, f"{label}: mesh file {filename!r} not found in {str(self.base_dir)!r}")

    # -- joints ---------------------------------------------------------------------------------------

    def check_joints(self, robot: _Node, link_lines: dict[str, int]) -> tuple[list[UrdfJoint], set[str], set[str]]:
        """Check every joint; return the good joints, every link named as a child, and the children of joints
        whose parent is missing (already reported, so the tree check does not report them again)."""
        joints: list[UrdfJoint] = []
        orphans: set[str] = set()
        joint_lines: dict[str, int] = {}
        child_of: dict[str, tuple[str, int]] = {}
        for node in robot.findall("joint"):
            name, label = self.named(node, "joint", '<joint name="..." type="...">', joint_lines)
            kind = node.attrib.get("type", "")
            if not kind:
                self.add(node, f"{label} has no type; expected one of {', '.join(JOINT_TYPES)}")
            elif kind not in JOINT_TYPES:
                self.add(node, f"{label} has unknown type {kind!r}; expected one of {', '.join(JOINT_TYPES)}")
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
            axis = self.check_axis(node, label)
            limits = self.check_limits(node, label, kind)
            origin = node.find("origin")
            if name.strip() and kind in JOINT_TYPES and parent is not None and child is not None:
                joints.append(UrdfJoint(
                    name=name, type=kind, parent=parent, child=child, axis=axis, limits=limits,
                    origin_xyz=self.vec3_quiet(origin, "xyz"), origin_rpy=self.vec3_quiet(origin, "rpy"),
                ))
        return joints, set(child_of), orphans

    @staticmethod
    def vec3_quiet(node: _Node | None, attr: str) -> tuple[float, float, float]:
        """An origin vector already reported by the document-wide origin check if malformed; zeros then."""
        values = _numbers(node.attrib[attr], 3) if node is not None and attr in node.attrib else None
        return (values[0], values[1], values[2]) if values is not None else (0.0, 0.0, 0.0)

    def check_joint_end(self, joint: _Node, end: str, label: str, link_lines: dict[str, int]) -> str | None:
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

    def check_axis(self, joint: _Node, label: str) -> tuple[float, float, float]:
        axis_node = joint.find("axis")
        axis = self.vec3(axis_node, "xyz", (1.0, 0.0, 0.0), f"{label} <axis>")
        if axis_node is not None and math.hypot(*axis) < 1e-12:
            self.add(axis_node,
                     f"{label}: <axis xyz=\"0 0 0\"> has zero length; expected a direction such as \"0 0 1\"")
        return axis

    def check_limits(self, joint: _Node, label: str, kind: str) -> JointLimits | None:
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
                value = _number(limit.attrib[attr])
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
        self, robot: _Node, link_lines: dict[str, int], joints: list[UrdfJoint], children: set[str], orphans: set[str]
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
        base_dir: The asset's folder. Mesh paths must stay inside it; when given, mesh files must also exist.
            Without it, mesh paths are checked by their text only.

    Returns:
        A summary of the robot: name, links and joints in document order, and the root link.

    Raises:
        UrdfError: The text is not XML, is hostile XML (DTD, entities, external references; refused, never
            expanded), or breaks URDF rules. ``problems`` lists every issue, each with its line number.
    """
    if not isinstance(text, str):
        raise UrdfError(source, [f"expected the URDF document as text (str), got {type(text).__name__}"])
    root, refused = _parse(text)
    if refused is not None or root is None:
        raise UrdfError(source, [refused or "not XML"])
    checker = _Checker(Path(base_dir) if base_dir is not None else None)
    model = checker.run(root)
    if checker.problems or model is None:
        ordered = sorted(checker.problems, key=lambda p: p[0])
        raise UrdfError(source, [f"line {line}: {message}" for line, message in ordered])
    return model
