"""One copy of an articulated robot per environment, on PyBullet.

Joints are the URDF's revolute, continuous and prismatic joints in document order; bodies are the root
link followed by every other link in document order. PyBullet numbers links depth-first over the kinematic
tree, which differs from the document order for a branching tree, so each joint column and body keeps its
PyBullet index here (:attr:`PyBulletArticulationBatch.joint_indices`, ``body_links``) and the column-indexed
dynamics queries (Jacobians, mass matrices, gravity torques) are permuted both ways. When the two orders agree
(every chain), nothing is permuted. Poses are ``[x, y, z, qw, qx, qy, qz]`` of the URDF link frame: PyBullet
reports the base at its centre of mass, so the base's inertial offset is applied here both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from simulo.engine.base import EnvIds, JointInfo, RigidBatch
from simulo.engine.pybullet.articulation_sensing import ArticulationSensing
from simulo.engine.pybullet.commands import JointCommander
from simulo.engine.pybullet.dynamics import ArticulationDynamics
from simulo.engine.pybullet.rigid import PyBulletRigidBatch
from simulo.engine.pybullet.world import Handle, PyBulletWorld, Vec3, invert_transform, multiply_transforms
from simulo.errors import AssetError, SimuloValueError


def _set_mass(world: PyBulletWorld, body: int, link: int, mass: float) -> None:
    """Set a link's mass and scale its inertia with it (the same shape, denser or lighter).

    PyBullet recomputes a link's inertia from its collision shape whenever its mass changes, which would drop the
    URDF's inertia (:func:`~simulo.engine.pybullet.urdf_file.file_inertias`); the scaled diagonal is set in the
    same call instead.
    """
    old = world.mass(body, link)
    if old > 0.0 and mass > 0.0:
        ratio = mass / old
        ixx, iyy, izz = world.inertia_diagonal(body, link)
        world.set_dynamics(body, link, mass=mass, inertia_diagonal=(ixx * ratio, iyy * ratio, izz * ratio))
    else:
        world.set_dynamics(body, link, mass=mass)


def _fill(out: np.ndarray, flat: Sequence[float]) -> None:
    """Write the values ``flat`` (row-major, ``out.size`` of them) into ``out`` in place.

    No view or array is kept: a reference to a runtime buffer would read as a caller holding it
    (:mod:`simulo.sim.published`).
    """
    if out.flags.c_contiguous:  # reshaping a C-contiguous array gives a view: no intermediate array
        out.reshape(-1)[:] = flat
    else:
        out[...] = np.array(flat).reshape(out.shape)


def _in_order(names: Sequence[str], order: Sequence[str]) -> list[int]:
    """Positions of ``names`` sorted by their place in ``order`` (names missing from it last, as they come)."""
    rank = {name: k for k, name in enumerate(order)}
    return sorted(range(len(names)), key=lambda k: (rank.get(names[k], len(rank)), k))


class PyBulletArticulationBatch:
    """One copy of an articulated robot per environment (implements :class:`simulo.engine.base.ArticulationBatch`).

    The batch reads and writes state and edits the model itself, and hands the rest to three collaborators, each
    given the handles and the PyBullet indices it needs: joint commands (:meth:`apply`) to a
    :class:`~simulo.engine.pybullet.commands.JointCommander`, contact forces and joint wrenches to an
    :class:`~simulo.engine.pybullet.articulation_sensing.ArticulationSensing`, and the dynamics queries (Jacobians,
    mass matrices, gravity torques) to an :class:`~simulo.engine.pybullet.dynamics.ArticulationDynamics`.

    Args:
        handles: ``(world, body id)`` of each environment's copy, in environment order.
        fixed_base: Whether the copies were loaded with a fixed base.
        order: Link names and joint names in the URDF's document order (see
            :func:`~simulo.engine.pybullet.urdf_file.document_order`); joint columns and bodies follow it. ``None``
            keeps PyBullet's order.

    Raises:
        AssetError: The model has spherical or planar joints.
    """

    def __init__(self, handles: list[Handle], fixed_base: bool,
                 order: tuple[Sequence[str], Sequence[str]] | None = None) -> None:
        self.handles = handles
        self._fixed_base = fixed_base
        world, body = handles[0]
        all_joints = world.joints(body)
        bad = [j.name for j in all_joints if j.kind not in ("revolute", "prismatic", "fixed")]
        if bad:
            raise AssetError(f"joints {bad} are spherical or planar; the PyBullet engine drives revolute, "
                             "continuous, prismatic and fixed joints only")
        pb_joints = [k for k, j in enumerate(all_joints) if j.kind != "fixed"]  # PyBullet joint index per DOF
        links = list(range(len(all_joints)))  # PyBullet link index of each non-root body
        if order is not None:
            doc_links, doc_joints = order
            pb_joints = [pb_joints[k] for k in _in_order([all_joints[j].name for j in pb_joints], doc_joints)]
            links = _in_order([j.link_name for j in all_joints], doc_links)
        #: PyBullet joint index of each joint column
        self.joint_indices = pb_joints
        #: PyBullet link index of each body (-1: the root)
        self.body_links = [-1, *links]
        self._joints = [all_joints[j] for j in self.joint_indices]
        #: each environment's joint-state read of the joint columns (the handles never change)
        self._joint_readers = [w.joint_state_reader(b, pb_joints) for w, b in handles]
        #: per PyBullet link index, each environment's read of that link's frame (made on first use)
        self._frame_readers: dict[int, list[Callable[[], list[float]]]] = {}
        self._body_names = [world.base_link_name(body)] + [all_joints[link].link_name for link in links]
        self.num_links = len(all_joints)
        off_pos, off_quat = world.inertial_offset(body, -1)
        self._base_off = np.array([*off_pos, *off_quat])
        self._base_off_identity = bool(np.array_equal(self._base_off, [0, 0, 0, 1, 0, 0, 0]))
        self._base_off_inverse = invert_transform(off_pos, off_quat)
        self._commands = JointCommander(handles, self.joint_indices)
        self._sensing = ArticulationSensing(handles, self.body_links)
        self._dynamics = ArticulationDynamics(handles, self.joint_indices, self.body_links)
        self._commands.disable_motors(range(len(handles)))

    @property
    def num_envs(self) -> int:
        """Number of copies."""
        return len(self.handles)

    @property
    def fixed_base(self) -> bool:
        """Whether the root link is bolted to the world."""
        return self._fixed_base

    @property
    def joints(self) -> list[JointInfo]:
        """The non-fixed joints, in column order."""
        return self._joints

    @property
    def body_names(self) -> list[str]:
        """Body names: the root link, then every other link in the URDF's document order."""
        return self._body_names

    @property
    def mode(self) -> np.ndarray:
        """Each joint's current control mode (num_envs, num_joints), :class:`~simulo.engine.base.ControlMode`
        values."""
        return self._commands.mode

    # -- commands ------------------------------------------------------------------------------------
    @property
    def reports_all_efforts(self) -> bool:
        """See :attr:`simulo.engine.pybullet.commands.JointCommander.reports_all_efforts`."""
        return self._commands.reports_all_efforts

    def apply(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
              position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        """Send one step's commands; see :meth:`simulo.engine.base.ArticulationBatch.apply`."""
        self._commands.apply(mode, position, velocity, force, position_gain, velocity_gain, torque)

    def apply_positions(self, position: np.ndarray) -> None:
        """Send the last :meth:`apply`'s position motors again with new targets."""
        self._commands.apply_positions(position)

    def apply_efforts(self, effort: np.ndarray) -> None:
        """Send the last :meth:`apply`'s torques again with new values."""
        self._commands.apply_efforts(effort)

    def disable_motors(self, env_ids: Iterable[int], joints: list[int] | None = None) -> None:
        """Switch the motors of some joint columns (all when ``None``) off in ``env_ids``: passive joints."""
        self._commands.disable_motors(env_ids, joints)

    # -- sensing -------------------------------------------------------------------------------------
    def contact_forces(self, bodies: Sequence[int], other: RigidBatch | None) -> np.ndarray:
        """Net world-frame contact force on each body (num_envs, len(bodies), 3), from ``other`` or anything."""
        return self._sensing.contact_forces(bodies, other)

    def joint_wrenches(self, bodies: Sequence[int]) -> np.ndarray:
        """The parent-to-body joint wrench of each non-root body (num_envs, len(bodies), 6), body frame."""
        return self._sensing.joint_wrenches(bodies)

    # -- dynamics ------------------------------------------------------------------------------------
    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(bodies), 6, num_joints) of the bodies' link-frame origins, world axes."""
        return self._dynamics.jacobians(bodies, q)

    def mass_matrices(self, q: np.ndarray) -> np.ndarray:
        """Joint-space mass matrices (num_envs, num_joints, num_joints)."""
        return self._dynamics.mass_matrices(q)

    def gravity_torques(self, q: np.ndarray) -> np.ndarray:
        """Joint efforts that hold the robot still against gravity at ``q`` (num_envs, num_joints)."""
        return self._dynamics.gravity_torques(q)

    # -- state -------------------------------------------------------------------------------------
    def read_joints(self, q: np.ndarray, qd: np.ndarray, effort: np.ndarray) -> None:
        """Write joint positions, velocities and motor efforts of every copy into the arrays in place."""
        idx = self.joint_indices
        if not idx:
            return
        readers = self._joint_readers
        if len(readers) == 1:  # one environment: numpy's integer index takes its row's view in C
            pos, vel, _, eff = zip(*readers[0]())
            q[0], qd[0], effort[0] = pos, vel, eff
            return
        states: list[tuple[float, float, tuple[float, ...], float]] = []
        for read in readers:
            states += read()
        pos, vel, _, eff = zip(*states)  # flat sequences convert much faster than nested ones
        _fill(q, pos)
        _fill(qd, vel)
        _fill(effort, eff)

    def read_base(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
                  env_ids: EnvIds | None = None) -> None:
        """Write the root link's frame pose and the velocity of its origin into the arrays in place."""
        rows = list(range(self.num_envs) if env_ids is None else env_ids)
        com = np.empty((len(rows), 3))
        for k, i in enumerate(rows):
            w, b = self.handles[i]
            pos, quat = w.base_pose(b)
            lin, ang = w.base_velocity(b)
            com[k] = pos
            pose[i, 3:] = quat
            lin_vel[i] = lin
            ang_vel[i] = ang
        if self._base_off_identity:
            pose[rows, :3] = com
            return
        inv_pos, inv_quat = self._base_off_inverse
        for k, i in enumerate(rows):
            pos, quat = multiply_transforms(com[k].tolist(), pose[i, 3:], inv_pos, inv_quat)
            pose[i, :3] = pos
            pose[i, 3:] = quat
        r = pose[rows, :3] - com  # origin relative to the centre of mass
        lin_vel[rows] = lin_vel[rows] + np.cross(ang_vel[rows], r)

    def _frames(self, link: int) -> list[Callable[[], list[float]]]:
        """Each environment's read of PyBullet link ``link``'s frame (made on first use, then kept)."""
        frames = self._frame_readers.get(link)
        if frames is None:
            frames = self._frame_readers[link] = [w.link_frame_reader(b, link) for w, b in self.handles]
        return frames

    def body_pose_reader(self, body: int) -> Callable[[], np.ndarray]:
        """A call that reads one non-root body's frame pose in every environment (a new (num_envs, 7) array)."""
        frames = self._frames(self.body_links[body])
        if len(frames) == 1:
            frame = frames[0]
            return lambda: np.array((frame(),))
        return lambda: np.array([read() for read in frames])

    def read_bodies(self, bodies: Sequence[int], env_ids: EnvIds, velocity: bool
                    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Link-frame poses (E, L, 7) and, if asked, velocities of the link origins (E, L, 6) of non-root bodies."""
        links = [self.body_links[k] for k in bodies]
        if not velocity and len(links) == 1:  # one body (``get_body_pose``): a row per environment
            frames = self._frames(links[0])
            rows = [frames[i]() for i in env_ids]
            return np.array(rows, dtype=np.float64).reshape(len(rows), 1, 7), None
        if not velocity:
            flat: list[float] = []
            for i in env_ids:
                w, b = self.handles[i]
                flat += w.link_frames(b, links)
            return np.array(flat, dtype=np.float64).reshape(len(env_ids), len(links), 7), None
        poses = np.empty((len(env_ids), len(links), 7))
        vels = np.empty((len(env_ids), len(links), 6))
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            for m, (pos, quat, com, lin, ang_v) in enumerate(w.link_states(b, links)):
                poses[k, m, :3] = pos
                poses[k, m, 3:] = quat
                ang = np.asarray(ang_v)
                vels[k, m, :3] = np.asarray(lin) + np.cross(ang, np.subtract(pos, com))
                vels[k, m, 3:] = ang
        return poses, vels

    # -- writes ------------------------------------------------------------------------------------
    def write_joints(self, env_ids: EnvIds, q: np.ndarray, qd: np.ndarray) -> None:
        """Teleport joints of ``env_ids`` to ``q``/``qd`` (len(env_ids), num_joints)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            w.reset_joints(b, self.joint_indices, q[k].tolist(), qd[k].tolist())

    def write_base_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport root links of ``env_ids`` to link-frame ``poses`` (len(env_ids), 7)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            pos: Vec3 = poses[k, :3].tolist()
            quat: Vec3 = poses[k, 3:]
            if not self._base_off_identity:
                pos, quat = multiply_transforms(pos, quat, self._base_off[:3].tolist(), self._base_off[3:])
            w.reset_base_pose(b, pos, quat)

    def write_base_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set root velocities ``[vx, vy, vz, wx, wy, wz]`` (velocity of the link-frame origin)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            lin, ang = velocities[k, :3], velocities[k, 3:]
            if not self._base_off_identity:
                com_pos, com_quat = w.base_pose(b)
                origin, _ = multiply_transforms(com_pos, com_quat, *self._base_off_inverse)
                lin = lin + np.cross(ang, np.subtract(com_pos, origin))
            w.reset_base_velocity(b, lin.tolist(), ang.tolist())

    def cancel_gravity(self) -> None:
        """Apply, for this step, an upward force of m·g at every link's centre of mass."""
        for w, b in self.handles:
            w.cancel_gravity(b, self.num_links)

    # -- model edits ---------------------------------------------------------------------------------
    def scale_masses(self, factor: float) -> None:
        """Multiply every link mass by ``factor``."""
        self._dynamics.masses_changed()
        for w, b in self.handles:
            for link in range(-1, self.num_links):
                _set_mass(w, b, link, w.mass(b, link) * factor)

    def set_joint_properties(self, joint: int, *, damping: float | None = None, max_velocity: float | None = None,
                             limits: tuple[float, float] | None = None) -> None:
        """Override damping, velocity limit and position limits of joint column ``joint`` in every copy."""
        link = self.joint_indices[joint]
        for w, b in self.handles:
            w.set_dynamics(b, link, joint_damping=damping, max_joint_velocity=max_velocity, joint_limits=limits)

    def set_body_friction(self, body: int, friction: float) -> None:
        """Set the lateral friction of body ``body`` (0: the root) in every copy."""
        link = self.body_links[body]
        for w, b in self.handles:
            w.set_dynamics(b, link, friction=friction)

    def link_masses(self) -> np.ndarray:
        """Mass of every body (num_envs, B) in kg, as PyBullet reports it."""
        return np.array([[w.mass(b, link) for link in self.body_links] for w, b in self.handles])

    def set_link_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the body masses (len(env_ids), B) of the copies of ``env_ids``."""
        self._dynamics.masses_changed()
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            for body, link in enumerate(self.body_links):
                _set_mass(w, b, link, float(masses[k, body]))

    def set_link_surface(self, env_ids: EnvIds, friction: np.ndarray | None,
                         restitution: np.ndarray | None) -> None:
        """Set each body's lateral friction and/or restitution (len(env_ids), B): one contact material per link."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            for body, link in enumerate(self.body_links):
                w.set_dynamics(b, link, friction=None if friction is None else float(friction[k, body]),
                               restitution=None if restitution is None else float(restitution[k, body]))

    def set_link_centers_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        """Refused: PyBullet fixes a link's inertial frame when the URDF is loaded."""
        raise SimuloValueError("the PyBullet engine cannot move a loaded link's centre of mass (changeDynamics has "
                               "no centre-of-mass argument); set <inertial><origin> in the URDF instead")

    def set_joint_armature(self, env_ids: EnvIds, armature: np.ndarray) -> None:
        """Refused: PyBullet's multibody joints have no armature."""
        raise SimuloValueError(f"the PyBullet engine has no joint armature (asked for {armature.tolist()!r}); "
                               "add the rotor inertia to the child link's <inertial> in the URDF instead")

    def apply_link_forces(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the next step, push each body (world frame, forces at the centres of mass)."""
        for k, i in enumerate(env_ids):
            w, b = self.handles[i]
            for body, link in enumerate(self.body_links):
                if forces[k, body].any() or torques[k, body].any():
                    w.push(b, link, forces[k, body].tolist(), torques[k, body].tolist())

    def disable_collisions(self) -> None:
        """Make every copy collide with nothing."""
        for w, b in self.handles:
            w.disable_collisions(b)

    def add_gear(self, joint_a: int, joint_b: int, ratio: float, erp: float, max_force: float) -> None:
        """Couple two joints (columns) in every copy with a gear constraint."""
        for w, b in self.handles:
            w.add_gear(b, self.joint_indices[joint_a], self.joint_indices[joint_b], ratio, erp, max_force)

    def contact_counts(self, other: RigidBatch, bodies: Sequence[int] | None) -> np.ndarray:
        """Contact points with ``other`` per environment: (num_envs,) or (num_envs, len(bodies)).

        Raises:
            SimuloValueError: ``other`` does not come from the PyBullet engine.
        """
        if not isinstance(other, PyBulletRigidBatch):
            raise SimuloValueError(f"contacts are counted against a PyBullet rigid batch, got {type(other).__name__}")
        if bodies is None:
            return np.array([other.contact_count(i, b) for i, (_, b) in enumerate(self.handles)])
        links = [self.body_links[k] for k in bodies]
        return np.array([[other.contact_count(i, b, link) for link in links] for i, (_, b) in enumerate(self.handles)])
