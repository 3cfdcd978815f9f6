"""``simulo.Robot``: an articulated robot, batched over ``num_envs`` environments.

A Robot is authored (constructed and added to a :class:`~simulo.sim.scene.Scene`) without any
engine; a :class:`~simulo.sim.simulation.Simulation` attaches it. From then on:

* joints are the URDF's revolute, continuous and prismatic joints in document order (fixed joints are
  not joints); ``get_joint_names()`` gives that order, and every ``(num_envs, num_joints)`` column uses it;
* bodies are the root link followed by every other link in document order;
* poses are ``[x, y, z, qw, qx, qy, qz]`` of a link's URDF frame, in metres and radians;
* position/velocity/effort targets are buffered and sent once, right before the next physics step;
  they persist until changed, and ``reset(env_ids)`` clears them for those environments only;
* ``set_joint_state``/``set_root_pose``/``set_root_velocity`` teleport immediately, and the state read
  afterwards is current.

Joint drives (see :mod:`simulo.authoring.config`): joints in an ``actuator_gains`` group with an
:class:`ActuatorGainsConfig` are driven by an explicit PD law computed every physics step; every other
joint uses the engine's built-in motor (:class:`MotorGainsConfig`, PyBullet ``POSITION_CONTROL``) when it
has a position or velocity target, takes its effort target as a raw torque otherwise, and is passive
(free) while it has no target at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.authoring.asset import Asset
from simulo.authoring.config import ActuatorGainsConfig, ArticulationConfig, JointConfig, MotorGainsConfig
from simulo.authoring.pose import Pose
from simulo.errors import AssetError, NameNotFoundError, NotAttachedError, SimuloValueError
from simulo.sim.tensors import Tensors, index_array, plural

if TYPE_CHECKING:
    from simulo.engine.pybullet.batch import ArticulationBatch

#: Largest number of distinct ``joint_ids`` lists a robot remembers as validated.
_COLS_CACHE_SIZE = 64


#: Force limit of the built-in motor on a joint whose URDF gives no effort limit, N or N·m.
UNLIMITED_MOTOR_FORCE = 1000.0


def match_names(pattern: str, names: list[str], what: str) -> list[int]:
    """Indices of ``names`` equal to ``pattern`` or fully matching it as a regex, in ``names`` order.

    Raises:
        NameNotFoundError: Nothing matches (the message lists the available names).
        SimuloValueError: The pattern is not a string or not a valid regex.
    """
    if not isinstance(pattern, str):
        raise SimuloValueError(f"{what} name pattern must be a string, got {pattern!r}")
    if pattern in names:
        return [names.index(pattern)]
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise SimuloValueError(f"{what} name pattern {pattern!r} is not a valid regex: {exc}") from exc
    hits = [i for i, n in enumerate(names) if rx.fullmatch(n)]
    if not hits:
        raise NameNotFoundError(f"no {what} matches {pattern!r}; available {plural(what)}: {names}")
    return hits


def quat_rotate_inverse(q_wxyz: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v`` (N, 3) by the inverse of unit quaternions ``q`` (N, 4), w first."""
    w = q_wxyz[:, :1]
    u = -q_wxyz[:, 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of w-first quaternions (N, 4)."""
    aw, ax, ay, az = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    bw, bx, by, bz = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=1)


class RobotState:
    """``robot.state``: the eight live state members. The accessor itself is always available."""

    def __init__(self, robot: "Robot") -> None:
        self._robot = robot

    @property
    def pose(self) -> Any:
        """Base pose in the world frame (num_envs, 7): ``[x, y, z, qw, qx, qy, qz]``. Live buffer."""
        rt = self._robot._rt_or_raise("state.pose")
        return rt.tensors.out(rt.pose)

    @property
    def linear_velocity(self) -> Any:
        """Base linear velocity in the world frame (num_envs, 3), m/s. Live buffer."""
        rt = self._robot._rt_or_raise("state.linear_velocity")
        return rt.tensors.out(rt.lin_vel)

    @property
    def angular_velocity(self) -> Any:
        """Base angular velocity in the world frame (num_envs, 3), rad/s. Live buffer."""
        rt = self._robot._rt_or_raise("state.angular_velocity")
        return rt.tensors.out(rt.ang_vel)

    @property
    def linear_velocity_in_base_frame(self) -> Any:
        """Base linear velocity in the base frame (num_envs, 3); a new tensor on every read."""
        rt = self._robot._rt_or_raise("state.linear_velocity_in_base_frame")
        return rt.tensors.out(quat_rotate_inverse(rt.pose[:, 3:], rt.lin_vel))

    @property
    def angular_velocity_in_base_frame(self) -> Any:
        """Base angular velocity in the base frame (num_envs, 3); a new tensor on every read."""
        rt = self._robot._rt_or_raise("state.angular_velocity_in_base_frame")
        return rt.tensors.out(quat_rotate_inverse(rt.pose[:, 3:], rt.ang_vel))

    @property
    def joint_positions(self) -> Any:
        """Joint positions (num_envs, num_joints), rad or m. Live buffer."""
        rt = self._robot._rt_or_raise("state.joint_positions")
        return rt.tensors.out(rt.q)

    @property
    def joint_velocities(self) -> Any:
        """Joint velocities (num_envs, num_joints), rad/s or m/s. Live buffer."""
        rt = self._robot._rt_or_raise("state.joint_velocities")
        return rt.tensors.out(rt.qd)

    @property
    def joint_efforts(self) -> Any:
        """Efforts the drives applied in the last step (num_envs, num_joints), N·m or N. Live buffer."""
        rt = self._robot._rt_or_raise("state.joint_efforts")
        return rt.tensors.out(rt.effort)


@dataclass
class _Runtime:
    """Everything a robot holds once attached (engine handle, buffers, targets, drive tables)."""

    batch: "ArticulationBatch"
    tensors: Tensors
    joint_names: list[str]
    body_names: list[str]
    joint_kinds: list[str]
    fixed_base: bool
    default_pose: np.ndarray
    default_q: np.ndarray
    default_qd: np.ndarray
    effort_limit: np.ndarray  # (J,)
    is_pd: np.ndarray  # (J,) bool
    kp: np.ndarray
    kd: np.ndarray
    motor_pos_gain: np.ndarray  # (N, J)
    motor_vel_gain: np.ndarray
    motor_force: np.ndarray  # (N, J) limit of the built-in motor
    pose: np.ndarray = field(init=False)
    lin_vel: np.ndarray = field(init=False)
    ang_vel: np.ndarray = field(init=False)
    q: np.ndarray = field(init=False)
    qd: np.ndarray = field(init=False)
    effort: np.ndarray = field(init=False)
    pos_t: np.ndarray = field(init=False)
    vel_t: np.ndarray = field(init=False)
    eff_t: np.ndarray = field(init=False)
    torque: np.ndarray = field(init=False)
    mode: np.ndarray = field(init=False)
    #: validated ``joint_ids`` lists (as tuples of ints) -> their column arrays (read-only)
    cols_cache: dict[tuple[int, ...], np.ndarray] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        n, j = self.default_q.shape
        self.pose = self.default_pose.copy()
        self.lin_vel = np.zeros((n, 3))
        self.ang_vel = np.zeros((n, 3))
        self.q = np.zeros((n, j))
        self.qd = np.zeros((n, j))
        self.effort = np.zeros((n, j))
        self.pos_t = np.full((n, j), np.nan)
        self.vel_t = np.full((n, j), np.nan)
        self.eff_t = np.full((n, j), np.nan)
        self.torque = np.zeros((n, j))
        self.mode = np.zeros((n, j), dtype=np.int8)
        self.base_motor_force = self.motor_force.copy()
        self.any_pd = bool(self.is_pd.any())
        # PyBullet keeps motor commands between steps, but applies a torque for one step only: a flush can be
        # skipped while no target changed and no joint is torque-driven (see Robot._flush)
        self.commands_changed = True
        self.torque_active = False

    @property
    def num_envs(self) -> int:
        return self.default_q.shape[0]

    @property
    def num_joints(self) -> int:
        return self.default_q.shape[1]


class Robot:
    """A multi-joint articulated robot, batched over the scene's environments.

    Args:
        asset: The robot model (:class:`simulo.Asset`, URDF).
        initial_pose: Spawn pose relative to each environment's origin. The identity pose keeps a
            catalog model's own spawn pose (e.g. the cartpole's height); any other pose replaces it.
        collision_enabled: Whether the robot collides with anything.
        visual_only: Spawn without physics: fixed in place, massless, colliding with nothing.
        mass_scale: Factor applied to every link mass.
        scale: Spawn scale; PyBullet supports uniform scale only (all three factors equal).
        articulation: Articulation settings (fixed root, self-collision, default joint state, solver).
        joint_config: Per-joint overrides of limits, effort and velocity limits and damping.
        disable_gravity: Cancel gravity on this robot (an upward m·g force on every link each step).
        actuator_gains: Actuator groups: joint-name regex (or ``"all_joints"``) -> ``ActuatorGainsConfig``
            (PD drive) or ``MotorGainsConfig`` (engine motor). Later groups override earlier ones.

    Raises:
        SimuloValueError: An argument has the wrong type or value.
    """

    def __init__(
        self,
        asset: Asset,
        initial_pose: Pose | None = None,
        collision_enabled: bool = True,
        visual_only: bool = False,
        mass_scale: float = 1.0,
        scale: tuple[float, float, float] | float = (1.0, 1.0, 1.0),
        articulation: ArticulationConfig | None = None,
        joint_config: list[JointConfig] | None = None,
        disable_gravity: bool = False,
        actuator_gains: dict[str, ActuatorGainsConfig | MotorGainsConfig] | None = None,
    ) -> None:
        if not isinstance(asset, Asset):
            raise AssetError(f"Robot.asset must be a simulo.Asset, got {type(asset).__name__}: {asset!r}")
        if initial_pose is not None and not isinstance(initial_pose, Pose):
            raise SimuloValueError(f"Robot.initial_pose must be a simulo.Pose, got {initial_pose!r}")
        if not isinstance(mass_scale, (int, float)) or not mass_scale > 0 or mass_scale == float("inf"):
            raise SimuloValueError(f"Robot.mass_scale must be a finite number > 0, got {mass_scale!r}")
        try:
            scale_t = (float(scale),) * 3 if isinstance(scale, (int, float)) else tuple(float(s) for s in scale)
        except (TypeError, ValueError) as exc:
            raise SimuloValueError(f"Robot.scale must be three finite factors > 0, got {scale!r}") from exc
        if len(scale_t) != 3 or not all(0 < s < float("inf") for s in scale_t):
            raise SimuloValueError(f"Robot.scale must be three finite factors > 0, got {scale!r}")
        if len(set(scale_t)) != 1:
            raise SimuloValueError(f"Robot.scale {scale!r} is not uniform; the PyBullet engine scales models "
                                   "uniformly only (give three equal factors)")
        for key, gains in (actuator_gains or {}).items():
            if not isinstance(gains, (ActuatorGainsConfig, MotorGainsConfig)):
                raise SimuloValueError(f"Robot.actuator_gains[{key!r}] must be ActuatorGainsConfig or "
                                       f"MotorGainsConfig, got {gains!r}")
        self.asset = asset
        self.initial_pose = initial_pose if initial_pose is not None else Pose.identity()
        self.collision_enabled = bool(collision_enabled)
        self.visual_only = bool(visual_only)
        self.mass_scale = float(mass_scale)
        self.scale = scale_t
        self.articulation = articulation if articulation is not None else ArticulationConfig()
        self.joint_config = list(joint_config) if joint_config is not None else None
        self.disable_gravity = bool(disable_gravity)
        self.actuator_gains = dict(actuator_gains) if actuator_gains is not None else None
        self._name: str | None = None
        self._path: str | None = None
        self._state = RobotState(self)
        self._sensors: list[Any] = []
        self._actuators: list[Any] = []
        self._rt: _Runtime | None = None

    # -- identity ----------------------------------------------------------------------------------
    @property
    def name(self) -> str | None:
        """Robot name, set by the scene when the robot is added."""
        return self._name

    @property
    def path(self) -> str | None:
        """Scene path, set by the scene when the robot is added."""
        return self._path

    def _set_scene_path(self, path: str) -> None:
        self._path = path
        self._name = path.rstrip("/").rsplit("/", 1)[-1]

    def _rt_or_raise(self, member: str) -> _Runtime:
        if self._rt is None:
            raise NotAttachedError(f"Robot.{member} is not available until the simulation has attached the robot "
                                   "(from on_start onward / after simulo.Simulation(scene) is built)")
        return self._rt

    @property
    def internals(self) -> Any:
        """Engine-specific escape hatch (the PyBullet ``ArticulationBatch``); unstable, no promises."""
        return self._rt_or_raise("internals").batch

    @property
    def state(self) -> RobotState:
        """The grouped live state; the same object on every access."""
        return self._state

    @property
    def default_joint_positions(self) -> Any:
        """Joint positions ``reset`` writes (num_envs, num_joints); a new tensor on every read."""
        rt = self._rt_or_raise("default_joint_positions")
        return rt.tensors.out(rt.default_q.copy())

    @property
    def default_joint_velocities(self) -> Any:
        """Joint velocities ``reset`` writes (num_envs, num_joints); a new tensor on every read."""
        rt = self._rt_or_raise("default_joint_velocities")
        return rt.tensors.out(rt.default_qd.copy())

    @property
    def default_pose(self) -> Any:
        """Base pose ``reset`` writes, world frame with each environment's origin (num_envs, 7); a copy."""
        rt = self._rt_or_raise("default_pose")
        return rt.tensors.out(rt.default_pose.copy())

    # -- composition ---------------------------------------------------------------------------------
    @property
    def sensors(self) -> list[Any]:
        """Sensors attached with :meth:`add_sensor`."""
        return [s for s, _ in self._sensors]

    @property
    def actuators(self) -> list[Any]:
        """Actuators attached with :meth:`add_actuator`."""
        return [a for a, _ in self._actuators]

    def add_sensor(self, sensor: Any, attach_to: str) -> "Robot":
        """Attach a sensor to the bodies matching ``attach_to``; returns the robot for chaining."""
        self._check_attachable(sensor, attach_to, "sensor")
        self._sensors.append((sensor, attach_to))
        if self._path is not None:
            sensor.path = f"{self._path}/{sensor.name}"
        if self._rt is not None:
            sensor._bind(self, attach_to)
        return self

    def add_actuator(self, actuator: Any, attach_to: str) -> "Robot":
        """Attach an actuator (e.g. :class:`simulo.ParallelGripper`); returns the robot for chaining."""
        self._check_attachable(actuator, attach_to, "actuator")
        if self._rt is not None:
            raise SimuloValueError("actuators must be added before the simulation is built; "
                                   f"{actuator!r} was added to an attached robot")
        self._actuators.append((actuator, attach_to))
        return self

    def _check_attachable(self, item: Any, attach_to: str, what: str) -> None:
        if not hasattr(item, "_bind"):
            raise SimuloValueError(f"{item!r} is not a simulo {what} (it has no _bind hook)")
        if not isinstance(attach_to, str) or not attach_to:
            raise SimuloValueError(f"attach_to must be a body name or pattern, got {attach_to!r}")
        if any(s is item for s, _ in (*self._sensors, *self._actuators)):
            raise SimuloValueError(f"{what} {item!r} is already attached to this robot")

    # -- queries -------------------------------------------------------------------------------------
    @property
    def num_joints(self) -> int:
        """Number of joints (revolute, continuous, prismatic)."""
        return self._rt_or_raise("num_joints").num_joints

    @property
    def is_fixed_base(self) -> bool:
        """Whether the root link is bolted to the world."""
        return self._rt_or_raise("is_fixed_base").fixed_base

    def get_joint_names(self) -> list[str]:
        """Joint names in column order."""
        return list(self._rt_or_raise("get_joint_names").joint_names)

    def get_body_names(self) -> list[str]:
        """Body (link) names in body-index order: the root link first."""
        return list(self._rt_or_raise("get_body_names").body_names)

    def find_joints(self, name_pattern: str) -> list[int]:
        """Indices of the joints whose names equal ``name_pattern`` or fully match it as a regex."""
        return match_names(name_pattern, self._rt_or_raise("find_joints").joint_names, "joint")

    def find_bodies(self, name_pattern: str) -> list[int]:
        """Indices of the bodies whose names equal ``name_pattern`` or fully match it as a regex."""
        return match_names(name_pattern, self._rt_or_raise("find_bodies").body_names, "body")

    def _body_index(self, body_name: str) -> int:
        rt = self._rt_or_raise("get_body_pose")
        if not isinstance(body_name, str) or body_name not in rt.body_names:
            raise NameNotFoundError(f"no body named {body_name!r}; available bodies: {rt.body_names}")
        return rt.body_names.index(body_name)

    def _joint_cols(self, joint_ids: Any, rt: _Runtime) -> np.ndarray:
        if type(joint_ids) is list and all(type(j) is int for j in joint_ids):  # the common case, cached
            key = tuple(joint_ids)
            cols = rt.cols_cache.get(key)
            if cols is None:
                cols = index_array(rt.tensors, joint_ids, rt.num_joints, "joint_ids", "joint")
                cols.setflags(write=False)
                if len(rt.cols_cache) < _COLS_CACHE_SIZE:
                    rt.cols_cache[key] = cols
            return cols
        return index_array(rt.tensors, joint_ids, rt.num_joints, "joint_ids", "joint")

    # -- dynamics queries ------------------------------------------------------------------------------
    def get_jacobians(self, body_indices: list[int] | None = None) -> Any:
        """Jacobians (num_envs, num_bodies, 6, num_joints) of the bodies' frame origins, world axes.

        Rows are ``[vx, vy, vz, wx, wy, wz]``; columns are the joints (a floating base's own six degrees of
        freedom are not included).
        """
        rt = self._rt_or_raise("get_jacobians")
        bodies = index_array(rt.tensors, body_indices, len(rt.body_names), "body_indices", "body")
        return rt.tensors.out(rt.batch.jacobians(bodies.tolist(), rt.q))

    def get_mass_matrix(self, joint_ids: list[int] | None = None) -> Any:
        """Joint-space mass matrix (num_envs, n, n) for the given joints (all by default)."""
        rt = self._rt_or_raise("get_mass_matrix")
        cols = self._joint_cols(joint_ids, rt)
        return rt.tensors.out(rt.batch.mass_matrices(rt.q)[:, cols][:, :, cols])

    def get_gravity_compensation(self, joint_ids: list[int] | None = None) -> Any:
        """Joint efforts that cancel gravity at the current positions (num_envs, n)."""
        rt = self._rt_or_raise("get_gravity_compensation")
        cols = self._joint_cols(joint_ids, rt)
        return rt.tensors.out(rt.batch.gravity_torques(rt.q)[:, cols])

    # -- body reads ------------------------------------------------------------------------------------
    def _body_state(self, body_name: str, velocity: bool) -> tuple[_Runtime, np.ndarray, np.ndarray | None]:
        """World pose (num_envs, 7) and, if asked, velocity (num_envs, 6) of a body, as numpy arrays."""
        k = self._body_index(body_name)
        rt = self._rt
        assert rt is not None
        if k == 0:
            vel = np.concatenate([rt.lin_vel, rt.ang_vel], axis=1) if velocity else None
            return rt, rt.pose.copy(), vel
        poses, vels = rt.batch.read_links([k - 1], range(rt.num_envs), velocity=velocity)
        return rt, poses[:, 0], None if vels is None else vels[:, 0]

    def get_body_pose(self, body_name: str) -> Any:
        """World pose of a body's frame (num_envs, 7)."""
        rt, pose, _ = self._body_state(body_name, velocity=False)
        return rt.tensors.out(pose)

    def get_body_velocity(self, body_name: str) -> Any:
        """World velocity ``[vx, vy, vz, wx, wy, wz]`` of a body's frame origin (num_envs, 6)."""
        rt, _, vel = self._body_state(body_name, velocity=True)
        return rt.tensors.out(vel)

    def get_body_pose_in_base_frame(self, body_name: str) -> tuple[Any, Any]:
        """``(position (num_envs, 3), quaternion (num_envs, 4))`` of a body relative to the base frame."""
        rt, world, _ = self._body_state(body_name, velocity=False)
        base_q = rt.pose[:, 3:]
        pos = quat_rotate_inverse(base_q, world[:, :3] - rt.pose[:, :3])
        quat = quat_mul(base_q * np.array([1.0, -1.0, -1.0, -1.0]), world[:, 3:])
        return rt.tensors.out(pos), rt.tensors.out(quat)

    def get_body_velocity_in_base_frame(self, body_name: str) -> tuple[Any, Any]:
        """``(linear, angular)`` velocity of a body relative to the base, in base axes, each (num_envs, 3)."""
        rt, pose, vel = self._body_state(body_name, velocity=True)
        assert vel is not None
        lin_rel = vel[:, :3] - rt.lin_vel - np.cross(rt.ang_vel, pose[:, :3] - rt.pose[:, :3])
        ang_rel = vel[:, 3:] - rt.ang_vel
        base_q = rt.pose[:, 3:]
        return rt.tensors.out(quat_rotate_inverse(base_q, lin_rel)), rt.tensors.out(quat_rotate_inverse(base_q, ang_rel))

    def get_joint_state(self) -> tuple[Any, Any]:
        """``(joint_positions, joint_velocities)``, each (num_envs, num_joints) (live buffers)."""
        return self._state.joint_positions, self._state.joint_velocities

    def get_root_pose(self) -> Any:
        """Base pose in the world frame (num_envs, 7) (live buffer)."""
        return self._state.pose

    def get_root_velocity(self) -> Any:
        """Base velocity ``[vx, vy, vz, wx, wy, wz]`` in the world frame (num_envs, 6); a new tensor."""
        rt = self._rt_or_raise("get_root_velocity")
        return rt.tensors.out(np.concatenate([rt.lin_vel, rt.ang_vel], axis=1))

    # -- teleports -------------------------------------------------------------------------------------
    def set_joint_state(self, positions: Any, velocities: Any = None, env_ids: Any = None) -> None:
        """Write joint positions (and velocities, zero if not given) directly: a teleport, not control.

        Args:
            positions: (len(env_ids), num_joints) in rad or m.
            velocities: Same shape, or None for zero.
            env_ids: Environments to write; None for all.
        """
        rt = self._rt_or_raise("set_joint_state")
        ids = rt.tensors.env_ids(env_ids, rt.num_envs)
        shape = (len(ids), rt.num_joints)
        q = rt.tensors.floats(positions, shape, "positions")
        qd = np.zeros(shape) if velocities is None else rt.tensors.floats(velocities, shape, "velocities")
        rt.batch.write_joints(ids, q, qd)
        rt.q[ids] = q
        rt.qd[ids] = qd

    def set_root_pose(self, pose: Any, env_ids: Any = None) -> None:
        """Teleport the base to world-frame poses (len(env_ids), 7); quaternions are normalised.

        Raises:
            SimuloValueError: A quaternion has zero length. On a fixed base the pose moves the anchor.
        """
        rt = self._rt_or_raise("set_root_pose")
        ids = rt.tensors.env_ids(env_ids, rt.num_envs)
        poses = _normalised_poses(rt.tensors.floats(pose, (len(ids), 7), "pose"))
        rt.batch.write_base_pose(ids, poses)
        rt.batch.read_base(rt.pose, rt.lin_vel, rt.ang_vel, ids.tolist())
        self._refresh_joints()

    def set_root_velocity(self, velocity: Any, env_ids: Any = None) -> None:
        """Set base velocities ``[vx, vy, vz, wx, wy, wz]`` (len(env_ids), 6), world frame."""
        rt = self._rt_or_raise("set_root_velocity")
        ids = rt.tensors.env_ids(env_ids, rt.num_envs)
        vel = rt.tensors.floats(velocity, (len(ids), 6), "velocity")
        if rt.fixed_base and np.any(vel):
            raise SimuloValueError(f"robot {self._name!r} has a fixed base; its root velocity must stay zero")
        rt.batch.write_base_velocity(ids, vel)
        rt.batch.read_base(rt.pose, rt.lin_vel, rt.ang_vel, ids.tolist())

    # -- targets -----------------------------------------------------------------------------------------
    def _targets(self, member: str, values: Any, joint_ids: Any, env_ids: Any, name: str
                 ) -> tuple[_Runtime, np.ndarray, np.ndarray, np.ndarray]:
        rt = self._rt_or_raise(member)
        ids = rt.tensors.env_ids(env_ids, rt.num_envs)
        cols = self._joint_cols(joint_ids, rt)
        vals = rt.tensors.floats(values, (len(ids), len(cols)), name)
        return rt, ids, cols, vals

    def set_joint_position_target(self, positions: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set position targets (len(env_ids), len(joint_ids)); sent before the next physics step."""
        rt, ids, cols, vals = self._targets("set_joint_position_target", positions, joint_ids, env_ids, "positions")
        rt.pos_t[_block(ids, cols, env_ids is None)] = vals
        rt.commands_changed = True

    def set_joint_velocity_target(self, velocities: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set velocity targets (len(env_ids), len(joint_ids)); sent before the next physics step."""
        rt, ids, cols, vals = self._targets("set_joint_velocity_target", velocities, joint_ids, env_ids, "velocities")
        rt.vel_t[_block(ids, cols, env_ids is None)] = vals
        rt.commands_changed = True

    def set_joint_effort_target(self, efforts: Any, joint_ids: Any = None) -> None:
        """Set effort targets (num_envs, len(joint_ids)) in N·m or N for every environment.

        Efforts beyond a joint's effort limit are applied at the limit (the actuator saturates);
        ``state.joint_efforts`` reports what was applied.
        """
        rt, ids, cols, vals = self._targets("set_joint_effort_target", efforts, joint_ids, None, "efforts")
        rt.eff_t[_block(ids, cols, True)] = vals
        rt.commands_changed = True

    def set_body_friction(self, name_pattern: str, friction: float) -> None:
        """Set the lateral (Coulomb) friction coefficient of the matching bodies in every environment.

        Raises:
            NameNotFoundError: No body matches. SimuloValueError: friction is not a finite number >= 0.
        """
        rt = self._rt_or_raise("set_body_friction")
        bodies = self.find_bodies(name_pattern)
        if isinstance(friction, bool) or not isinstance(friction, (int, float)) or not np.isfinite(friction) \
                or friction < 0:
            raise SimuloValueError(f"friction must be a finite number >= 0, got {friction!r}")
        for b in bodies:
            rt.batch.set_link_dynamics(b - 1, friction=float(friction))

    def _set_motor_force(self, forces: np.ndarray, cols: np.ndarray, env_ids: np.ndarray) -> None:
        """Override the built-in motor's force limit for some joints (used by gripper actuators)."""
        rt = self._rt_or_raise("actuator command")
        rt.motor_force[np.ix_(env_ids, cols)] = forces
        rt.commands_changed = True

    # -- reset ---------------------------------------------------------------------------------------------
    def reset(self, env_ids: Any = None) -> None:
        """Write the default pose and joint state and clear every target, for ``env_ids`` only."""
        rt = self._rt_or_raise("reset")
        ids = rt.tensors.env_ids(env_ids, rt.num_envs)
        rt.batch.write_base_pose(ids, rt.default_pose[ids])
        rt.batch.write_base_velocity(ids, np.zeros((len(ids), 6)))
        rt.batch.write_joints(ids, rt.default_q[ids], rt.default_qd[ids])
        rt.pos_t[ids] = np.nan
        rt.vel_t[ids] = np.nan
        rt.eff_t[ids] = np.nan
        rt.motor_force[ids] = rt.base_motor_force[ids]
        rt.commands_changed = True
        rt.q[ids] = rt.default_q[ids]
        rt.qd[ids] = rt.default_qd[ids]
        rt.effort[ids] = 0.0
        rt.batch.read_base(rt.pose, rt.lin_vel, rt.ang_vel, ids.tolist())

    def reset_to_default(self) -> None:
        """Reset every environment to the default state."""
        self.reset(None)

    def update(self, dt: float) -> None:
        """Refresh the state buffers from the simulation (the runtime calls this after every step)."""
        rt = self._rt_or_raise("update")
        self._refresh_joints()
        if not rt.fixed_base:
            rt.batch.read_base(rt.pose, rt.lin_vel, rt.ang_vel)
        for sensor, _ in self._sensors:
            sensor.update(dt)

    def _refresh_joints(self) -> None:
        rt = self._rt
        assert rt is not None
        rt.batch.read_joints(rt.q, rt.qd, rt.effort)
        np.copyto(rt.effort, rt.torque, where=rt.mode == 3)
        np.copyto(rt.effort, 0.0, where=rt.mode == 0)

    # -- flush -----------------------------------------------------------------------------------------------
    def _flush(self) -> None:
        """Turn the buffered targets into this step's engine commands (called once per physics step)."""
        rt = self._rt
        assert rt is not None
        if not (rt.commands_changed or rt.torque_active or self.disable_gravity):
            return  # the engine's motors still hold exactly these commands
        pos_set = rt.pos_t == rt.pos_t  # False where NaN (no target)
        vel_set = rt.vel_t == rt.vel_t
        eff_set = rt.eff_t == rt.eff_t
        vel_t = np.where(vel_set, rt.vel_t, 0.0)
        torques = rt.any_pd or bool(eff_set.any())
        # engine motor joints: a position target wins over a velocity target, which wins over an effort
        mode = rt.mode
        mode.fill(0)
        if torques:
            mode[eff_set] = 3
        mode[vel_set] = 2
        mode[pos_set] = 1
        if torques:
            torque = np.where(eff_set, rt.eff_t, 0.0)
            if rt.any_pd:  # PD joints: an explicit torque while any target is set, passive otherwise
                pd = rt.is_pd
                pos_t = np.where(pos_set, rt.pos_t, 0.0)
                mode[:, pd] = 3 * (pos_set | vel_set | eff_set)[:, pd]
                pd_torque = rt.kp * (pos_t - rt.q) * pos_set + rt.kd * (vel_t - rt.qd) * (pos_set | vel_set) + torque
                torque = np.where(pd[None, :], pd_torque, torque)
            np.clip(torque, -rt.effort_limit, rt.effort_limit, out=torque)
            rt.torque[:] = torque
        else:  # no effort target and no PD joint: no torque anywhere
            rt.torque.fill(0.0)
        # position targets are sent only where set (mode 1), so the NaN of unset ones never reaches the engine
        rt.batch.apply(mode, rt.pos_t, vel_t, rt.motor_force, rt.motor_pos_gain, rt.motor_vel_gain, rt.torque)
        rt.commands_changed = False
        rt.torque_active = bool((mode == 3).any())
        if self.disable_gravity:
            rt.batch.cancel_gravity()

    # -- attach ----------------------------------------------------------------------------------------------
    def _attach(self, batch: "ArticulationBatch", tensors: Tensors, default_pose: np.ndarray) -> None:
        """Bind the robot to its engine batch (called by the Simulation)."""
        n = batch.num_envs
        joints = batch.joints
        names = [j.name for j in joints]
        j_count = len(names)
        art = self.articulation
        default_q = np.zeros((n, j_count))
        default_qd = np.zeros((n, j_count))
        if art.default_joint_positions is not None:
            default_q[:] = _vector(art.default_joint_positions, j_count, "articulation.default_joint_positions", names)
        if art.default_joint_velocities is not None:
            default_qd[:] = _vector(art.default_joint_velocities, j_count, "articulation.default_joint_velocities", names)
        # A joint without an effort limit in the URDF (e.g. continuous) is unlimited for raw efforts; its
        # built-in motor, which needs a finite force, gets UNLIMITED_MOTOR_FORCE.
        effort_limit = np.array([j.max_force if j.max_force > 0 else np.inf for j in joints], dtype=float)
        for jc in self.joint_config or []:
            if jc.name not in names:
                raise NameNotFoundError(f"joint_config names joint {jc.name!r}; available joints: {names}")
            col = names.index(jc.name)
            if jc.effort_limit is not None:
                effort_limit[col] = jc.effort_limit
            batch.set_link_dynamics(joints[col].index, joint_damping=jc.damping, max_joint_velocity=jc.velocity_limit,
                                    joint_limits=jc.limits)
        is_pd = np.zeros(j_count, dtype=bool)
        kp = np.zeros(j_count)
        kd = np.zeros(j_count)
        pos_gain = np.full(j_count, 0.1)
        vel_gain = np.ones(j_count)
        force = np.where(np.isfinite(effort_limit), effort_limit, UNLIMITED_MOTOR_FORCE)
        for key, gains in (self.actuator_gains or {}).items():
            cols = list(range(j_count)) if key == "all_joints" else match_names(key, names, "joint")
            for c in cols:
                if isinstance(gains, ActuatorGainsConfig):
                    is_pd[c], kp[c], kd[c] = True, gains.stiffness, gains.damping
                else:
                    is_pd[c], pos_gain[c], vel_gain[c] = False, gains.position_gain, gains.velocity_gain
                    force[c] = gains.max_force if gains.max_force is not None else min(effort_limit[c], UNLIMITED_MOTOR_FORCE)
        self._rt = _Runtime(
            batch=batch, tensors=tensors, joint_names=names, body_names=list(batch.body_names),
            joint_kinds=[j.kind for j in joints], fixed_base=batch.fixed_base, default_pose=default_pose.copy(),
            default_q=default_q, default_qd=default_qd, effort_limit=effort_limit, is_pd=is_pd, kp=kp, kd=kd,
            motor_pos_gain=np.tile(pos_gain, (n, 1)), motor_vel_gain=np.tile(vel_gain, (n, 1)),
            motor_force=np.tile(force, (n, 1)))
        if self.mass_scale != 1.0:
            batch.scale_masses(self.mass_scale)
        if not self.collision_enabled or self.visual_only:
            batch.disable_collisions()
        if self.visual_only:
            batch.scale_masses(0.0)
        rt = self._rt
        rt.batch.write_joints(range(n), default_q, default_qd)
        rt.batch.read_base(rt.pose, rt.lin_vel, rt.ang_vel)
        self._refresh_joints()
        for actuator, attach_to in self._actuators:
            actuator._bind(self, attach_to)
        for sensor, attach_to in self._sensors:
            sensor._bind(self, attach_to)

    def _detach(self) -> None:
        self._rt = None

    def __repr__(self) -> str:
        return f"Robot(name={self._name!r}, asset={self.asset.name!r}, attached={self._rt is not None})"


def _block(ids: np.ndarray, cols: np.ndarray, all_envs: bool) -> Any:
    """Index of the ``ids`` x ``cols`` block of a (num_envs, num_joints) array (``ids`` is every env in order
    when ``all_envs``)."""
    return (slice(None), cols) if all_envs else np.ix_(ids, cols)


def _vector(values: Any, n: int, what: str, names: list[str]) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (n,) or not np.isfinite(arr).all():
        raise SimuloValueError(f"{what} must have one value per joint ({n}: {names}), each a finite number, "
                               f"got {values!r}")
    return arr


def _normalised_poses(poses: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(poses[:, 3:], axis=1)
    if (norms < 1e-9).any():
        bad = int(np.argmax(norms < 1e-9))
        raise SimuloValueError(f"pose row {bad} has a zero quaternion {poses[bad, 3:].tolist()}; expected [qw, qx, qy, qz] of unit length")
    out = poses.copy()
    off = np.abs(norms - 1.0) > 1e-12
    out[off, 3:] /= norms[off, None]
    return out
