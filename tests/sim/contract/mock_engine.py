"""A kinematic mock of the engine Protocols (:mod:`simulo.engine.base`), numpy only, for the contract suite.

It is registered as engine ``"mock"`` by the suite's conftest. What it simulates, per joint and step ``dt``:

* a position motor reaches its target in one step (``qd = (target - q) / dt``);
* a velocity motor holds its target velocity; a torque accelerates a unit inertia; a passive joint coasts;
* a floating base and every rigid body move with their velocities; gravity is ignored (``gravity_torques``
  is zero, ``cancel_gravity`` does nothing; ``set_gravity`` is recorded per environment); nothing collides
  (every contact count is zero);
* an external force accelerates a rigid body by F/m for one step (a floating base by the summed force over the
  summed mass); a torque changes nothing; a switched-off body stands still;
* masses, surfaces, centres of mass, scales and armatures are recorded per copy;
* a gear coupling copies the driving joint (``q_b = -q_a / ratio``);
* bodies follow the URDF's kinematic tree exactly (root link, then each joint's child in document order);
  body velocities and Jacobians are central differences of that forward kinematics;
* the mass matrix is the identity scaled by ``scale_masses``; motor efforts are reported as zero;
  ``render`` draws nothing (a black image).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np

from simulo.authoring.urdf import UrdfJoint, check_urdf
from simulo.engine.base import CameraFrames, ControlMode, EnvIds, JointInfo, RayHits, RigidBatch
from simulo.errors import AssetError, SimuloValueError
from simulo.math.batched import normalize_quat, pose_mul, quat_conjugate, quat_mul
from simulo.math.scalar import quat_from_rpy

_H = 1e-6  # finite-difference step


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    return np.array([np.cos(angle / 2), *(np.sin(angle / 2) * axis)])


def _integrate(pose: np.ndarray, lin: np.ndarray, ang: np.ndarray, dt: float) -> np.ndarray:
    """Poses (N, 7) moved for ``dt`` by world-frame velocities (N, 3) each."""
    out = pose.copy()
    out[:, :3] += lin * dt
    omega = np.concatenate([np.zeros((len(pose), 1)), ang], axis=1)
    out[:, 3:] = normalize_quat(pose[:, 3:] + 0.5 * dt * quat_mul(omega, pose[:, 3:]))
    return out


class MockRigidBatch:
    """Rigid bodies that move with their velocities."""

    def __init__(self, poses: np.ndarray, dt: float, mass: float) -> None:
        n = len(poses)
        self.pose = poses.astype(float).copy()
        self._dt = dt
        self.velocity = np.zeros((n, 6))
        self.friction: float | None = None
        self.mass = np.full(n, float(mass))
        self.surface = np.full((n, 2), np.nan)  # friction, restitution
        self.com = np.zeros((n, 3))
        self.scale = np.ones((n, 3))
        self.enabled = np.ones(n, dtype=bool)
        self._push = np.zeros((n, 3))

    @property
    def num_envs(self) -> int:
        return len(self.pose)

    def read(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray) -> None:
        pose[:] = self.pose
        lin_vel[:] = self.velocity[:, :3]
        ang_vel[:] = self.velocity[:, 3:]

    def write_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        self.pose[np.asarray(env_ids, dtype=int)] = poses

    def write_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        self.velocity[np.asarray(env_ids, dtype=int)] = velocities

    def set_friction(self, friction: float) -> None:
        self.friction = friction

    def masses(self) -> np.ndarray:
        return np.where(self.enabled, self.mass, 0.0)

    def set_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        self.mass[np.asarray(env_ids, dtype=int)] = masses

    def set_surface(self, env_ids: EnvIds, friction: np.ndarray | None, restitution: np.ndarray | None) -> None:
        ids = np.asarray(env_ids, dtype=int)
        for col, values in enumerate((friction, restitution)):
            if values is not None:
                self.surface[ids, col] = values

    def set_center_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        self.com[np.asarray(env_ids, dtype=int)] = offsets

    def set_scale(self, env_ids: EnvIds, scales: np.ndarray) -> None:
        self.scale[np.asarray(env_ids, dtype=int)] = scales

    def apply_force(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        self._push[np.asarray(env_ids, dtype=int)] += forces

    def set_enabled(self, env_ids: EnvIds, enabled: bool) -> None:
        ids = np.asarray(env_ids, dtype=int)
        self.enabled[ids] = enabled
        self.velocity[ids] = 0.0

    def step(self) -> None:
        moving = self.enabled & (self.mass > 0)
        self.velocity[moving, :3] += self._push[moving] / self.mass[moving, None] * self._dt
        self._push[:] = 0.0
        self.velocity[~moving] = 0.0
        self.pose = _integrate(self.pose, self.velocity[:, :3], self.velocity[:, 3:], self._dt)


class MockArticulationBatch:
    """Kinematic copies of a URDF model."""

    def __init__(self, path: Path, poses: np.ndarray, fixed_base: bool, scale: float, dt: float) -> None:
        model = check_urdf(Path(path).read_text(), source=str(path))
        bad = [j.name for j in model.joints if j.type in ("floating", "planar")]
        if bad:
            raise AssetError(f"joints {bad} are floating or planar; the mock engine drives revolute, continuous, "
                             "prismatic and fixed joints only")
        self._all_joints: list[UrdfJoint] = list(model.joints)
        self._movable = [k for k, j in enumerate(self._all_joints) if j.type != "fixed"]
        self._joints = [self._info(self._all_joints[k]) for k in self._movable]
        self._body_names = [model.root_link] + [j.child for j in self._all_joints]
        self._body_of = {name: k for k, name in enumerate(self._body_names)}
        self._origins = [np.array([*(np.array(j.origin_xyz) * scale), *quat_from_rpy(*j.origin_rpy)])
                         for j in self._all_joints]
        self._axes = [np.array(j.axis, dtype=float) / np.linalg.norm(j.axis) for j in self._all_joints]
        self._fixed_base = fixed_base
        self._dt = dt
        n, j = len(poses), len(self._joints)
        self.base = poses.astype(float).copy()
        self.base_vel = np.zeros((n, 6))
        self.q = np.zeros((n, j))
        self.qd = np.zeros((n, j))
        self.mode = np.zeros((n, j), dtype=np.int8)
        self.position = np.zeros((n, j))
        self.velocity = np.zeros((n, j))
        self.torque = np.zeros((n, j))
        self.mass_scale = 1.0
        self.friction: dict[int, float] = {}
        self.joint_properties: dict[int, dict[str, object]] = {}
        self.collisions = True
        self.gears: list[tuple[int, int, float]] = []
        b = len(self._body_names)
        self.masses = np.ones((n, b))
        self.surface = np.full((n, b, 2), np.nan)  # friction, restitution
        self.com = np.zeros((n, b, 3))
        self.armature = np.zeros((n, j))
        self._push = np.zeros((n, 3))

    @staticmethod
    def _info(joint: UrdfJoint) -> JointInfo:
        kind = "prismatic" if joint.type == "prismatic" else "revolute"
        lim = joint.limits
        if lim is None:  # continuous: unlimited, no effort limit
            return JointInfo(joint.name, kind, joint.child, 0.0, -1.0, 0.0, 0.0)
        return JointInfo(joint.name, kind, joint.child, lim.lower, lim.upper, lim.effort, lim.velocity)

    # -- Protocol metadata ------------------------------------------------------------------------
    @property
    def num_envs(self) -> int:
        return len(self.base)

    @property
    def fixed_base(self) -> bool:
        return self._fixed_base

    @property
    def reports_all_efforts(self) -> bool:
        return False

    @property
    def joints(self) -> list[JointInfo]:
        return self._joints

    @property
    def body_names(self) -> list[str]:
        return self._body_names

    # -- kinematics -------------------------------------------------------------------------------
    def _forward(self, base: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Body poses (B, 7) of one copy at root pose ``base`` (7,) and joint positions ``q`` (J,)."""
        out = np.empty((len(self._body_names), 7))
        out[0] = base
        col = {k: c for c, k in enumerate(self._movable)}
        for k, joint in enumerate(self._all_joints):
            frame = pose_mul(out[self._body_of[joint.parent]], self._origins[k])
            motion = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
            if k in col and joint.type == "prismatic":
                motion[:3] = self._axes[k] * q[col[k]]
            elif k in col:
                motion[3:] = _axis_angle(self._axes[k], q[col[k]])
            out[k + 1] = pose_mul(frame, motion)
        return out

    @staticmethod
    def _twist(before: np.ndarray, after: np.ndarray, h: float) -> np.ndarray:
        """Velocities (..., 6) that move poses ``before`` to ``after`` in time ``h``."""
        dq = quat_mul(after[..., 3:], quat_conjugate(before[..., 3:]))
        dq = dq * np.sign(dq[..., :1] + (dq[..., :1] == 0))
        return np.concatenate([(after[..., :3] - before[..., :3]) / h, 2.0 * dq[..., 1:] / h], axis=-1)

    # -- state ------------------------------------------------------------------------------------
    def read_joints(self, q: np.ndarray, qd: np.ndarray, effort: np.ndarray) -> None:
        q[:] = self.q
        qd[:] = self.qd
        effort[:] = 0.0

    def read_base(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
                  env_ids: EnvIds | None = None) -> None:
        rows = np.arange(self.num_envs) if env_ids is None else np.asarray(env_ids, dtype=int)
        pose[rows] = self.base[rows]
        lin_vel[rows] = self.base_vel[rows, :3]
        ang_vel[rows] = self.base_vel[rows, 3:]

    def body_pose_reader(self, body: int) -> Callable[[], np.ndarray]:
        return lambda: self.read_bodies([body], range(self.num_envs), velocity=False)[0][:, 0]

    def read_bodies(self, bodies: Sequence[int], env_ids: EnvIds, velocity: bool
                    ) -> tuple[np.ndarray, np.ndarray | None]:
        ids = list(env_ids)
        poses = np.array([self._forward(self.base[i], self.q[i])[list(bodies)] for i in ids])
        if not velocity:
            return poses, None
        vels = np.empty((len(ids), len(bodies), 6))
        for k, i in enumerate(ids):
            ahead = _integrate(self.base[i:i + 1], self.base_vel[i:i + 1, :3], self.base_vel[i:i + 1, 3:], _H)[0]
            behind = _integrate(self.base[i:i + 1], self.base_vel[i:i + 1, :3], self.base_vel[i:i + 1, 3:], -_H)[0]
            after = self._forward(ahead, self.q[i] + _H * self.qd[i])[list(bodies)]
            before = self._forward(behind, self.q[i] - _H * self.qd[i])[list(bodies)]
            vels[k] = self._twist(before, after, 2 * _H)
        return poses, vels

    # -- writes -----------------------------------------------------------------------------------
    def write_joints(self, env_ids: EnvIds, q: np.ndarray, qd: np.ndarray) -> None:
        ids = np.asarray(list(env_ids), dtype=int)
        self.q[ids] = q
        self.qd[ids] = qd

    def write_base_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        self.base[np.asarray(list(env_ids), dtype=int)] = poses

    def write_base_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        self.base_vel[np.asarray(list(env_ids), dtype=int)] = velocities

    def apply(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
              position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        self.mode[:] = mode
        self.position[:] = np.where(mode == ControlMode.POSITION_MOTOR, position, 0.0)
        self.velocity[:] = velocity
        self.torque[:] = torque

    def apply_positions(self, position: np.ndarray) -> None:
        self.position[:] = np.where(self.mode == ControlMode.POSITION_MOTOR, position, 0.0)

    def apply_efforts(self, effort: np.ndarray) -> None:
        self.torque[:] = effort

    def cancel_gravity(self) -> None:
        """Gravity is ignored anyway."""

    def step(self) -> None:
        dt = self._dt
        mode = self.mode
        qd = np.where(mode == ControlMode.TORQUE, self.qd + self.torque * dt, self.qd)
        qd = np.where(mode == ControlMode.VELOCITY_MOTOR, self.velocity, qd)
        qd = np.where(mode == ControlMode.POSITION_MOTOR, (self.position - self.q) / dt, qd)
        self.q = np.where(mode == ControlMode.POSITION_MOTOR, self.position, self.q + qd * dt)
        push, self._push = self._push, np.zeros_like(self._push)
        self.qd = qd
        for a, b, ratio in self.gears:
            self.q[:, b] = -self.q[:, a] / ratio
            self.qd[:, b] = -self.qd[:, a] / ratio
        if not self._fixed_base:
            total = self.masses.sum(axis=1, keepdims=True)
            self.base_vel[:, :3] += np.divide(push, total, out=np.zeros_like(push), where=total > 0) * dt
            self.base = _integrate(self.base, self.base_vel[:, :3], self.base_vel[:, 3:], dt)

    # -- dynamics ---------------------------------------------------------------------------------
    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        n = len(self._joints)
        out = np.zeros((self.num_envs, len(bodies), 6, n))
        for i in range(self.num_envs):
            for j in range(n):
                step = np.zeros(n)
                step[j] = _H
                after = self._forward(self.base[i], q[i] + step)[list(bodies)]
                before = self._forward(self.base[i], q[i] - step)[list(bodies)]
                out[i, :, :, j] = self._twist(before, after, 2 * _H)
        return out

    def mass_matrices(self, q: np.ndarray) -> np.ndarray:
        return np.tile(np.eye(len(self._joints)) * self.mass_scale, (self.num_envs, 1, 1))

    def gravity_torques(self, q: np.ndarray) -> np.ndarray:
        return np.zeros((self.num_envs, len(self._joints)))

    # -- model edits ------------------------------------------------------------------------------
    def scale_masses(self, factor: float) -> None:
        self.mass_scale *= factor
        self.masses *= factor

    def link_masses(self) -> np.ndarray:
        return self.masses.copy()

    def set_link_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        self.masses[np.asarray(env_ids, dtype=int)] = masses

    def set_link_surface(self, env_ids: EnvIds, friction: np.ndarray | None,
                         restitution: np.ndarray | None) -> None:
        ids = np.asarray(env_ids, dtype=int)
        for col, values in enumerate((friction, restitution)):
            if values is not None:
                self.surface[ids, :, col] = values

    def set_link_centers_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        self.com[np.asarray(env_ids, dtype=int)] = offsets

    def set_joint_armature(self, env_ids: EnvIds, armature: np.ndarray) -> None:
        self.armature[np.asarray(env_ids, dtype=int)] = armature

    def apply_link_forces(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        self._push[np.asarray(env_ids, dtype=int)] += forces.sum(axis=1)

    def set_joint_properties(self, joint: int, *, damping: float | None = None, max_velocity: float | None = None,
                             limits: tuple[float, float] | None = None) -> None:
        self.joint_properties[joint] = {"damping": damping, "max_velocity": max_velocity, "limits": limits}

    def set_body_friction(self, body: int, friction: float) -> None:
        self.friction[body] = friction

    def disable_collisions(self) -> None:
        self.collisions = False

    def add_gear(self, joint_a: int, joint_b: int, ratio: float, erp: float, max_force: float) -> None:
        self.gears.append((joint_a, joint_b, ratio))

    def contact_forces(self, bodies: Sequence[int], other: RigidBatch | None) -> np.ndarray:
        raise NotImplementedError("the mock engine measures no contact forces")

    def joint_wrenches(self, bodies: Sequence[int]) -> np.ndarray:
        raise NotImplementedError("the mock engine measures no joint wrenches")

    def contact_counts(self, other: RigidBatch, bodies: Sequence[int] | None) -> np.ndarray:
        if not isinstance(other, MockRigidBatch):
            raise SimuloValueError(f"contacts are counted against a mock rigid batch, got {type(other).__name__}")
        shape = (self.num_envs,) if bodies is None else (self.num_envs, len(bodies))
        return np.zeros(shape, dtype=np.int64)


class MockEngine:
    """A batch of kinematic worlds. Its bounds differ from PyBullet's, so tests can tell whose are used."""

    default_envs_per_world: ClassVar[int] = 4
    max_envs_per_world: ClassVar[int] = 8
    friction_rule: ClassVar[str] = "multiply"
    default_solver_iterations: ClassVar[int] = 50

    def __init__(self, num_envs: int, dt: float, gravity: Sequence[float], envs_per_world: int,
                 solver_iterations: int | None) -> None:
        if not 1 <= envs_per_world <= self.max_envs_per_world:
            raise SimuloValueError(f"envs_per_world must be between 1 and {self.max_envs_per_world}")
        self._num_envs = num_envs
        self.dt = dt
        self.envs_per_world = envs_per_world
        self.planes: list[tuple[float, float | None, float | None]] = []
        self.heightfields: list[tuple[np.ndarray, float, np.ndarray]] = []
        self._gravity = np.tile(np.asarray(gravity, dtype=float), (num_envs, 1))
        self.articulations: list[MockArticulationBatch] = []
        self.rigids: list[MockRigidBatch] = []
        self.closed = False

    @property
    def num_envs(self) -> int:
        return self._num_envs

    @property
    def num_worlds(self) -> int:
        return -(-self._num_envs // self.envs_per_world)

    def add_plane(self, height: float, friction: float | None, restitution: float | None,
                  contact: tuple[float, float] | None = None) -> None:
        self.planes.append((height, friction, restitution))

    def add_heightfield(self, heights: np.ndarray, cell_size: float, pose: np.ndarray, friction: float | None,
                        restitution: float | None) -> None:
        self.heightfields.append((heights.copy(), cell_size, pose.copy()))

    def gravity(self) -> np.ndarray:
        return self._gravity.copy()

    def set_gravity(self, env_ids: EnvIds, gravity: np.ndarray) -> None:
        self._gravity[np.asarray(env_ids, dtype=int)] = gravity

    def add_articulation(self, path: Path, poses: np.ndarray, fixed_base: bool, scale: float = 1.0,
                         self_collision: bool = False, inertia_from_file: bool = True,
                         drawn_envs: int | None = None) -> MockArticulationBatch:
        batch = MockArticulationBatch(path, poses, fixed_base, scale, self.dt)
        self.articulations.append(batch)
        return batch

    def add_rigid(self, kind: str, dims: Sequence[float], mass: float, poses: np.ndarray,
                  color: Sequence[float] | None = None) -> MockRigidBatch:
        batch = MockRigidBatch(poses, self.dt, mass)
        if mass > 0:
            self.rigids.append(batch)  # static shapes never move
        return batch

    def render(self, env: int, width: int, height: int, eye: Sequence[float], target: Sequence[float]) -> np.ndarray:
        return np.zeros((height, width, 3), dtype=np.uint8)

    def render_cameras(self, env_ids: EnvIds, poses: np.ndarray, width: int, height: int, fov_y_deg: float,
                       near: float, far: float, *, depth: bool, labels: bool, isolate: bool) -> CameraFrames:
        raise NotImplementedError("the mock engine draws no camera images")

    def cast_rays(self, env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, terrain_only: bool) -> RayHits:
        raise NotImplementedError("the mock engine casts no rays")

    def step(self) -> None:
        for batch in (*self.articulations, *self.rigids):
            batch.step()

    def close(self) -> None:
        self.closed = True
