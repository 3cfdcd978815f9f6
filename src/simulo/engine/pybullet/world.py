"""One PyBullet DIRECT client ("world") and the calls simulo makes on it.

This module and :mod:`simulo.engine.pybullet.batch` are the only code in simulo that imports
``pybullet``. Quaternions cross the boundary here: simulo is w-first ``(qw, qx, qy, qz)``, PyBullet is
``(x, y, z, w)``; :func:`to_pb_quat` and :func:`from_pb_quat` are the one place that converts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pybullet as p
import pybullet_data

PLANE_URDF = str(Path(pybullet_data.getDataPath()) / "plane.urdf")


def to_pb_quat(q_wxyz: Sequence[float]) -> tuple[float, float, float, float]:
    """w-first quaternion -> PyBullet's (x, y, z, w)."""
    return (float(q_wxyz[1]), float(q_wxyz[2]), float(q_wxyz[3]), float(q_wxyz[0]))


def from_pb_quat(q_xyzw: Sequence[float]) -> tuple[float, float, float, float]:
    """PyBullet's (x, y, z, w) -> w-first quaternion."""
    return (q_xyzw[3], q_xyzw[0], q_xyzw[1], q_xyzw[2])


@dataclass(frozen=True)
class JointInfo:
    """One PyBullet joint of a multibody, as loaded.

    Attributes:
        index: PyBullet joint index (equals the index of its child link).
        name: Joint name from the URDF.
        kind: ``"revolute"``, ``"prismatic"`` or ``"fixed"`` (PyBullet folds continuous into revolute).
        link_name: Name of the child link.
        lower: Lower position limit (rad or m); ``lower > upper`` means unlimited.
        upper: Upper position limit.
        max_force: URDF effort limit.
        max_velocity: URDF velocity limit.
    """

    index: int
    name: str
    kind: str
    link_name: str
    lower: float
    upper: float
    max_force: float
    max_velocity: float


_KINDS = {p.JOINT_REVOLUTE: "revolute", p.JOINT_PRISMATIC: "prismatic", p.JOINT_FIXED: "fixed",
          p.JOINT_SPHERICAL: "spherical", p.JOINT_PLANAR: "planar"}


