"""One PyBullet DIRECT client ("world"): the one owner of every PyBullet call simulo makes.

No other module calls ``pybullet`` but the world's two collaborators, its imaging and sensing calls
(:mod:`.world_sensing`, held as :attr:`PyBulletWorld.sensing`) and its welds (:mod:`.world_welds`, held as
:attr:`PyBulletWorld.welds`). The batches in :mod:`simulo.engine.pybullet` call methods of the world and of
these, as panda-gym's ``PyBullet`` class owns its client. Quaternions cross the boundary here: simulo is w-first
``(qw, qx, qy, qz)``, PyBullet is ``(x, y, z, w)``; :func:`to_pb_quat` and :func:`from_pb_quat` are the one
place that converts, and every method takes and returns w-first quaternions.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence

import numpy as np
import pybullet as p
import pybullet_data

from simulo.engine.base import JointInfo
from simulo.engine.pybullet.world_sensing import Vec3, WorldSensing
from simulo.engine.pybullet.world_welds import WorldWelds

PLANE_URDF = os.path.join(pybullet_data.getDataPath(), "plane.urdf")


Quat = tuple[float, float, float, float]
#: A joint state as PyBullet reports it: (position, velocity, reaction forces, applied motor effort).
JointState = tuple[float, float, tuple[float, ...], float]


def to_pb_quat(q_wxyz: Vec3) -> Quat:
    """w-first quaternion -> PyBullet's (x, y, z, w)."""
    return (float(q_wxyz[1]), float(q_wxyz[2]), float(q_wxyz[3]), float(q_wxyz[0]))


def from_pb_quat(q_xyzw: Sequence[float]) -> Quat:
    """PyBullet's (x, y, z, w) -> w-first quaternion."""
    return (q_xyzw[3], q_xyzw[0], q_xyzw[1], q_xyzw[2])


_KINDS = {p.JOINT_REVOLUTE: "revolute", p.JOINT_PRISMATIC: "prismatic", p.JOINT_FIXED: "fixed",
          p.JOINT_SPHERICAL: "spherical", p.JOINT_PLANAR: "planar"}


def rotation_matrix(q_wxyz: Vec3) -> np.ndarray:
    """Rotation matrix (3, 3) of a quaternion, as PyBullet computes it."""
    return np.asarray(p.getMatrixFromQuaternion(to_pb_quat(q_wxyz))).reshape(3, 3)


def multiply_transforms(pos_a: Vec3, quat_a: Vec3, pos_b: Vec3, quat_b: Vec3
                        ) -> tuple[Vec3, Quat]:
    """The transform ``a * b`` as PyBullet computes it (w-first quaternions in and out)."""
    pos, orn = p.multiplyTransforms(pos_a, to_pb_quat(quat_a), pos_b, to_pb_quat(quat_b))
    return pos, from_pb_quat(orn)


def invert_transform(pos: Vec3, quat: Vec3) -> tuple[Vec3, Quat]:
    """The inverse transform as PyBullet computes it (w-first quaternions in and out)."""
    inv_pos, inv_orn = p.invertTransform(pos, to_pb_quat(quat))
    return inv_pos, from_pb_quat(inv_orn)


def cone_mesh(radius: float, height: float, sides: int = 32) -> tuple[list[list[float]], list[int]]:
    """Vertices and triangle indices of a cone (apex up, axis z, centred at mid-height) as a pyramid."""
    angles = np.linspace(0.0, 2 * np.pi, sides, endpoint=False)
    ring = [[radius * float(np.cos(a)), radius * float(np.sin(a)), -height / 2] for a in angles]
    vertices = [[0.0, 0.0, height / 2], [0.0, 0.0, -height / 2], *ring]
    indices: list[int] = []
    for k in range(sides):
        a, b = 2 + k, 2 + (k + 1) % sides
        indices += [0, a, b, 1, b, a]
    return vertices, indices


