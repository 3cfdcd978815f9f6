"""Mass rules for a checked link tree: where PyBullet treats a link's mass (or its absence) specially.

- A root link of mass 0 is noted: PyBullet makes such a base static, fixed to the world, even when the robot's
  base is free (pybullet_data's tables, planes and its bolted KUKA arm rely on it).
- Links without ``<inertial>`` are noted: PyBullet gives each 1 kg and unit inertia.
- A movable joint whose child subtree holds only massless links is refused: PyBullet (which computes inertia
  from mass and collision shape) gives that subtree no inertia, and the joint never moves under any command
  (measured on PyBullet 3.2.7, fixed and free base). A massless link that carries massive links below it, as
  the cross of a universal joint does, moves normally and is accepted.
"""

from __future__ import annotations

from simulo.authoring.urdf_model import UrdfJoint

_MAX_LISTED = 12


def mass_rules(
    root_link: str, joints: list[UrdfJoint], masses: dict[str, float], no_inertial: list[str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Apply the rules of the module docstring to a sound link tree.

    Args:
        root_link: The tree's root link.
        joints: Every joint of the tree.
        masses: Each link's mass in kg (1 for a link without ``<inertial>``, as PyBullet takes it).
        no_inertial: The links without ``<inertial>``, in document order.

    Returns:
        The notes, and the problems as (joint name, message) pairs.
    """
    notes: list[str] = []
    if masses.get(root_link, 1.0) == 0:
        notes.append(f"root link {root_link!r} has mass 0: PyBullet makes the base static (fixed to the world) even "
                     "when the robot's base is free")
    if no_inertial:
        notes.append(f"{len(no_inertial)} link(s) without <inertial> ({_listed(no_inertial)}): PyBullet gives each "
                     "1 kg and unit inertia")
    below: dict[str, list[str]] = {}
    for joint in joints:
        below.setdefault(joint.parent, []).append(joint.child)
    problems: list[tuple[str, str]] = []
    for joint in joints:
        if joint.type == "fixed":
            continue
        moved = _subtree(joint.child, below)
        if all(masses.get(link, 1.0) == 0 for link in moved):
            problems.append((joint.name, (
                f"joint {joint.name!r} ({joint.type}) moves only massless links ({_listed(moved)}): PyBullet gives "
                f"them no inertia, so the joint never moves; give link {joint.child!r} a mass > 0, or make the joint "
                "fixed")))
    return notes, problems


def _listed(names: list[str]) -> str:
    return ", ".join(repr(n) for n in names[:_MAX_LISTED]) + (", ..." if len(names) > _MAX_LISTED else "")


def _subtree(link: str, below: dict[str, list[str]]) -> list[str]:
    """``link`` and every link below it, depth first (each once, even where joints form a loop)."""
    out, todo, seen = [], [link], {link}
    while todo:
        out.append(todo.pop())
        for child in reversed(below.get(out[-1], [])):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return out