class PyBulletWorld:
    """A PyBullet physics client in DIRECT mode (no window, CPU only).

    Args:
        dt: Physics time step in seconds.
        gravity: Gravity vector in m/s².
        solver_iterations: PyBullet ``numSolverIterations``; ``None`` keeps PyBullet's default.
    """

    def __init__(self, dt: float, gravity: Sequence[float] = (0.0, 0.0, -9.81),
                 solver_iterations: int | None = None) -> None:
        self.cid = p.connect(p.DIRECT)
        self.dt = dt
        self.gravity = tuple(float(g) for g in gravity)
        p.setGravity(*self.gravity, physicsClientId=self.cid)
        p.setTimeStep(dt, physicsClientId=self.cid)
        if solver_iterations is not None:
            p.setPhysicsEngineParameter(numSolverIterations=int(solver_iterations), physicsClientId=self.cid)
        self._closed = False

    # -- spawning ----------------------------------------------------------------------------------
    def add_plane(self, height: float, friction: float | None, restitution: float | None) -> int:
        """Load PyBullet's ``plane.urdf`` with its surface at ``height``."""
        body = p.loadURDF(PLANE_URDF, basePosition=(0.0, 0.0, height), useFixedBase=True, physicsClientId=self.cid)
        self.set_dynamics(body, -1, friction=friction, restitution=restitution)
        return body

    def load_urdf(self, path: Path, position: Sequence[float], quat_wxyz: Sequence[float], fixed_base: bool,
                  scale: float = 1.0, self_collision: bool = False) -> int:
        """Load a URDF file; PyBullet's default flags (inertia recomputed from mass and collision shape)."""
        flags = p.URDF_USE_SELF_COLLISION if self_collision else 0
        kwargs = {"globalScaling": scale} if scale != 1.0 else {}
        return p.loadURDF(str(path), basePosition=tuple(position), baseOrientation=to_pb_quat(quat_wxyz),
                          useFixedBase=fixed_base, flags=flags, physicsClientId=self.cid, **kwargs)

    def add_shape(self, kind: str, dims: Sequence[float], mass: float, position: Sequence[float],
                  quat_wxyz: Sequence[float], color: Sequence[float] | None = None) -> int:
        """Create a single rigid body: ``box`` (half extents), ``sphere`` (radius) or ``cylinder`` (radius, height).

        A mass of 0 makes the body static. A visual shape is added only when ``color`` is given.
        """
        if kind == "box":
            col = p.createCollisionShape(p.GEOM_BOX, halfExtents=list(dims), physicsClientId=self.cid)
            vis_kw = {"halfExtents": list(dims)}
            geom = p.GEOM_BOX
        elif kind == "sphere":
            col = p.createCollisionShape(p.GEOM_SPHERE, radius=dims[0], physicsClientId=self.cid)
            vis_kw = {"radius": dims[0]}
            geom = p.GEOM_SPHERE
        else:
            col = p.createCollisionShape(p.GEOM_CYLINDER, radius=dims[0], height=dims[1], physicsClientId=self.cid)
            vis_kw = {"radius": dims[0], "length": dims[1]}
            geom = p.GEOM_CYLINDER
        vis = -1
        if color is not None:
            vis = p.createVisualShape(geom, rgbaColor=[*color[:3], 1.0], physicsClientId=self.cid, **vis_kw)
        return p.createMultiBody(baseMass=mass, baseCollisionShapeIndex=col, baseVisualShapeIndex=vis,
                                 basePosition=list(position), baseOrientation=list(to_pb_quat(quat_wxyz)),
                                 physicsClientId=self.cid)

    def add_gear(self, body: int, link_a: int, link_b: int, ratio: float, erp: float, max_force: float) -> int:
        """Couple two joints of one body with PyBullet's JOINT_GEAR constraint (``ratio`` -1 mirrors them)."""
        gear = p.createConstraint(body, link_a, body, link_b, p.JOINT_GEAR, [0, 1, 0], [0, 0, 0], [0, 0, 0],
                                  physicsClientId=self.cid)
        p.changeConstraint(gear, gearRatio=ratio, erp=erp, maxForce=max_force, physicsClientId=self.cid)
        return gear

    # -- queries and settings ----------------------------------------------------------------------
    def joints(self, body: int) -> list[JointInfo]:
        """Every joint of a body in PyBullet order (the URDF's order)."""
        out = []
        for j in range(p.getNumJoints(body, physicsClientId=self.cid)):
            info = p.getJointInfo(body, j, physicsClientId=self.cid)
            out.append(JointInfo(j, info[1].decode(), _KINDS.get(info[2], "other"), info[12].decode(),
                                 info[8], info[9], info[10], info[11]))
        return out

    def base_link_name(self, body: int) -> str:
        """Name of the body's root link."""
        return p.getBodyInfo(body, physicsClientId=self.cid)[0].decode()

    def set_dynamics(self, body: int, link: int, *, friction: float | None = None,
                     restitution: float | None = None, mass: float | None = None,
                     joint_damping: float | None = None, max_joint_velocity: float | None = None,
                     joint_limits: tuple[float, float] | None = None) -> None:
        """Change only the given dynamics properties of one link."""
        kw: dict[str, float] = {}
        if friction is not None:
            kw["lateralFriction"] = friction
        if restitution is not None:
            kw["restitution"] = restitution
        if mass is not None:
            kw["mass"] = mass
        if joint_damping is not None:
            kw["jointDamping"] = joint_damping
        if max_joint_velocity is not None:
            kw["maxJointVelocity"] = max_joint_velocity
        if joint_limits is not None:
            kw["jointLowerLimit"], kw["jointUpperLimit"] = joint_limits
        if kw:
            p.changeDynamics(body, link, physicsClientId=self.cid, **kw)

    def mass(self, body: int, link: int) -> float:
        """Mass of one link in kg."""
        return p.getDynamicsInfo(body, link, physicsClientId=self.cid)[0]

    def inertial_offset(self, body: int, link: int) -> tuple[Sequence[float], Sequence[float]]:
        """Position and PyBullet quaternion of a link's centre of mass in its link frame."""
        info = p.getDynamicsInfo(body, link, physicsClientId=self.cid)
        return info[3], info[4]

    def disable_collisions(self, body: int) -> None:
        """Make a body collide with nothing."""
        self.set_collision_group(body, 0, 0)

    def set_collision_group(self, body: int, group: int, mask: int) -> None:
        """Set the collision filter group and mask of every link of a body."""
        for link in range(-1, p.getNumJoints(body, physicsClientId=self.cid)):
            p.setCollisionFilterGroupMask(body, link, group, mask, physicsClientId=self.cid)

    def contact_count(self, body_a: int, body_b: int, link_a: int | None = None) -> int:
        """Number of contact points between two bodies (optionally one link of the first)."""
        if link_a is None:
            return len(p.getContactPoints(body_a, body_b, physicsClientId=self.cid))
        return len(p.getContactPoints(body_a, body_b, linkIndexA=link_a, physicsClientId=self.cid))

    def render(self, width: int, height: int, eye: Sequence[float], target: Sequence[float],
               fov_deg: float = 45.0) -> np.ndarray:
        """Draw the world with PyBullet's CPU TinyRenderer; returns RGB (height, width, 3) uint8.

        Only links with visual shapes are drawn.
        """
        view = p.computeViewMatrix(list(eye), list(target), [0, 0, 1], physicsClientId=self.cid)
        proj = p.computeProjectionMatrixFOV(fov_deg, width / height, 0.01, 20.0, physicsClientId=self.cid)
        img = p.getCameraImage(width, height, view, proj, renderer=p.ER_TINY_RENDERER, physicsClientId=self.cid)
        return np.reshape(np.asarray(img[2], dtype=np.uint8), (height, width, 4))[:, :, :3].copy()

    # -- stepping ----------------------------------------------------------------------------------
    def step(self) -> None:
        """Advance the world by one time step."""
        p.stepSimulation(physicsClientId=self.cid)

    def close(self) -> None:
        """Disconnect the client; further calls on this world fail."""
        if not self._closed:
            p.disconnect(physicsClientId=self.cid)
            self._closed = True
