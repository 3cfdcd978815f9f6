"""A UsdPhysics articulation read into plain values: links (rigid bodies), joints, masses and colliders.

What is read (every length in metres and every frame Z up, see :class:`~simulo.authoring.usd.stage.StageFrames`):

* the prim with ``PhysicsArticulationRootAPI`` (exactly one) names the articulation: a rigid body, a joint that
  bolts a body to the world, or a prim above the bodies; its root body is the URDF root link;
* rigid bodies (``PhysicsRigidBodyAPI``) reached from the root through joints are the links, named by their prim
  names; a ``PhysicsFixedJoint`` from the world (no ``body0``) to the root body makes a fixed base;
* ``PhysicsRevoluteJoint``, ``PhysicsPrismaticJoint`` and ``PhysicsFixedJoint`` with ``body0`` the parent (nearer
  the root) and ``body1`` the child. The joint frame is ``body0``'s frame composed with ``localPos0``/``localRot0``;
  the child link's frame is the joint frame, and the child's colliders and inertial are placed relative to its
  own side of the joint (``localPos1``/``localRot1``), so that the two sides meet at joint position 0, as PhysX
  makes them meet. A revolute limit is in degrees; a missing or infinite one makes the joint continuous;
* ``PhysicsMassAPI`` of a body: ``mass`` (required), ``centerOfMass`` (the body origin when not authored), and
  ``diagonalInertia`` turned by ``principalAxes`` into a full tensor. A body without ``diagonalInertia`` leaves
  the inertia of every link to the engine, computed from the collision shapes (:attr:`Articulation.engine_inertia`);
* a drive's ``maxForce`` (in the stage's units) is the joint's effort limit and ``physxJoint:maxJointVelocity``
  (degrees/s for a revolute joint) its velocity limit; neither given (or infinite) means no limit (``0`` in the URDF);
  its ``stiffness`` and ``damping`` (per degree for an angular drive) become the joint's default drive gains
  (:attr:`Joint.stiffness`, :attr:`Joint.damping`, SI units per radian or metre);
* colliders (:mod:`simulo.authoring.usd.colliders`), visuals (:mod:`simulo.authoring.usd.visuals`) and physics
  materials (:mod:`simulo.authoring.usd.materials`), each prim belonging to its nearest rigid-body ancestor;
* PhysX-only settings as :mod:`simulo.authoring.usd.physx` says. Instanceable prims are read through their
  instance proxies.

Refused, naming the prim: other joint types (spherical, distance, D6 or generic joints), a joint whose body is not
a rigid body, a cycle, a body with two parent joints, a joint whose ``body0`` is the child side, a prismatic joint
without finite limits, a second articulation root, tendons, deformable bodies and point instancers. Every problem
of a stage is reported at once, in one :class:`~simulo.errors.UsdError`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from typing import Any

from simulo.authoring.model_physics import BodySurface
from simulo.authoring.usd import physx
from simulo.authoring.usd.colliders import Shape, collider_shape
from simulo.authoring.usd.findings import Findings
from simulo.authoring.usd.materials import body_surface
from simulo.authoring.usd.stage import Pxr, StageFrames, quat_wxyz, xyz_rpy
from simulo.authoring.usd.visuals import colour, is_visual
from simulo.errors import AssetError
from simulo.frozen import frozen_dataclass

_JOINT_KINDS = {"PhysicsRevoluteJoint": "revolute", "PhysicsPrismaticJoint": "prismatic",
                "PhysicsFixedJoint": "fixed"}
_REFUSED_SCHEMAS = ("Tendon", "Deformable")


@frozen_dataclass
class Link:
    """One rigid body as a URDF link.

    Attributes:
        name: The body prim's name.
        path: The body prim's path.
        mass: Mass (kg).
        com: Centre of mass in the link frame (m).
        inertia: ``(ixx, ixy, ixz, iyy, iyz, izz)`` about the centre of mass in link axes (kg·m²), or None
            when the stage gives none.
        shapes: Collision shapes in the link frame.
        visuals: Drawn shapes in the link frame, with their colours.
        surface: The contact material of its colliders, or None (the engine's default).
    """

    name: str
    path: str
    mass: float
    com: tuple[float, float, float]
    inertia: tuple[float, float, float, float, float, float] | None
    shapes: tuple[Shape, ...]
    visuals: tuple[Shape, ...] = ()
    surface: BodySurface | None = None


@frozen_dataclass
class Joint:
    """One joint as a URDF joint.

    Attributes:
        name: The joint prim's name.
        path: The joint prim's path.
        kind: ``"revolute"``, ``"continuous"``, ``"prismatic"`` or ``"fixed"``.
        parent: Parent link name.
        child: Child link name.
        xyz: Joint frame position in the parent link frame (m).
        rpy: Joint frame orientation in the parent link frame (rad).
        axis: Joint axis in the joint frame.
        lower: Lower limit (rad or m); 0 when unlimited.
        upper: Upper limit (rad or m); 0 when unlimited.
        effort: Effort limit (N·m or N); 0 for none.
        velocity: Velocity limit (rad/s or m/s); 0 for none.
        stiffness: The drive's stiffness (N·m/rad or N/m); 0 for none.
        damping: The drive's damping (N·m·s/rad or N·s/m); 0 for none.
    """

    name: str
    path: str
    kind: str
    parent: str
    child: str
    xyz: tuple[float, float, float]
    rpy: tuple[float, float, float]
    axis: tuple[float, float, float]
    lower: float = 0.0
    upper: float = 0.0
    effort: float = 0.0
    velocity: float = 0.0
    stiffness: float = 0.0
    damping: float = 0.0


@frozen_dataclass
class Articulation:
    """A USD articulation read as a URDF tree.

    Attributes:
        name: The robot name (the stage's default prim, else the articulation root prim's name).
        links: Links, the root first, then in the order the joints reach them.
        joints: Joints in stage order.
        fixed_base: Whether a fixed joint bolts the root body to the world.
        root_xyz: The root link's position in the stage (m, Z up).
        root_quat: The root link's orientation in the stage ``(w, x, y, z)``.
        engine_inertia: Whether some body has no ``diagonalInertia``, so the engine computes every link's inertia
            from its collision shapes.
        solver_iterations: The solver position iterations the articulation root asks for, or None.
        self_collision: Whether the articulation root collides its links with each other, or None.
        notes: What was accepted while changed or dropped (:class:`~simulo.authoring.usd.findings.Findings`).
    """

    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...]
    fixed_base: bool
    root_xyz: tuple[float, float, float]
    root_quat: tuple[float, float, float, float]
    engine_inertia: bool
    solver_iterations: int | None = None
    self_collision: bool | None = None
    notes: tuple[str, ...] = ()


@frozen_dataclass
class _UsdJoint:
    path: str
    name: str
    kind: str
    prim: Any
    body0: str | None
    body1: str | None


def _all_prims(px: Pxr, stage: Any) -> list[Any]:
    return list(px.Usd.PrimRange.Stage(stage, px.Usd.TraverseInstanceProxies()))


def _schema_names(prim: Any) -> list[str]:
    """The API schemas applied to ``prim``, those USD does not know (PhysX's, without their plugin) included."""
    names = [str(name) for name in prim.GetAppliedSchemas()]
    listed = prim.GetMetadata("apiSchemas")
    if listed is not None:
        names += [str(name) for name in listed.GetAddedOrExplicitItems()]
    return names


def _target(prim: Any, rel: Any) -> str | None:
    targets = rel.GetTargets() if rel else []
    if len(targets) > 1:
        raise AssetError(f"joint {str(prim.GetPath())!r}: {rel.GetName()} names {len(targets)} prims; expected one")
    return str(targets[0]) if targets else None


def read_articulation(px: Pxr, stage: Any, source: str) -> Articulation:
    """Read the stage's one articulation; ``source`` names the file in the error.

    Raises:
        UsdError: The stage breaks rules of the module docstring: every problem found, each naming its prim.
    """
    findings = Findings()
    phys = px.UsdPhysics
    frames = findings.attempt(lambda: StageFrames(px, stage))
    prims = _all_prims(px, stage)
    bodies: dict[str, Any] = {}
    roots: list[Any] = []
    joints: list[_UsdJoint] = []
    for prim in prims:
        path = str(prim.GetPath())
        refused = [s for s in _schema_names(prim) if any(word in s for word in _REFUSED_SCHEMAS)]
        if refused or any(word in prim.GetTypeName() for word in _REFUSED_SCHEMAS):
            what = ", ".join(refused) or prim.GetTypeName()
            findings.problem(f"prim {path!r} is a tendon or deformable ({what}); the USD importer reads rigid "
                             "bodies and revolute, prismatic and fixed joints only")
            continue
        if prim.IsA(px.UsdGeom.PointInstancer):
            findings.problem(f"prim {path!r} is a PointInstancer; the USD importer reads explicit prims (instanceable "
                             "references are read through their instance proxies), expected no point instancing")
            continue
        if prim.HasAPI(phys.RigidBodyAPI):
            bodies[path] = prim
        if prim.HasAPI(phys.ArticulationRootAPI):
            roots.append(prim)
        if prim.IsA(phys.Joint):
            made = findings.attempt(partial(_usd_joint, px, prim))
            if made is not None:
                joints.append(made)
    if not roots:
        findings.problem("the stage has no prim with PhysicsArticulationRootAPI; expected exactly one articulation "
                         "root (a rigid body, or a prim above the robot's bodies)")
    if len(roots) > 1:
        listed = ", ".join(repr(str(r.GetPath())) for r in roots)
        findings.problem(f"the stage has {len(roots)} articulation roots: {listed}; "
                         "expected exactly one (load each robot from a file of its own)")
    if frames is None or len(roots) != 1:
        findings.check(source)  # nothing can be built without the units and the one root
    assert frames is not None
    joints = [joint for joint in joints if _ends_are_bodies(joint, bodies, findings)]
    root = findings.attempt(lambda: _root_body(roots[0], bodies, joints))
    if root is None:
        findings.check(source)
    assert root is not None
    articulation = _build(px, stage, frames, prims, bodies, root, joints, findings)
    iterations = physx.solver_iterations(roots[0], findings)
    findings.check(source)
    physx.note_ignored(prims, findings)
    return replace(articulation, solver_iterations=iterations, self_collision=physx.self_collisions(roots[0]),
                   notes=tuple(findings.notes))


def _ends_are_bodies(joint: _UsdJoint, bodies: dict[str, Any], findings: Findings) -> bool:
    """Whether both of the joint's ends are rigid bodies (or the world); a problem for each that is not."""
    ok = True
    for end, body in (("body0", joint.body0), ("body1", joint.body1)):
        if body is not None and body not in bodies:
            findings.problem(f"joint {joint.path!r}: {end} {body!r} is not a rigid body; expected a prim with "
                             "PhysicsRigidBodyAPI (or no body0, for the world)")
            ok = False
    return ok


def _usd_joint(px: Pxr, prim: Any) -> _UsdJoint | None:
    """The joint of a ``UsdPhysics.Joint`` prim, or None when it is disabled.

    Raises:
        AssetError: Its type is not read, or a body relationship names more than one prim.
    """
    joint = px.UsdPhysics.Joint(prim)
    if not joint.GetJointEnabledAttr().Get():
        return None
    path = str(prim.GetPath())
    kind = _JOINT_KINDS.get(prim.GetTypeName())
    if kind is None:
        raise AssetError(f"joint {path!r} is a {prim.GetTypeName() or 'generic PhysicsJoint'}; the USD "
                         "importer reads PhysicsRevoluteJoint, PhysicsPrismaticJoint and PhysicsFixedJoint "
                         "only (spherical, distance and D6 joints are not supported)")
    return _UsdJoint(path, prim.GetName(), kind, prim, _target(prim, joint.GetBody0Rel()),
                     _target(prim, joint.GetBody1Rel()))


def _root_body(root_prim: Any, bodies: dict[str, Any], joints: list[_UsdJoint]) -> str:
    path = str(root_prim.GetPath())
    if path in bodies:
        return path
    anchored = [j for j in joints if (j.body0 is None) != (j.body1 is None)]
    if any(j.path == path for j in anchored):
        joint = next(j for j in anchored if j.path == path)
        return str(joint.body1 or joint.body0)
    inside = [b for b in bodies if b == path or b.startswith(path.rstrip("/") + "/")]
    bolted = [str(j.body1 or j.body0) for j in anchored if str(j.body1 or j.body0) in inside]
    if len(set(bolted)) == 1:
        return bolted[0]
    children = {j.body1 for j in joints if j.body0 is not None}
    candidates = [b for b in inside if b not in children]
    if len(candidates) != 1:
        found = ", ".join(repr(b) for b in candidates) or "none"
        raise AssetError(f"articulation root {path!r}: cannot choose the root body among the rigid bodies below it "
                         f"(bodies that are no joint's body1: {found}); expected exactly one")
    return candidates[0]


def _build(px: Pxr, stage: Any, frames: StageFrames, prims: list[Any], bodies: dict[str, Any], root: str,
           joints: list[_UsdJoint], findings: Findings) -> Articulation:
    fixed_base = False
    tree: list[_UsdJoint] = []
    for joint in joints:
        if joint.body0 is None or joint.body1 is None:
            body = joint.body1 or joint.body0
            if body is None:
                findings.problem(f"joint {joint.path!r} has neither body0 nor body1; expected body1 at least")
            elif body != root:
                findings.problem(f"joint {joint.path!r} attaches {body!r} to the world, but the articulation's root "
                                 f"body is {root!r}; only the root body may be bolted to the world")
            elif joint.kind != "fixed":
                findings.problem(f"joint {joint.path!r} is a {joint.kind} joint to the world; only a "
                                 "PhysicsFixedJoint may attach the root body to the world (a fixed base)")
            else:
                fixed_base = True
        else:
            tree.append(joint)
    link_world, order = _tree(frames, bodies, root, tree, findings)
    in_tree = [j for j in tree if j.body0 in link_world and j.body1 in link_world]
    names = _unique_names(bodies, order, findings)
    joint_names: dict[str, str] = {}
    for joint in in_tree:
        if joint.name in joint_names:
            findings.problem(f"joints {joint_names[joint.name]!r} and {joint.path!r} have the same name "
                             f"{joint.name!r}; URDF joint names must be unique (rename one prim)")
        joint_names[joint.name] = joint.path
    owned = _owned_prims(prims, bodies, link_world)
    read = [_full_link(px, frames, bodies[b], names[b], link_world[b], owned.get(b, []), findings) for b in order]
    links = [link for link in read if link is not None]
    urdf_joints = [findings.attempt(partial(_joint, px, frames, bodies, j, link_world, names)) for j in in_tree]
    default = stage.GetDefaultPrim()
    name = default.GetName() if default else names[root]
    root_frame = link_world[root]
    xyz, _ = xyz_rpy(px, root_frame)
    return Articulation(name, tuple(links), tuple(j for j in urdf_joints if j is not None), fixed_base, xyz,
                        quat_wxyz(root_frame), any(link.inertia is None for link in links))


def _full_link(px: Pxr, frames: StageFrames, prim: Any, name: str, link_frame: Any, owned: list[Any],
               findings: Findings) -> Link | None:
    """The link of a body with its colliders, visuals and surface (None, with the problem recorded, when its mass
    is missing); ``owned`` are the prims that belong to it."""
    colliders = [p for p in owned if _is_collider(px, p)]
    shapes = []
    for collider in colliders:
        try:
            shapes.append(collider_shape(px, collider, _relative(frames, collider, link_frame)))
        except AssetError as exc:
            findings.problem(str(exc))
    surface = body_surface(px, name, colliders, findings)
    try:
        link = _link(px, frames, prim, name, link_frame)
    except AssetError as exc:
        findings.problem(str(exc))
        return None
    return replace(link, shapes=tuple(shapes), visuals=_visuals(px, frames, owned, link_frame, findings),
                   surface=surface)


def _tree(frames: StageFrames, bodies: dict[str, Any], root: str, tree: list[_UsdJoint],
          findings: Findings) -> tuple[dict[str, Any], list[str]]:
    """Each link's world frame, reached from the root through ``tree``, and the links in the order reached."""
    link_world: dict[str, Any] = {root: frames.rigid(frames.world(bodies[root]))}
    order = [root]
    pending = list(tree)
    progressed = True
    while pending and progressed:
        progressed = False
        for joint in list(pending):
            assert joint.body0 is not None and joint.body1 is not None
            if joint.body0 in link_world and joint.body1 in link_world:
                findings.problem(f"joint {joint.path!r} closes a cycle: {joint.body1!r} is already connected to the "
                                 f"root {root!r} by other joints; a URDF tree allows no loops (exclude one joint "
                                 "from the articulation)")
            elif joint.body1 in link_world:
                findings.problem(f"joint {joint.path!r}: its body0 {joint.body0!r} is the child side (farther from "
                                 f"the root {root!r} than body1 {joint.body1!r}); expected body0 to be the parent")
            elif joint.body0 in link_world:
                link_world[joint.body1] = _child_frame(frames, bodies, joint)
                order.append(joint.body1)
            else:
                continue  # not reached yet (or never: a joint of another object of the stage)
            pending.remove(joint)
            progressed = True
    return link_world, order


def _owned_prims(prims: list[Any], bodies: dict[str, Any], link_world: dict[str, Any]) -> dict[str, list[Any]]:
    """Each link's body and the prims below it, each prim given to its nearest rigid-body ancestor (or itself)."""
    owned: dict[str, list[Any]] = {}
    for prim in prims:
        owner = prim
        while owner and owner.IsValid() and str(owner.GetPath()) not in bodies:
            owner = owner.GetParent()
        body = str(owner.GetPath()) if owner and owner.IsValid() else None
        if body is not None and body in link_world:
            owned.setdefault(body, []).append(prim)
    return owned


def _is_collider(px: Pxr, prim: Any) -> bool:
    return bool(prim.HasAPI(px.UsdPhysics.CollisionAPI)
                and px.UsdPhysics.CollisionAPI(prim).GetCollisionEnabledAttr().Get())


def _relative(frames: StageFrames, prim: Any, link_frame: Any) -> Any:
    """The prim's transform, scale included, in its link's frame."""
    return frames.world(prim) * link_frame.GetInverse()


def _visuals(px: Pxr, frames: StageFrames, owned: list[Any], link_frame: Any, findings: Findings) -> tuple[Shape, ...]:
    found = []
    for prim in owned:
        if not is_visual(px, prim):
            continue
        try:
            shape = collider_shape(px, prim, _relative(frames, prim, link_frame), role="visual")
        except AssetError as exc:
            findings.note(f"{exc} (skipped: it is not drawn)")
            continue
        found.append(replace(shape, rgba=colour(px, prim)))
    return tuple(found)


def _unique_names(bodies: dict[str, Any], order: list[str], findings: Findings) -> dict[str, str]:
    names: dict[str, str] = {}
    seen: dict[str, str] = {}
    for path in order:
        name = bodies[path].GetName()
        if name in seen:
            findings.problem(f"rigid bodies {seen[name]!r} and {path!r} have the same name {name!r}; URDF link names "
                             "must be unique (rename one prim)")
        seen[name] = path
        names[path] = name
    return names


def _joint_side(frames: StageFrames, bodies: dict[str, Any], joint: _UsdJoint, side: int) -> Any:
    """The world frame of one side of a joint: its body's frame composed with ``localPos``/``localRot``."""
    usd = frames.px.UsdPhysics.Joint(joint.prim)
    pos = (usd.GetLocalPos0Attr() if side == 0 else usd.GetLocalPos1Attr()).Get()
    rot = (usd.GetLocalRot0Attr() if side == 0 else usd.GetLocalRot1Attr()).Get()
    gf = frames.px.Gf
    pos = gf.Vec3d(0.0, 0.0, 0.0) if pos is None else gf.Vec3d(*(float(c) for c in pos))
    rot = gf.Quatd(1.0) if rot is None else rot
    body = joint.body0 if side == 0 else joint.body1
    world = frames.world_of(bodies[body] if body is not None else None)
    frame = frames.frame(rot, (0.0, 0.0, 0.0)) * frames.rigid(world)
    frame.SetTranslateOnly(world.Transform(pos))
    return frame


def _child_frame(frames: StageFrames, bodies: dict[str, Any], joint: _UsdJoint) -> Any:
    """Where the child body's link frame sits in the world, as the stage places the body (its side of the joint)."""
    return _joint_side(frames, bodies, joint, 1)


def _link(px: Pxr, frames: StageFrames, prim: Any, name: str, link_frame: Any) -> Link:
    """The link of a body, without its shapes.

    Raises:
        AssetError: It has no mass > 0.
    """
    path = str(prim.GetPath())
    mass_api = px.UsdPhysics.MassAPI(prim)
    mass = mass_api.GetMassAttr().Get() if prim.HasAPI(px.UsdPhysics.MassAPI) else None
    if mass is None or not math.isfinite(mass) or mass <= 0:
        raise AssetError(f"rigid body {path!r} has no physics:mass (PhysicsMassAPI); expected a mass > 0 in the "
                         "stage's mass unit (masses computed from density are not supported yet)")
    mass = float(mass) * frames.kilograms_per_unit
    world = frames.world(prim)
    to_link = link_frame.GetInverse()
    com_attr = mass_api.GetCenterOfMassAttr()
    com = com_attr.Get() if com_attr.HasAuthoredValue() else None
    gf = px.Gf
    local_com = gf.Vec3d(0.0, 0.0, 0.0) if com is None else gf.Vec3d(*(float(c) for c in com))
    com_link = to_link.Transform(world.Transform(local_com))
    diagonal_attr = mass_api.GetDiagonalInertiaAttr()
    diagonal = diagonal_attr.Get() if diagonal_attr.HasAuthoredValue() else None
    inertia: tuple[float, float, float, float, float, float] | None = None
    if diagonal is not None and any(float(d) > 0 for d in diagonal):
        unit = frames.kilograms_per_unit * frames.meters_per_unit ** 2
        axes_attr = mass_api.GetPrincipalAxesAttr()
        axes = axes_attr.Get() if axes_attr.HasAuthoredValue() else None
        principal = frames.frame(axes if axes is not None else gf.Quatd(1.0), (0.0, 0.0, 0.0))
        turn = (principal * frames.rigid(world) * to_link).ExtractRotationMatrix()  # rows: principal axes in link
        d = [float(v) * unit for v in diagonal]
        full = [[sum(turn[k][i] * d[k] * turn[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        inertia = (full[0][0], full[0][1], full[0][2], full[1][1], full[1][2], full[2][2])
    return Link(name, path, mass, (float(com_link[0]), float(com_link[1]), float(com_link[2])), inertia, ())


def _joint(px: Pxr, frames: StageFrames, bodies: dict[str, Any], joint: _UsdJoint, link_world: dict[str, Any],
           names: dict[str, str]) -> Joint:
    assert joint.body0 is not None and joint.body1 is not None
    origin = _joint_side(frames, bodies, joint, 0) * link_world[joint.body0].GetInverse()
    xyz, rpy = xyz_rpy(px, origin)
    parent, child = names[joint.body0], names[joint.body1]
    if joint.kind == "fixed":
        return Joint(joint.name, joint.path, "fixed", parent, child, xyz, rpy, (1.0, 0.0, 0.0))
    schema = (px.UsdPhysics.RevoluteJoint if joint.kind == "revolute" else px.UsdPhysics.PrismaticJoint)(joint.prim)
    axis_token = str(schema.GetAxisAttr().Get())
    axis = tuple(1.0 if "XYZ"[i] == axis_token else 0.0 for i in range(3))
    lower, upper = (_finite(schema.GetLowerLimitAttr().Get()), _finite(schema.GetUpperLimitAttr().Get()))
    angular = joint.kind == "revolute"
    scale = math.pi / 180.0 if angular else frames.meters_per_unit
    force_unit = frames.kilograms_per_unit * frames.meters_per_unit ** (2 if angular else 1)
    drive = "angular" if angular else "linear"
    max_force, stiffness, damping = _drive(px, joint.prim, drive)
    effort = max_force * force_unit
    # a drive's gains are per degree for an angular drive and per length unit for a linear one
    stiffness, damping = stiffness * force_unit / scale, damping * force_unit / scale
    velocity = _finite(joint.prim.GetAttribute("physxJoint:maxJointVelocity").Get()
                       if joint.prim.HasAttribute("physxJoint:maxJointVelocity") else None)
    velocity_value = (velocity or 0.0) * scale
    kind = joint.kind
    if lower is None or upper is None:
        if not angular:
            raise AssetError(f"prismatic joint {joint.path!r} has no finite physics:lowerLimit and "
                             "physics:upperLimit; a URDF prismatic joint needs both (in the stage's length unit)")
        kind, lower, upper = "continuous", 0.0, 0.0
    elif lower > upper:
        raise AssetError(f"joint {joint.path!r}: physics:lowerLimit {lower:g} is above physics:upperLimit "
                         f"{upper:g}; expected lower <= upper")
    return Joint(joint.name, joint.path, kind, parent, child, xyz, rpy, (axis[0], axis[1], axis[2]),
                 lower * scale, upper * scale, effort, max(velocity_value, 0.0), stiffness, damping)


def _finite(value: Any) -> float | None:
    return float(value) if value is not None and math.isfinite(float(value)) else None


def _drive(px: Pxr, prim: Any, kind: str) -> tuple[float, float, float]:
    """A drive's maxForce, stiffness and damping as the stage gives them (per degree or per length unit for the
    gains), each 0 for none (a maxForce that is not finite and positive, or one of 1e30 and more, is none).

    Raises:
        AssetError: A gain is negative or not finite.
    """
    if not prim.HasAPI(px.UsdPhysics.DriveAPI, kind):
        return 0.0, 0.0, 0.0
    api = px.UsdPhysics.DriveAPI(prim, kind)
    force = _finite(api.GetMaxForceAttr().Get())
    gains = []
    for name, attr in (("stiffness", api.GetStiffnessAttr()), ("damping", api.GetDampingAttr())):
        value = attr.Get()
        value = 0.0 if value is None else float(value)
        if not math.isfinite(value) or value < 0.0:
            raise AssetError(f"joint {str(prim.GetPath())!r}: drive:{kind}:physics:{name} is {value!r}; expected a "
                             "finite number >= 0")
        gains.append(value)
    return (force if force is not None and 0 < force < 1e30 else 0.0), gains[0], gains[1]
