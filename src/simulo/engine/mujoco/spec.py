"""The MuJoCo engine's model specification: every ``MjSpec`` edit simulo makes goes through :class:`SceneSpec`.

The engine keeps one ``mujoco.MjSpec`` for all of its environments (each environment is one ``MjData`` of the
compiled model) and recompiles it whenever something is added. Robots come in as URDF (MuJoCo's own URDF
importer, told to keep mesh folders, fixed links and inertias) or MJCF (``.xml``) files and are attached under a
per-robot name prefix; rigid shapes, planes and height fields are added directly.

Conventions converted here, once: a fixed-base robot's root link and every static shape (mass 0) is a *mocap*
body, so that its pose lives in ``MjData`` and differs per environment without a model copy; a floating root or a
dynamic shape gets a free joint. A restitution coefficient ``e`` becomes the damping ratio of the contact's
spring (:func:`damping_ratio`), a soft contact's stiffness and damping MuJoCo's direct ``solref = (-k, -b)``.
Friction cones are elliptic with ``impratio`` :data:`IMPRATIO`, so that a grasp holds without creeping, and
contacts and joint limits are as stiff as MuJoCo integrates stably (time constant ``2 dt``, impedance
:data:`CONTACT_SOLIMP`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from simulo.authoring.urdf_xml import parse
from simulo.engine.base import JointInfo
from simulo.errors import AssetError

#: Compiler settings injected into a URDF: keep mesh folders and every link (fixed ones too), use the file's
#: inertias, and accept massless links (as PyBullet does) with a tiny lower bound.
_URDF_COMPILER = ('<mujoco><compiler strippath="false" fusestatic="false" discardvisual="true" '
                  'balanceinertia="true" boundmass="1e-6" boundinertia="1e-10"/></mujoco>')

#: Geom group of terrain (planes and height fields), which terrain-only rays select.
TERRAIN_GROUP = 3

#: Ratio of frictional to normal constraint impedance (MuJoCo's ``impratio``; its default is 1).
IMPRATIO = 10.0

#: Contact impedance (MuJoCo ``solimp`` d0, dwidth-end, width): near-hard contacts, so that a 20 N grasp of a
#: light finger sinks about a millimetre, not centimetres (MuJoCo's default is 0.9, 0.95, 0.001).
CONTACT_SOLIMP = (0.95, 0.99, 0.001)

_GEOMS = {"box": mujoco.mjtGeom.mjGEOM_BOX, "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
          "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER, "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE}


def damping_ratio(restitution: float) -> float:
    """Damping ratio of a contact spring whose bounce keeps ``restitution`` of the approach speed (1: none)."""
    if restitution <= 0.0:
        return 1.0
    log_e = math.log(min(restitution, 0.999))
    return -log_e / math.sqrt(math.pi ** 2 + log_e ** 2)


def mujoco_geometry(kind: str, dims: Sequence[float]) -> tuple[int, list[float]]:
    """MuJoCo geom type and size of a simulo primitive (``cylinder``/``capsule``: radius, full height)."""
    if kind == "box":
        return _GEOMS["box"], [float(d) for d in dims[:3]]
    if kind == "sphere":
        return _GEOMS["sphere"], [float(dims[0]), 0.0, 0.0]
    return _GEOMS[kind], [float(dims[0]), float(dims[1]) / 2, 0.0]


def cone_vertices(radius: float, height: float, sides: int = 32) -> list[float]:
    """Flat vertex list of a cone (apex up, axis z, centred at mid-height) as a ``sides``-sided pyramid."""
    angles = np.linspace(0.0, 2 * np.pi, sides, endpoint=False)
    ring = [[radius * math.cos(a), radius * math.sin(a), -height / 2] for a in angles]
    return [float(v) for point in ([0.0, 0.0, height / 2], *ring) for v in point]


@dataclass(frozen=True)
class ModelLayout:
    """What a robot file holds, in simulo's order (names without the engine's prefix).

    Attributes:
        joints: The non-fixed joints in document order.
        body_names: The root link, then every other link in document order.
    """

    joints: tuple[JointInfo, ...]
    body_names: tuple[str, ...]


def _limit(node: object, key: str) -> float:
    try:
        return float(node.attrib.get(key, "0"))  # type: ignore[attr-defined]
    except ValueError:
        return 0.0


def _urdf_layout(path: Path) -> tuple[ModelLayout, str]:
    """Joints and links of a URDF (already checked by the authoring layer), in document order."""
    text = path.read_text(encoding="utf-8")
    root, refused = parse(text)
    if refused is not None or root is None:
        raise AssetError(f"the MuJoCo engine cannot read {str(path)!r}: {refused or 'not XML'}")
    joints, children = [], set()
    for node in root.findall("joint"):
        kind, child = node.attrib.get("type", ""), node.find("child")
        child_name = "" if child is None else child.attrib.get("link", "")
        children.add(child_name)
        if kind in ("floating", "planar"):
            raise AssetError(f"joint {node.attrib.get('name', '')!r} is {kind}; the MuJoCo engine drives revolute, "
                             "continuous, prismatic and fixed joints only")
        if kind == "fixed":
            continue
        name, limit = node.attrib.get("name", ""), node.find("limit")
        joint_kind = "prismatic" if kind == "prismatic" else "revolute"
        if kind == "continuous" or limit is None:
            joints.append(JointInfo(name, joint_kind, child_name, 0.0, -1.0, 0.0, 0.0))
        else:
            joints.append(JointInfo(name, joint_kind, child_name, _limit(limit, "lower"), _limit(limit, "upper"),
                                    _limit(limit, "effort"), _limit(limit, "velocity")))
    links = [node.attrib.get("name", "") for node in root.findall("link")]
    roots = [name for name in links if name not in children]
    bodies = (*roots[:1], *[name for name in links if name not in roots[:1]])
    return ModelLayout(tuple(joints), bodies), text


def load_robot(path: Path) -> tuple[mujoco.MjSpec, ModelLayout]:
    """A robot file as its own MjSpec (mesh paths absolute) and its layout.

    URDF goes through MuJoCo's URDF importer; an ``.xml`` file is MJCF, whose first body under the world is the
    root link (a free joint on it is dropped: the engine adds its own).

    Raises:
        AssetError: The file cannot be read or compiled, or has joints other than hinges and slides.
    """
    path = Path(path)
    try:
        if path.suffix.lower() == ".xml":
            spec = mujoco.MjSpec.from_file(str(path))
            return spec, _mjcf_layout(spec, path)
        layout, text = _urdf_layout(path)
        text = re.sub(r"(<robot\b[^>]*>)", lambda m: m.group(1) + _URDF_COMPILER, text, count=1)
        spec = mujoco.MjSpec.from_string(text)
    except (OSError, ValueError) as exc:
        raise AssetError(f"the MuJoCo engine cannot load {str(path)!r}: {exc}") from exc
    for mesh in spec.meshes:
        if mesh.file and not Path(mesh.file).is_absolute():
            mesh.file = str(path.parent / mesh.file)
    return spec, layout


def _mjcf_layout(spec: mujoco.MjSpec, path: Path) -> ModelLayout:
    root = spec.worldbody.first_body()
    if root is None:
        raise AssetError(f"MJCF file {str(path)!r} has no body under <worldbody>")
    bodies: list[mujoco.MjsBody] = []
    todo = [root]
    while todo:  # depth first, children in document order: MJCF's document order
        body = todo.pop(0)
        bodies.append(body)
        todo = [*body.bodies, *todo]
    joints = []
    for body in bodies:
        for joint in body.joints:
            if joint.type == mujoco.mjtJoint.mjJNT_FREE and body is root:
                spec.delete(joint)
                continue
            if joint.type not in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
                raise AssetError(f"joint {joint.name!r} of {str(path)!r} is a ball or free joint; the MuJoCo engine "
                                 "drives hinge and slide joints only")
            limited = joint.limited == mujoco.mjtLimited.mjLIMITED_TRUE or (
                joint.limited == mujoco.mjtLimited.mjLIMITED_AUTO and joint.range[0] < joint.range[1])
            lower, upper = (float(joint.range[0]), float(joint.range[1])) if limited else (0.0, -1.0)
            kind = "revolute" if joint.type == mujoco.mjtJoint.mjJNT_HINGE else "prismatic"
            effort = float(joint.actfrcrange[1]) if joint.actfrclimited == mujoco.mjtLimited.mjLIMITED_TRUE else 0.0
            joints.append(JointInfo(joint.name, kind, body.name, lower, upper, effort, 0.0))
    return ModelLayout(tuple(joints), tuple(b.name for b in bodies))


def _scale_subtree(root: mujoco.MjsBody, spec: mujoco.MjSpec, scale: float) -> None:
    """Scale lengths by ``scale`` (positions, shape sizes, meshes; inertias by scale², masses kept)."""
    todo = [root]
    while todo:
        body = todo.pop()
        if body is not root:
            body.pos = np.asarray(body.pos) * scale
        body.ipos = np.asarray(body.ipos) * scale
        body.inertia = np.asarray(body.inertia) * scale ** 2
        body.fullinertia = np.asarray(body.fullinertia) * scale ** 2
        for geom in body.geoms:
            geom.pos = np.asarray(geom.pos) * scale
            geom.size = np.asarray(geom.size) * scale
            geom.fromto = np.asarray(geom.fromto) * scale
        for joint in body.joints:
            joint.pos = np.asarray(joint.pos) * scale
        todo.extend(body.bodies)
    for mesh in spec.meshes:
        mesh.scale = np.asarray(mesh.scale) * scale


class SceneSpec:
    """The engine's MjSpec and the names of everything in it.

    Args:
        dt: Time step, s.
        gravity: Gravity vector, m/s².
        solver_iterations: Constraint-solver iterations, or ``None`` for MuJoCo's default.
    """

    def __init__(self, dt: float, gravity: Sequence[float], solver_iterations: int | None) -> None:
        self.spec = mujoco.MjSpec()
        self.spec.option.timestep = float(dt)
        self.spec.option.gravity = [float(g) for g in gravity]
        # elliptic friction cones with a high impedance ratio: with MuJoCo's defaults (pyramidal, 1) a squeezed
        # object creeps down through a grasp that holds it on PyBullet
        self.spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
        self.spec.option.impratio = IMPRATIO
        if solver_iterations is not None:
            self.spec.option.iterations = int(solver_iterations)
        self._count = 0

    def _name(self, kind: str) -> str:
        self._count += 1
        return f"{kind}{self._count}"

    def compile(self) -> mujoco.MjModel:
        """Compile the specification.

        Raises:
            AssetError: MuJoCo refuses the model (its message is kept).
        """
        try:
            model = self.spec.compile()
        except ValueError as exc:
            raise AssetError(f"MuJoCo cannot compile the scene: {exc}") from exc
        # stiff contacts: the shortest time constant MuJoCo integrates stably, and a nearly hard impedance
        soft = model.geom_solref[:, 0] > 0  # a negative solref is a plane's own (stiffness, damping)
        model.geom_solref[soft, 0] = 2.0 * model.opt.timestep
        model.geom_solimp[:, :3] = CONTACT_SOLIMP
        model.jnt_solref[:, 0] = 2.0 * model.opt.timestep  # joint limits as stiff (PyBullet's are hard)
        model.jnt_solimp[:, :3] = CONTACT_SOLIMP
        return model

    @staticmethod
    def _surface(geom: mujoco.MjsGeom, friction: float | None, restitution: float | None) -> None:
        if friction is not None:
            geom.friction = [float(friction), *list(geom.friction)[1:]]
        if restitution is not None:
            geom.solref = [float(geom.solref[0]), damping_ratio(float(restitution))]

    def add_plane(self, height: float, friction: float | None, restitution: float | None,
                  contact: tuple[float, float] | None) -> str:
        """An infinite ground plane with its surface at ``height``; returns its geom name."""
        name = self._name("plane")
        geom = self.spec.worldbody.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0.0, 0.0, 1.0],
                                            pos=[0.0, 0.0, float(height)], group=TERRAIN_GROUP)
        self._surface(geom, friction, restitution)
        if contact is not None:
            geom.solref = [-float(contact[0]), -float(contact[1])]
        return name

    def add_heightfield(self, heights: np.ndarray, cell_size: float, pose: np.ndarray, friction: float | None,
                        restitution: float | None) -> str:
        """A static height field (rows along +y, columns along +x) centred at ``pose``; returns its geom name."""
        rows, cols = heights.shape
        low, high = float(heights.min()), float(heights.max())
        span = max(high - low, 1e-6)
        name = self._name("terrain")
        self.spec.add_hfield(name=name, nrow=rows, ncol=cols,
                             size=[(cols - 1) * cell_size / 2, (rows - 1) * cell_size / 2, span, 0.1],
                             userdata=((heights - low) / span).reshape(-1).tolist())
        quat = np.asarray(pose[3:], dtype=float)
        lift = np.zeros(3)
        mujoco.mju_rotVecQuat(lift, np.array([0.0, 0.0, low]), quat)
        geom = self.spec.worldbody.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_HFIELD, hfieldname=name,
                                            pos=(np.asarray(pose[:3], dtype=float) + lift).tolist(),
                                            quat=quat.tolist(), group=TERRAIN_GROUP)
        self._surface(geom, friction, restitution)
        return name

    def add_rigid(self, kind: str, dims: Sequence[float], mass: float, color: Sequence[float] | None) -> str:
        """A single-body shape (mass 0: a mocap body, else a free one); returns its body name."""
        name = self._name("rigid")
        body = self.spec.worldbody.add_body(name=name, mocap=mass <= 0.0)
        if mass > 0.0:
            body.add_freejoint(name=name)
        kw: dict[str, object] = {"name": name}
        if kind == "cone":
            self.spec.add_mesh(name=name, uservert=cone_vertices(float(dims[0]), float(dims[1])))
            kw.update(type=mujoco.mjtGeom.mjGEOM_MESH, meshname=name)
        else:
            geom_type, size = mujoco_geometry(kind, dims)
            kw.update(type=geom_type, size=size)
        if mass > 0.0:
            kw["mass"] = float(mass)
        if color is not None:
            kw["rgba"] = [*[float(c) for c in color[:3]], 1.0]
        body.add_geom(**kw)
        return name

    def add_robot(self, child: mujoco.MjSpec, fixed_base: bool, scale: float, self_collision: bool) -> str:
        """Attach a robot spec under a fresh prefix (its root link a mocap body when ``fixed_base``); returns
        the prefix."""
        root = child.worldbody.first_body()
        if root is None:
            raise AssetError("the robot model has no link")
        if scale != 1.0:
            _scale_subtree(root, child, scale)
        prefix = self._name("robot") + "/"
        frame = self.spec.worldbody.add_frame()
        body = frame.attach_body(root, prefix, "")
        if fixed_base:
            body.mocap = True
        else:
            body.add_freejoint(name=prefix + "root")
        if not self_collision:
            names = []
            todo = [body]
            while todo:
                b = todo.pop()
                names.append(b.name)
                todo.extend(b.bodies)
            for a in range(len(names)):
                for b2 in range(a + 1, len(names)):
                    self.spec.add_exclude(bodyname1=names[a], bodyname2=names[b2])
        return prefix

    def add_weld(self, name: str, body: str, other: str) -> None:
        """A weld equality ``name`` from body ``body`` to body ``other`` (``""``: the world), off, with an explicit
        relative pose (a unit quaternion, set per environment when a weld is made), torque scale 1, and as stiff
        as contacts (time constant ``2 dt``)."""
        eq = self.spec.add_equality(type=mujoco.mjtEq.mjEQ_WELD, objtype=mujoco.mjtObj.mjOBJ_BODY, name1=body,
                                    name2=other, name=name)
        eq.active = False
        data = np.zeros(len(eq.data))
        data[6] = 1.0  # the relative pose's quaternion
        data[10] = 1.0  # torque scale
        eq.data = data
        eq.solref = [2.0 * float(self.spec.option.timestep), 1.0]

    def add_gear(self, joint_a: str, joint_b: str, ratio: float, erp: float, dt: float) -> None:
        """Couple two joints as ``q_a = -ratio * q_b`` with an equality constraint whose time constant is
        ``dt / erp`` (MuJoCo has no force limit on an equality: ``max_force`` is not modelled)."""
        eq = self.spec.add_equality(type=mujoco.mjtEq.mjEQ_JOINT, name1=joint_a, name2=joint_b)
        data = np.zeros(len(eq.data))
        data[1] = -ratio
        eq.data = data
        eq.solref = [max(dt / erp, 2 * dt), 1.0]
