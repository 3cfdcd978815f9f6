"""The URDF checker's bookkeeping and its joint and link-tree rules (see :mod:`simulo.authoring.urdf`).

:class:`JointChecks` collects problems as ``(line, message)`` pairs and checks every ``<joint>`` (name, type,
parent and child links, axis, limits) and the tree they form (one root link, no loops, no detached links).
:mod:`simulo.authoring.urdf` adds the document, link, inertial, geometry and mesh rules on top of it.
"""

from __future__ import annotations

import math
from pathlib import Path

from simulo.authoring.limits import MAX_NAME_BYTES
from simulo.authoring.urdf_model import JOINT_TYPES, JointLimits, UrdfJoint, UrdfMesh
from simulo.authoring.urdf_xml import Node, number, numbers

_LIMITED_TYPES = ("revolute", "prismatic")
_LIMIT_ATTRS = ("lower", "upper", "effort", "velocity")
MAX_LISTED = 12
"""Longest list of names a message spells out."""


class JointChecks:
    """Collects problems as ``(line, message)`` pairs while walking a parsed URDF; checks joints and the tree."""

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
            listed = ", ".join(known[:MAX_LISTED]) + (", ..." if len(known) > MAX_LISTED else "")
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
        if kind == "revolute" and missing == ["lower", "upper"]:
            # URDF's lower and upper default to 0; PyBullet and MuJoCo both load such a joint unlimited
            self.notes.append(f"{label} (revolute): <limit> gives no lower or upper, so it turns freely, as PyBullet "
                              "and MuJoCo load it (write type=\"continuous\" to say so)")
            return None
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
            listed = ", ".join(f"{r!r} (line {link_lines[r]})" for r in roots[:MAX_LISTED])
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

