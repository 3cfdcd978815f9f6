"""Batches of environments over several PyBullet worlds.

A batch of ``num_envs`` environments is split over worlds (DIRECT clients) holding at most
``envs_per_world`` environments each: environment ``i`` lives in world ``i // envs_per_world``, always
with the same neighbours for a given layout, so results repeat exactly (see DESIGN.md: environments that
share a client are not independent bit for bit).

Everything here works on numpy arrays indexed by environment; the runtime layer above never sees a
PyBullet id. Poses are ``[x, y, z, qw, qx, qy, qz]`` of the URDF link frame (not the centre of mass).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pybullet as p

from simulo.engine.pybullet.world import JointInfo, PyBulletWorld, from_pb_quat, to_pb_quat
from simulo.errors import AssetError, SimuloValueError

#: Control modes of one joint in one environment, as sent to PyBullet.
PASSIVE, MOTOR_POSITION, MOTOR_VELOCITY, TORQUE = 0, 1, 2, 3

#: Default bound on environments per world, chosen with benchmarks/robot_throughput.py.
DEFAULT_ENVS_PER_WORLD = 16

#: Largest bound: environments sharing a world are kept apart with one collision-filter bit each.
MAX_ENVS_PER_WORLD = 28

#: Collision group of PyBullet's static objects (the shared ground plane keeps it).
_STATIC_GROUP = 2

#: The commands of one control mode for a group of environments that share a mode row: (index of the
#: group's rows and the mode's columns in a (num_envs, num_joints) array, PyBullet joint indices, handles).
_Commands = tuple[Any, list[int], list[tuple[PyBulletWorld, int]]]


class PyBulletEngine:
    """The worlds of one simulation.

    Args:
        num_envs: Number of environments.
        dt: Physics time step in seconds.
        gravity: Gravity vector in m/s².
        envs_per_world: Largest number of environments sharing one PyBullet client.
        solver_iterations: PyBullet ``numSolverIterations`` for every world, or ``None``.
    """

    def __init__(self, num_envs: int, dt: float, gravity: Sequence[float] = (0.0, 0.0, -9.81),
                 envs_per_world: int = DEFAULT_ENVS_PER_WORLD, solver_iterations: int | None = None) -> None:
        if not 1 <= envs_per_world <= MAX_ENVS_PER_WORLD:
            raise SimuloValueError(f"envs_per_world must be between 1 and {MAX_ENVS_PER_WORLD}, got {envs_per_world}")
        self.num_envs = num_envs
        self.envs_per_world = envs_per_world
        n_worlds = -(-num_envs // envs_per_world)
        self.worlds = [PyBulletWorld(dt, gravity, solver_iterations) for _ in range(n_worlds)]
        self.env_world = [self.worlds[i // envs_per_world] for i in range(num_envs)]

    def add_plane(self, height: float, friction: float | None, restitution: float | None) -> None:
        """Add a ground plane to every world."""
        for world in self.worlds:
            world.add_plane(height, friction, restitution)

    def _isolate(self, env: int, body: int) -> None:
        """Keep an environment's body from touching other environments' bodies in the same world.

        Environment ``k`` of a world gets its own collision-filter bit and collides with its own bodies
        and with the shared static ground. A world holding one environment is left untouched.
        """
        if self.envs_per_world > 1 and self.num_envs > 1:
            bit = 1 << (2 + env % self.envs_per_world)
            self.env_world[env].set_collision_group(body, bit, bit | _STATIC_GROUP)

    def add_articulation(self, path: Path, poses: np.ndarray, fixed_base: bool, scale: float = 1.0,
                         self_collision: bool = False) -> "ArticulationBatch":
        """Load one copy of a URDF per environment at ``poses`` (num_envs, 7), link-frame poses."""
        handles = []
        for i in range(self.num_envs):
            world = self.env_world[i]
            body = world.load_urdf(path, poses[i, :3], poses[i, 3:], fixed_base, scale, self_collision)
            self._isolate(i, body)
            handles.append((world, body))
        return ArticulationBatch(handles, fixed_base)

    def add_rigid(self, kind: str, dims: Sequence[float], mass: float, poses: np.ndarray,
                  color: Sequence[float] | None = None) -> "RigidBatch":
        """Create one single-body shape per environment (``mass`` 0: static)."""
        handles = []
        for i in range(self.num_envs):
            world = self.env_world[i]
            body = world.add_shape(kind, dims, mass, poses[i, :3], poses[i, 3:], color)
            self._isolate(i, body)
            handles.append((world, body))
        return RigidBatch(handles)

    def render(self, env: int, width: int, height: int, eye: Sequence[float], target: Sequence[float]) -> np.ndarray:
        """RGB image (height, width, 3) of the world holding environment ``env`` (world coordinates)."""
        return self.env_world[env].render(width, height, eye, target)

    def step(self) -> None:
        """Advance every world by one time step."""
        for world in self.worlds:
            world.step()

    def close(self) -> None:
        """Disconnect every world."""
        for world in self.worlds:
            world.close()


class RigidBatch:
    """One single-body rigid object per environment."""

    def __init__(self, handles: list[tuple[PyBulletWorld, int]]) -> None:
        self.handles = handles

    def read(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray) -> None:
        """Write the current pose (centre of the shape) and velocities into the given arrays in place."""
        for i, (w, b) in enumerate(self.handles):
            pos, orn = p.getBasePositionAndOrientation(b, physicsClientId=w.cid)
            pose[i, :3] = pos
            pose[i, 3:] = from_pb_quat(orn)
            lin, ang = p.getBaseVelocity(b, physicsClientId=w.cid)
            lin_vel[i] = lin
            ang_vel[i] = ang

    def write_pose(self, env_ids: np.ndarray, poses: np.ndarray) -> None:
        """Teleport the objects of ``env_ids`` to ``poses`` (len(env_ids), 7)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            p.resetBasePositionAndOrientation(b, poses[k, :3].tolist(), to_pb_quat(poses[k, 3:]), physicsClientId=w.cid)

    def write_velocity(self, env_ids: np.ndarray, velocities: np.ndarray) -> None:
        """Set the velocities ``[vx, vy, vz, wx, wy, wz]`` of the objects of ``env_ids``."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            p.resetBaseVelocity(b, velocities[k, :3].tolist(), velocities[k, 3:].tolist(), physicsClientId=w.cid)

    def set_friction(self, friction: float) -> None:
        """Set the lateral friction coefficient of every copy."""
        for w, b in self.handles:
            w.set_dynamics(b, -1, friction=friction)

    def contact_count(self, env: int, other: "ArticulationBatch", link: int | None = None) -> int:
        """Contact points between this object and ``other`` (optionally one of its links) in one environment."""
        w, b = self.handles[env]
        return w.contact_count(other.handles[env][1], b, link)


class ArticulationBatch:
    """One copy of an articulated robot per environment.

    Joints are the URDF's revolute, continuous and prismatic joints in document order; bodies are the root
    link followed by every other link in PyBullet order (body ``k`` is PyBullet link ``k - 1``).
    """

    def __init__(self, handles: list[tuple[PyBulletWorld, int]], fixed_base: bool) -> None:
        self.handles = handles
        self.fixed_base = fixed_base
        world, body = handles[0]
        all_joints = world.joints(body)
        bad = [j.name for j in all_joints if j.kind not in ("revolute", "prismatic", "fixed")]
        if bad:
            raise AssetError(f"joints {bad} are spherical or planar; the PyBullet engine drives revolute, "
                             "continuous, prismatic and fixed joints only")
        self.joints: list[JointInfo] = [j for j in all_joints if j.kind != "fixed"]
        self.joint_indices = [j.index for j in self.joints]
        self.body_names = [world.base_link_name(body)] + [j.link_name for j in all_joints]
        self.num_links = len(all_joints)
        off_pos, off_orn = world.inertial_offset(body, -1)
        self._base_off = np.array([*off_pos, *from_pb_quat(off_orn)])
        self._base_off_identity = bool(np.array_equal(self._base_off, [0, 0, 0, 1, 0, 0, 0]))
        self._base_off_inverse = p.invertTransform(off_pos, off_orn)
        self._mode = np.zeros((len(handles), len(self.joints)), dtype=np.int8)
        self._plan_key: bytes | None = None  # the mode array the cached command plan was built for
        self._plan: dict[int, list[_Commands]] = {}
        self._fixed_key: tuple[bytes, ...] | None = None  # the arrays the cached motor arguments were built for
        self._fixed: dict[int, list[list[tuple[list[float], ...]]]] = {}
        n = len(self.joints)
        self._zeros = [0.0] * n
        # each link's centre of mass as PyBullet's calculateJacobian wants the point: from the link frame's
        # origin, in the axes of the link's inertial frame
        self._com_points: list[list[float]] = []
        for link in range(self.num_links):
            pos, orn = world.inertial_offset(body, link)
            rot = np.asarray(p.getMatrixFromQuaternion(orn)).reshape(3, 3)
            self._com_points.append((rot.T @ np.asarray(pos)).tolist())
        self._disable_motors(range(len(handles)))

    @property
    def num_envs(self) -> int:
        """Number of copies."""
        return len(self.handles)

    # -- state -------------------------------------------------------------------------------------
    def read_joints(self, q: np.ndarray, qd: np.ndarray, effort: np.ndarray) -> None:
        """Write joint positions, velocities and motor efforts of every copy into the arrays in place."""
        idx = self.joint_indices
        if not idx:
            return
        states: list[tuple] = []
        for w, b in self.handles:
            states += p.getJointStates(b, idx, physicsClientId=w.cid)
        pos, vel, _, eff = zip(*states)  # flat sequences convert much faster than nested ones
        shape = (len(self.handles), len(idx))
        q[:] = np.array(pos).reshape(shape)
        qd[:] = np.array(vel).reshape(shape)
        effort[:] = np.array(eff).reshape(shape)

    def read_base(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
                  env_ids: Sequence[int] | None = None) -> None:
        """Write the root link's frame pose and the velocity of its origin into the arrays in place."""
        ids = range(self.num_envs) if env_ids is None else env_ids
        com = np.empty((len(ids), 3))
        rows = list(ids)
        for k, i in enumerate(rows):
            w, b = self.handles[i]
            pos, orn = p.getBasePositionAndOrientation(b, physicsClientId=w.cid)
            lin, ang = p.getBaseVelocity(b, physicsClientId=w.cid)
            com[k] = pos
            pose[i, 3:] = from_pb_quat(orn)
            lin_vel[i] = lin
            ang_vel[i] = ang
        if self._base_off_identity:
            pose[rows, :3] = com
            return
        for k, i in enumerate(rows):
            pos, orn = p.multiplyTransforms(com[k].tolist(), to_pb_quat(pose[i, 3:]), *self._base_off_inverse)
            pose[i, :3] = pos
            pose[i, 3:] = from_pb_quat(orn)
        r = pose[rows, :3] - com  # origin relative to the centre of mass
        lin_vel[rows] = lin_vel[rows] + np.cross(ang_vel[rows], r)

    def read_links(self, links: Sequence[int], env_ids: Sequence[int], velocity: bool
                   ) -> tuple[np.ndarray, np.ndarray | None]:
        """Link-frame poses (E, L, 7) and, if asked, velocities of the link origins (E, L, 6)."""
        if not velocity:
            links = list(links)
            flat: list[float] = []
            for i in env_ids:
                w, b = self.handles[i]
                if len(links) == 1:
                    states = (p.getLinkState(b, links[0], computeForwardKinematics=1, physicsClientId=w.cid),)
                else:
                    states = p.getLinkStates(b, links, computeForwardKinematics=1, physicsClientId=w.cid)
                for s in states:
                    flat += s[4]
                    flat += from_pb_quat(s[5])
            return np.array(flat, dtype=np.float64).reshape(len(env_ids), len(links), 7), None
        poses = np.empty((len(env_ids), len(links), 7))
        vels = np.empty((len(env_ids), len(links), 6)) if velocity else None
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            states = p.getLinkStates(b, list(links), computeLinkVelocity=int(velocity),
                                     computeForwardKinematics=1, physicsClientId=w.cid)
            for m, s in enumerate(states):
                poses[k, m, :3] = s[4]
                poses[k, m, 3:] = from_pb_quat(s[5])
                if vels is not None:
                    ang = np.asarray(s[7])
                    vels[k, m, :3] = np.asarray(s[6]) + np.cross(ang, np.subtract(s[4], s[0]))
                    vels[k, m, 3:] = ang
        return poses, vels

    # -- writes ------------------------------------------------------------------------------------
    def write_joints(self, env_ids: Sequence[int], q: np.ndarray, qd: np.ndarray) -> None:
        """Teleport joints of ``env_ids`` to ``q``/``qd`` (len(env_ids), num_joints)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            for j, idx in enumerate(self.joint_indices):
                p.resetJointState(b, idx, float(q[k, j]), float(qd[k, j]), physicsClientId=w.cid)

    def write_base_pose(self, env_ids: Sequence[int], poses: np.ndarray) -> None:
        """Teleport root links of ``env_ids`` to link-frame ``poses`` (len(env_ids), 7)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            pos, orn = poses[k, :3].tolist(), to_pb_quat(poses[k, 3:])
            if not self._base_off_identity:
                pos, orn = p.multiplyTransforms(pos, orn, self._base_off[:3].tolist(), to_pb_quat(self._base_off[3:]))
            p.resetBasePositionAndOrientation(b, pos, orn, physicsClientId=w.cid)

    def write_base_velocity(self, env_ids: Sequence[int], velocities: np.ndarray) -> None:
        """Set root velocities ``[vx, vy, vz, wx, wy, wz]`` (velocity of the link-frame origin)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            lin, ang = velocities[k, :3], velocities[k, 3:]
            if not self._base_off_identity:
                com_pos, com_orn = p.getBasePositionAndOrientation(b, physicsClientId=w.cid)
                origin, _ = p.multiplyTransforms(com_pos, com_orn, *self._base_off_inverse)
                lin = lin + np.cross(ang, np.subtract(com_pos, origin))
            p.resetBaseVelocity(b, lin.tolist(), ang.tolist(), physicsClientId=w.cid)

    def _disable_motors(self, env_ids: Sequence[int], joints: Sequence[int] | None = None) -> None:
        cols = list(range(len(self.joints))) if joints is None else list(joints)
        if not cols:
            return
        idx = [self.joint_indices[j] for j in cols]
        zeros = [0.0] * len(idx)
        for i in env_ids:
            w, b = self.handles[i]
            p.setJointMotorControlArray(b, idx, p.VELOCITY_CONTROL, targetVelocities=zeros, forces=zeros,
                                        physicsClientId=w.cid)
            self._mode[i, cols] = PASSIVE

    def apply(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
              position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        """Send one step's joint commands for every environment.

        All arrays are (num_envs, num_joints). ``mode`` holds PASSIVE, MOTOR_POSITION, MOTOR_VELOCITY or
        TORQUE per joint; motors use ``position``/``velocity`` targets, ``force`` as their limit and the
        solver gains; TORQUE joints get ``torque``. A joint leaving a motor mode has its motor disabled.
        Entries a joint's mode does not use are not sent (they may be NaN).
        """
        key = mode.tobytes()
        if key != self._mode.tobytes():
            prev = self._mode
            leaving = (((prev == MOTOR_POSITION) | (prev == MOTOR_VELOCITY)) & (mode != prev)
                       & ((mode == TORQUE) | (mode == PASSIVE)))
            for i in np.flatnonzero(leaving.any(axis=1)).tolist():
                self._disable_motors([i], np.flatnonzero(leaving[i]).tolist())
            prev[:] = mode
        # per body the calls keep their order (position, velocity, torque); bodies do not affect each other
        plan = self._command_plan(mode, key)
        fixed = self._motor_arguments(plan, key, velocity, force, position_gain, velocity_gain)
        for (index, joints, handles), args in zip(plan[MOTOR_POSITION], fixed[MOTOR_POSITION]):
            for (w, b), tp, (tv, fmax, kp, kv) in zip(handles, position[index].tolist(), args):
                p.setJointMotorControlArray(b, joints, p.POSITION_CONTROL, targetPositions=tp, targetVelocities=tv,
                                            forces=fmax, positionGains=kp, velocityGains=kv, physicsClientId=w.cid)
        for (_, joints, handles), args in zip(plan[MOTOR_VELOCITY], fixed[MOTOR_VELOCITY]):
            for (w, b), (tv, fmax, kv) in zip(handles, args):
                p.setJointMotorControlArray(b, joints, p.VELOCITY_CONTROL, targetVelocities=tv, forces=fmax,
                                            velocityGains=kv, physicsClientId=w.cid)
        for index, joints, handles in plan[TORQUE]:
            for (w, b), tq in zip(handles, torque[index].tolist()):
                p.setJointMotorControlArray(b, joints, p.TORQUE_CONTROL, forces=tq, physicsClientId=w.cid)

    def _motor_arguments(self, plan: dict[int, list[_Commands]], key: bytes, velocity: np.ndarray, force: np.ndarray,
                         position_gain: np.ndarray, velocity_gain: np.ndarray
                         ) -> dict[int, list[list[tuple[list[float], ...]]]]:
        """Per motor command group, each environment's argument lists other than the position targets.

        Position motors get ``(velocity targets, forces, position gains, velocity gains)``, velocity motors
        ``(velocity targets, forces, velocity gains)``. These rarely change from step to step, so the lists
        are cached until the modes or one of these arrays change.
        """
        fixed_key = (key, velocity.tobytes(), force.tobytes(), position_gain.tobytes(), velocity_gain.tobytes())
        if fixed_key != self._fixed_key:
            self._fixed = {
                MOTOR_POSITION: [list(zip(velocity[ix].tolist(), force[ix].tolist(), position_gain[ix].tolist(),
                                          velocity_gain[ix].tolist())) for ix, _, _ in plan[MOTOR_POSITION]],
                MOTOR_VELOCITY: [list(zip(velocity[ix].tolist(), force[ix].tolist(), velocity_gain[ix].tolist()))
                                 for ix, _, _ in plan[MOTOR_VELOCITY]],
            }
            self._fixed_key = fixed_key
        return self._fixed

    def _command_plan(self, mode: np.ndarray, key: bytes) -> dict[int, list[_Commands]]:
        """The commands of ``mode``: per control mode, one entry per group of environments sharing a mode row.

        Cached until ``mode`` changes, so a step with unchanged modes does no per-environment index work.
        """
        if key != self._plan_key:
            groups: dict[bytes, list[int]] = {}
            for i, row in enumerate(mode):
                groups.setdefault(row.tobytes(), []).append(i)
            plan: dict[int, list[_Commands]] = {MOTOR_POSITION: [], MOTOR_VELOCITY: [], TORQUE: []}
            for envs in groups.values():
                row = mode[envs[0]]
                for kind, commands in plan.items():
                    cols = np.flatnonzero(row == kind)
                    if not cols.size:
                        continue
                    if len(envs) == self.num_envs:
                        contiguous = cols[-1] - cols[0] + 1 == cols.size
                        index = (slice(None), slice(int(cols[0]), int(cols[-1]) + 1) if contiguous else cols)
                    else:
                        index = np.ix_(envs, cols)
                    joints = [self.joint_indices[j] for j in cols.tolist()]
                    commands.append((index, joints, [self.handles[i] for i in envs]))
            self._plan = plan
            self._plan_key = key
        return self._plan

    def cancel_gravity(self) -> None:
        """Apply, for this step, an upward force of m·g at every link's centre of mass."""
        for w, b in self.handles:
            g = np.asarray(w.gravity)
            pos, _ = p.getBasePositionAndOrientation(b, physicsClientId=w.cid)
            p.applyExternalForce(b, -1, (-w.mass(b, -1) * g).tolist(), pos, p.WORLD_FRAME, physicsClientId=w.cid)
            for link in range(self.num_links):
                com = p.getLinkState(b, link, computeForwardKinematics=1, physicsClientId=w.cid)[0]
                p.applyExternalForce(b, link, (-w.mass(b, link) * g).tolist(), com, p.WORLD_FRAME,
                                     physicsClientId=w.cid)

    # -- dynamics queries --------------------------------------------------------------------------
    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(bodies), 6, num_joints) of the bodies' link-frame origins, world axes.

        Rows are ``[vx, vy, vz, wx, wy, wz]``; only the joint columns are returned (a floating base's six
        base columns are dropped). The root body has a zero Jacobian.

        PyBullet's ``calculateJacobian`` takes the point relative to the link (URDF) frame and answers in the
        axes of the base's centre-of-mass frame, so the result is rotated into world axes here.
        """
        n = len(self.joints)
        out = np.zeros((self.num_envs, len(bodies), 6, n))
        zeros = self._zeros
        for i, (w, b) in enumerate(self.handles):
            qi = q[i].tolist()
            _, base_orn = p.getBasePositionAndOrientation(b, physicsClientId=w.cid)
            rot = np.asarray(p.getMatrixFromQuaternion(base_orn)).reshape(3, 3)
            for k, body in enumerate(bodies):
                if body == 0:
                    continue
                lin, ang = p.calculateJacobian(b, body - 1, [0.0, 0.0, 0.0], qi, zeros, zeros, physicsClientId=w.cid)
                out[i, k, :3] = rot @ np.asarray(lin)[:, -n:]
                out[i, k, 3:] = rot @ np.asarray(ang)[:, -n:]
        return out

    def mass_matrices(self, q: np.ndarray) -> np.ndarray:
        """Joint-space mass matrices (num_envs, num_joints, num_joints)."""
        n = len(self.joints)
        out = np.empty((self.num_envs, n, n))
        for i, (w, b) in enumerate(self.handles):
            m = np.asarray(p.calculateMassMatrix(b, q[i].tolist(), physicsClientId=w.cid))
            out[i] = m[-n:, -n:]
        return out

    def gravity_torques(self, q: np.ndarray) -> np.ndarray:
        """Joint efforts that hold the robot still against gravity at ``q`` (num_envs, num_joints).

        Computed as ``-sum(m_l * J_l^T g)`` over the links' centre-of-mass Jacobians, with gravity in the axes
        of the base's current orientation: PyBullet's ``calculateInverseDynamics`` ignores the orientation of
        a fixed base and refuses a floating base given joint positions only.
        """
        n = len(self.joints)
        out = np.zeros((self.num_envs, n))
        zeros = self._zeros
        for i, (w, b) in enumerate(self.handles):
            qi = q[i].tolist()
            _, base_orn = p.getBasePositionAndOrientation(b, physicsClientId=w.cid)
            rot = np.asarray(p.getMatrixFromQuaternion(base_orn)).reshape(3, 3)
            g_base = rot.T @ np.asarray(w.gravity)
            for link in range(self.num_links):
                mass = w.mass(b, link)
                if mass == 0.0:
                    continue
                lin, _ = p.calculateJacobian(b, link, self._com_points[link], qi, zeros, zeros, physicsClientId=w.cid)
                out[i] -= mass * (np.asarray(lin)[:, -n:].T @ g_base)
        return out

    # -- model edits ---------------------------------------------------------------------------------
    def scale_masses(self, factor: float) -> None:
        """Multiply every link mass by ``factor``."""
        for w, b in self.handles:
            for link in range(-1, self.num_links):
                w.set_dynamics(b, link, mass=w.mass(b, link) * factor)

    def set_link_dynamics(self, link: int, **kwargs: float | tuple[float, float] | None) -> None:
        """Change dynamics of one link (PyBullet index; -1 is the root) in every copy."""
        for w, b in self.handles:
            w.set_dynamics(b, link, **kwargs)

    def disable_collisions(self) -> None:
        """Make every copy collide with nothing."""
        for w, b in self.handles:
            w.disable_collisions(b)

    def add_gear(self, joint_a: int, joint_b: int, ratio: float, erp: float, max_force: float) -> None:
        """Couple two joints (indices into ``joints``) in every copy with a gear constraint."""
        for w, b in self.handles:
            w.add_gear(b, self.joint_indices[joint_a], self.joint_indices[joint_b], ratio, erp, max_force)

    def contact_counts(self, other: RigidBatch, links: Sequence[int] | None) -> np.ndarray:
        """Contact points with ``other`` per environment: (num_envs,) or (num_envs, len(links))."""
        if links is None:
            return np.array([other.contact_count(i, self) for i in range(self.num_envs)])
        return np.array([[other.contact_count(i, self, link) for link in links] for i in range(self.num_envs)])