class PyBulletWorld:
    """A PyBullet physics client in DIRECT mode (no window, CPU only).

    Bodies are PyBullet body ids; links are PyBullet link indices (-1 is the base); joints are PyBullet
    joint indices. Those stay inside :mod:`simulo.engine.pybullet`.

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
        #: advances this client by one time step (``stepSimulation``, bound)
        self.stepper: Callable[[], None] = functools.partial(p.stepSimulation, physicsClientId=self.cid)
        #: images, visual colours, rays, contact forces and joint force sensors of this client
        self.sensing = WorldSensing(self.cid)
        #: fixed constraints between a robot link and a rigid body, and their loads
        self.welds = WorldWelds(self.cid)

    # -- spawning ----------------------------------------------------------------------------------
    def add_plane(self, height: float, friction: float | None, restitution: float | None,
                  contact: tuple[float, float] | None = None) -> int:
        """Load PyBullet's ``plane.urdf`` with its surface at ``height`` (``contact``: stiffness, damping)."""
        body = p.loadURDF(PLANE_URDF, basePosition=(0.0, 0.0, height), useFixedBase=True, physicsClientId=self.cid)
        self.set_dynamics(body, -1, friction=friction, restitution=restitution)
        if contact is not None:
            p.changeDynamics(body, -1, contactStiffness=contact[0], contactDamping=contact[1],
                             physicsClientId=self.cid)
        return body

    def load_urdf(self, path: str | os.PathLike[str], position: Vec3, quat_wxyz: Vec3, fixed_base: bool,
                  scale: float = 1.0, self_collision: bool = False, visual_shapes: bool = True) -> int:
        """Load a URDF file; PyBullet's default flags (inertia recomputed from mass and collision shape), its
        visual shapes left out unless ``visual_shapes``."""
        flags = (p.URDF_USE_SELF_COLLISION if self_collision else 0) | (0 if visual_shapes else
                                                                         p.URDF_IGNORE_VISUAL_SHAPES)
        kwargs = {"globalScaling": scale} if scale != 1.0 else {}
        return p.loadURDF(str(path), basePosition=tuple(position), baseOrientation=to_pb_quat(quat_wxyz),
                          useFixedBase=fixed_base, flags=flags, physicsClientId=self.cid, **kwargs)

    def add_shape(self, kind: str, dims: Sequence[float], mass: float, position: Vec3,
                  quat_wxyz: Vec3, color: Sequence[float] | None = None) -> int:
        """Create a single rigid body: ``box`` (half extents), ``sphere`` (radius) or ``cylinder`` (radius, height).

        A mass of 0 makes the body static. A visual shape is added only when ``color`` is given.
        """
        vis_kw: dict[str, float | list[float] | list[list[float]] | list[int]]
        if kind == "box":
            col = p.createCollisionShape(p.GEOM_BOX, halfExtents=list(dims), physicsClientId=self.cid)
            vis_kw = {"halfExtents": list(dims)}
            geom = p.GEOM_BOX
        elif kind == "sphere":
            col = p.createCollisionShape(p.GEOM_SPHERE, radius=dims[0], physicsClientId=self.cid)
            vis_kw = {"radius": dims[0]}
            geom = p.GEOM_SPHERE
        elif kind == "cylinder":
            col = p.createCollisionShape(p.GEOM_CYLINDER, radius=dims[0], height=dims[1], physicsClientId=self.cid)
            vis_kw = {"radius": dims[0], "length": dims[1]}
            geom = p.GEOM_CYLINDER
        else:  # a cone: PyBullet has none, so the convex hull of a 32-sided pyramid stands in for it
            vertices, indices = cone_mesh(dims[0], dims[1])
            col = p.createCollisionShape(p.GEOM_MESH, vertices=vertices, physicsClientId=self.cid)
            vis_kw = {"vertices": vertices, "indices": indices}
            geom = p.GEOM_MESH
        vis = -1
        if color is not None:
            vis = p.createVisualShape(geom, rgbaColor=[*color[:3], 1.0], physicsClientId=self.cid, **vis_kw)
        return p.createMultiBody(baseMass=mass, baseCollisionShapeIndex=col, baseVisualShapeIndex=vis,
                                 basePosition=list(position), baseOrientation=list(to_pb_quat(quat_wxyz)),
                                 physicsClientId=self.cid)

    def add_heightfield(self, heights: np.ndarray, cell_size: float, position: Vec3, quat_wxyz: Vec3,
                        friction: float | None, restitution: float | None) -> int:
        """Create a static ``GEOM_HEIGHTFIELD`` body from heights (rows along y, columns along x).

        PyBullet centres a height field on the middle of its height range; the body is shifted back so that
        height 0 sits at ``position``.
        """
        rows, cols = heights.shape
        col = p.createCollisionShape(p.GEOM_HEIGHTFIELD, meshScale=[cell_size, cell_size, 1.0],
                                     heightfieldData=heights.reshape(-1).tolist(), numHeightfieldRows=cols,
                                     numHeightfieldColumns=rows, physicsClientId=self.cid)
        mid = (float(heights.max()) + float(heights.min())) / 2
        pos, quat = multiply_transforms(position, quat_wxyz, (0.0, 0.0, mid), (1.0, 0.0, 0.0, 0.0))
        body = p.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=col, basePosition=list(pos),
                                 baseOrientation=list(to_pb_quat(quat)), physicsClientId=self.cid)
        self.set_dynamics(body, -1, friction=friction, restitution=restitution)
        return body

    def add_gear(self, body: int, joint_a: int, joint_b: int, ratio: float, erp: float, max_force: float) -> int:
        """Couple two joints of one body with PyBullet's JOINT_GEAR constraint (``ratio`` -1 mirrors them)."""
        gear = p.createConstraint(body, joint_a, body, joint_b, p.JOINT_GEAR, [0, 1, 0], [0, 0, 0], [0, 0, 0],
                                  physicsClientId=self.cid)
        p.changeConstraint(gear, gearRatio=ratio, erp=erp, maxForce=max_force, physicsClientId=self.cid)
        return gear

    # -- model queries and settings ----------------------------------------------------------------
    def joints(self, body: int) -> list[JointInfo]:
        """Every joint of a body, fixed ones included, in PyBullet order (depth-first): entry ``k`` is joint ``k``."""
        out = []
        for j in range(p.getNumJoints(body, physicsClientId=self.cid)):
            info = p.getJointInfo(body, j, physicsClientId=self.cid)
            out.append(JointInfo(info[1].decode(), _KINDS.get(info[2], "other"), info[12].decode(),
                                 info[8], info[9], info[10], info[11]))
        return out

    def base_link_name(self, body: int) -> str:
        """Name of the body's root link."""
        return p.getBodyInfo(body, physicsClientId=self.cid)[0].decode()

    def set_dynamics(self, body: int, link: int, *, friction: float | None = None,
                     restitution: float | None = None, mass: float | None = None,
                     joint_damping: float | None = None, max_joint_velocity: float | None = None,
                     joint_limits: tuple[float, float] | None = None,
                     inertia_diagonal: Vec3 | None = None) -> None:
        """Change only the given dynamics properties of one link."""
        kw: dict[str, float | Vec3] = {}
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
        if inertia_diagonal is not None:
            kw["localInertiaDiagonal"] = inertia_diagonal
        if kw:
            p.changeDynamics(body, link, physicsClientId=self.cid, **kw)

    def set_gravity(self, gravity: Sequence[float]) -> None:
        """Set the world's gravity vector in m/s²."""
        self.gravity = tuple(float(g) for g in gravity)
        p.setGravity(*self.gravity, physicsClientId=self.cid)

    def push(self, body: int, link: int, force: Vec3, torque: Vec3) -> None:
        """For the next step, apply a world-frame force at a link's centre of mass and a world-frame torque."""
        com = self.base_pose(body)[0] if link == -1 else self.link_com(body, link)
        p.applyExternalForce(body, link, list(force), list(com), p.WORLD_FRAME, physicsClientId=self.cid)
        p.applyExternalTorque(body, link, list(torque), p.WORLD_FRAME, physicsClientId=self.cid)

    def mass(self, body: int, link: int) -> float:
        """Mass of one link in kg."""
        return p.getDynamicsInfo(body, link, physicsClientId=self.cid)[0]

    def surface(self, body: int, link: int) -> tuple[float, float]:
        """Lateral friction and restitution of one link."""
        info = p.getDynamicsInfo(body, link, physicsClientId=self.cid)
        return info[1], info[5]

    def remove_body(self, body: int) -> None:
        """Remove a body from the world."""
        p.removeBody(body, physicsClientId=self.cid)

    def inertia_diagonal(self, body: int, link: int) -> Vec3:
        """Principal moments of inertia of one link (kg·m², in its inertial frame)."""
        return p.getDynamicsInfo(body, link, physicsClientId=self.cid)[2]

    def inertial_offset(self, body: int, link: int) -> tuple[Vec3, Quat]:
        """Position and quaternion of a link's centre of mass in its link frame."""
        info = p.getDynamicsInfo(body, link, physicsClientId=self.cid)
        return info[3], from_pb_quat(info[4])

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

    # -- state -------------------------------------------------------------------------------------
    def base_pose(self, body: int) -> tuple[Vec3, Quat]:
        """Position and quaternion of the base's centre-of-mass frame."""
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=self.cid)
        return pos, from_pb_quat(orn)

    def base_velocity(self, body: int) -> tuple[Vec3, Vec3]:
        """Linear velocity of the base's centre of mass and angular velocity, world axes."""
        return p.getBaseVelocity(body, physicsClientId=self.cid)

    def joint_state_reader(self, body: int, joints: Sequence[int]) -> Callable[[], list[JointState]]:
        """:meth:`joint_states` of these joints as a call without arguments."""
        return functools.partial(p.getJointStates, body, joints, physicsClientId=self.cid)

    def joint_states(self, body: int, joints: Sequence[int]) -> list[JointState]:
        """PyBullet's joint states of the given joints."""
        return p.getJointStates(body, joints, physicsClientId=self.cid)

    def link_frames(self, body: int, links: Sequence[int]) -> list[float]:
        """The link frames' poses, flat: ``[x, y, z, qw, qx, qy, qz]`` per link, forward kinematics recomputed."""
        if len(links) == 1:
            states = (p.getLinkState(body, links[0], computeForwardKinematics=1, physicsClientId=self.cid),)
        else:
            states = p.getLinkStates(body, links, computeForwardKinematics=1, physicsClientId=self.cid)
        flat: list[float] = []
        for s in states:
            flat += s[4]
            flat += from_pb_quat(s[5])
        return flat

    def link_frame_reader(self, body: int, link: int) -> Callable[[], list[float]]:
        """A call that reads one link frame's pose ``[x, y, z, qw, qx, qy, qz]``, forward kinematics recomputed."""
        read = functools.partial(p.getLinkState, body, link, computeForwardKinematics=1, physicsClientId=self.cid)

        def frame() -> list[float]:
            state = read()
            x, y, z, w = state[5]
            return [*state[4], w, x, y, z]
        return frame

    def link_states(self, body: int, links: Sequence[int]) -> list[tuple[Vec3, Quat, Vec3, Vec3, Vec3]]:
        """Per link: frame position, frame quaternion, centre of mass, and the centre of mass's linear and the
        link's angular velocity (world axes), forward kinematics recomputed."""
        states = p.getLinkStates(body, list(links), computeLinkVelocity=1, computeForwardKinematics=1,
                                 physicsClientId=self.cid)
        return [(s[4], from_pb_quat(s[5]), s[0], s[6], s[7]) for s in states]

    def link_com(self, body: int, link: int) -> Vec3:
        """World position of a link's centre of mass, forward kinematics recomputed."""
        return p.getLinkState(body, link, computeForwardKinematics=1, physicsClientId=self.cid)[0]

    # -- writes ------------------------------------------------------------------------------------
    def reset_joints(self, body: int, joints: Sequence[int], q: Sequence[float], qd: Sequence[float]) -> None:
        """Teleport the given joints to positions ``q`` and velocities ``qd`` (one at a time, in order)."""
        for idx, qj, qdj in zip(joints, q, qd):
            p.resetJointState(body, idx, qj, qdj, physicsClientId=self.cid)

    def reset_base_pose(self, body: int, position: Vec3, quat_wxyz: Vec3) -> None:
        """Teleport the base's centre-of-mass frame."""
        p.resetBasePositionAndOrientation(body, position, to_pb_quat(quat_wxyz), physicsClientId=self.cid)

    def reset_base_velocity(self, body: int, linear: Vec3, angular: Vec3) -> None:
        """Set the base's centre-of-mass linear velocity and its angular velocity."""
        p.resetBaseVelocity(body, linear, angular, physicsClientId=self.cid)

    def disable_motors(self, body: int, joints: Sequence[int]) -> None:
        """Switch off the velocity motors PyBullet puts on every joint (zero target, zero force)."""
        zeros = [0.0] * len(joints)
        p.setJointMotorControlArray(body, joints, p.VELOCITY_CONTROL, targetVelocities=zeros, forces=zeros,
                                    physicsClientId=self.cid)

    def position_sender(self, body: int, joints: Sequence[int], velocities: Sequence[float],
                        forces: Sequence[float], position_gains: Sequence[float],
                        velocity_gains: Sequence[float]) -> Callable[[Sequence[float]], None]:
        """A call that drives these joints with PyBullet's ``POSITION_CONTROL`` motor, every argument but the
        targets bound: call it with the target positions.

        Velocity targets that are all 0 and velocity gains that are all 1 are left out of the bound call: they
        are PyBullet's own defaults for the motor, so its commands are the same, and it skips converting them
        on every call (about 2.4k instructions of each step's command)."""
        kwargs: dict[str, Sequence[float]] = {"forces": forces, "positionGains": position_gains}
        if any(v != 0.0 for v in velocities):
            kwargs["targetVelocities"] = velocities
        if any(kv != 1.0 for kv in velocity_gains):
            kwargs["velocityGains"] = velocity_gains
        return functools.partial(p.setJointMotorControlArray, body, joints, p.POSITION_CONTROL,
                                 physicsClientId=self.cid, **kwargs)

    def velocity_motors(self, body: int, joints: Sequence[int], velocities: Sequence[float],
                        forces: Sequence[float], velocity_gains: Sequence[float]) -> None:
        """Drive joints with PyBullet's ``VELOCITY_CONTROL`` motor."""
        p.setJointMotorControlArray(body, joints, p.VELOCITY_CONTROL, targetVelocities=velocities, forces=forces,
                                    velocityGains=velocity_gains, physicsClientId=self.cid)

    def torque_sender(self, body: int, joints: Sequence[int]) -> Callable[..., None]:
        """A call that applies joint torques (forces on prismatic joints) for the next step: call it with
        ``forces=`` the torques (PyBullet's ``TORQUE_CONTROL``, every other argument bound)."""
        return functools.partial(p.setJointMotorControlArray, body, joints, p.TORQUE_CONTROL, physicsClientId=self.cid)

    def cancel_gravity(self, body: int, num_links: int) -> None:
        """For the next step, push every link of a body up with m·g at its centre of mass."""
        g = np.asarray(self.gravity)
        pos, _ = p.getBasePositionAndOrientation(body, physicsClientId=self.cid)
        p.applyExternalForce(body, -1, (-self.mass(body, -1) * g).tolist(), pos, p.WORLD_FRAME,
                             physicsClientId=self.cid)
        for link in range(num_links):
            com = self.link_com(body, link)
            p.applyExternalForce(body, link, (-self.mass(body, link) * g).tolist(), com, p.WORLD_FRAME,
                                 physicsClientId=self.cid)

    # -- dynamics ----------------------------------------------------------------------------------
    def jacobian(self, body: int, link: int, point: Vec3, q: Sequence[float], zeros: Sequence[float]
                 ) -> tuple[np.ndarray, np.ndarray]:
        """PyBullet's ``calculateJacobian`` (linear, angular) at ``point`` in the link frame, base axes."""
        lin, ang = p.calculateJacobian(body, link, point, q, zeros, zeros, physicsClientId=self.cid)
        return np.asarray(lin), np.asarray(ang)

    def mass_matrix(self, body: int, q: Sequence[float]) -> np.ndarray:
        """PyBullet's ``calculateMassMatrix`` at joint positions ``q``."""
        return np.asarray(p.calculateMassMatrix(body, q, physicsClientId=self.cid))

    # -- closing ----------------------------------------------------------------------------------
    def close(self) -> None:
        """Disconnect the client; further calls on this world fail."""
        if not self._closed:
            p.disconnect(physicsClientId=self.cid)
            self._closed = True


#: A body in its world: ``(world, PyBullet body id)``.
Handle = tuple[PyBulletWorld, int]
