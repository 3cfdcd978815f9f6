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

Joint drives (:mod:`simulo.sim.drives`; the laws are in :mod:`simulo.sim.actuators` and
:func:`~simulo.sim.robot_setup.build_drives` chooses them): joints in an ``actuator_gains`` group with an
:class:`ActuatorGainsConfig` are driven by a PD law solved implicitly every physics step
(:class:`~simulo.sim.actuators.ideal_pd.IdealPDDrive`); every other joint, by default, by the engine's own
motor (:class:`~simulo.sim.actuators.engine_motor.EngineMotorDrive`, :class:`MotorGainsConfig`; PyBullet's
``POSITION_CONTROL``) when it has a position or velocity target; it takes its effort target as a raw torque
otherwise, and is passive (free) while it has no target at all.

The state buffers live in :class:`~simulo.sim.robot_data.RobotData` (``robot.data``), which sensors and
actuators read; the writes on it are :mod:`simulo.sim.robot_commands`, which the robot's members of the same
names call once they have checked that a simulation has attached the robot. The ``runtime_*`` members are hooks
the scene and simulation call (:mod:`simulo.sim.hooks`).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from simulo._sdk_protocols import RobotBase
from simulo.authoring.asset import Asset
from simulo.authoring.config import ActuatorGainsConfig, ArticulationConfig, JointConfig, MotorGainsConfig
from simulo.authoring.pose import Pose
from simulo.checks import check_real, is_real
from simulo.engine.base import ArticulationBatch
from simulo.errors import AssetError, NotAttachedError, SimuloValueError
from simulo.sim import robot_commands
from simulo.sim.hooks import RobotAttachment, RobotSensor, SimulationSensor
from simulo.sim.names import match_names
from simulo.sim.robot_bodies import body_pose, body_pose_in_base, body_velocity, body_velocity_in_base
from simulo.sim.robot_data import EFFORT_TARGETS, POSITION_TARGETS, VELOCITY_TARGETS, RobotData
from simulo.sim.robot_internals import RobotInternals
from simulo.sim.robot_setup import make_robot_data
from simulo.sim.robot_state import RobotState
from simulo.sim.tensors import MAX_MAGNITUDE, Tensors, index_array


class Robot(RobotBase):
    """A multi-joint articulated robot, batched over the scene's environments.

    Args:
        asset: The robot model (:class:`simulo.Asset`, URDF).
        initial_pose: Spawn pose relative to each environment's origin. The identity pose keeps a
            catalog model's own spawn pose (e.g. the cartpole's height); any other pose replaces it.
        collision_enabled: Whether the robot collides with anything.
        visual_only: Spawn without physics: fixed in place, massless, colliding with nothing.
        mass_scale: Factor applied to every link mass.
        scale: Spawn scale; engines scale models uniformly only (all three factors equal).
        articulation: Articulation settings (fixed root, self-collision, default joint state, solver).
        joint_config: Per-joint overrides of limits, effort and velocity limits and damping.
        disable_gravity: Cancel gravity on this robot (an upward m·g force on every link each step).
        actuator_gains: Actuator groups: joint-name regex (or ``"all_joints"``) -> ``ActuatorGainsConfig``
            (PD drive) or ``MotorGainsConfig`` (engine motor). Later groups override earlier ones.

    Raises:
        SimuloValueError: An argument has the wrong type or value.
    """

    # Our frozen value types are shaped as the SDK's (tests/authoring/test_value_types_match_sdk.py), but are
    # not subclasses of its mutable dataclasses (nor Asset of its AssetSource), so these narrow its attributes.
    asset: Asset  # type: ignore[assignment]  # our catalog/URDF handle, not the SDK's AssetSource class
    initial_pose: Pose  # type: ignore[assignment]  # our Pose, not the SDK's class (same fields)
    articulation: ArticulationConfig  # type: ignore[assignment]  # ours, not the SDK's class (same fields)
    joint_config: list[JointConfig] | None  # type: ignore[assignment]  # ours, not the SDK's class (same fields)

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
        if check_real(mass_scale, "Robot.mass_scale", 0, low_open=True) > MAX_MAGNITUDE:
            raise SimuloValueError(f"Robot.mass_scale must be a finite number > 0 and <= {MAX_MAGNITUDE:g}, "
                                   f"got {mass_scale!r}")
        for flag, value in (("collision_enabled", collision_enabled), ("visual_only", visual_only),
                            ("disable_gravity", disable_gravity)):
            if not isinstance(value, (bool, np.bool_)):
                raise SimuloValueError(f"Robot.{flag} must be True or False, got {value!r}")
        factors = (scale,) * 3 if is_real(scale) else scale.tolist() if isinstance(scale, np.ndarray) else scale
        if (not isinstance(factors, (tuple, list)) or len(factors) != 3
                or not all(is_real(s, 0, MAX_MAGNITUDE, low_open=True) for s in factors)):
            raise SimuloValueError(f"Robot.scale must be three finite factors > 0, got {scale!r}")
        scale_t = (float(factors[0]), float(factors[1]), float(factors[2]))
        if len(set(scale_t)) != 1:
            raise SimuloValueError(f"Robot.scale {scale!r} is not uniform; engines scale models uniformly only "
                                   "(give three equal factors)")
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
        self._state = RobotState(self._data_or_raise)
        self._sensors: list[tuple[RobotSensor, str]] = []
        self._actuators: list[tuple[RobotAttachment, str]] = []
        #: the robot's data while a simulation has it attached (None before and after)
        self._data: RobotData | None = None
        self._internals: RobotInternals | None = None
        #: whether a simulation attached the robot and has been closed since
        self._closed = False

    def _data_or_raise(self, member: str) -> RobotData:
        """The robot's data, for the member named ``member``.

        Raises:
            NotAttachedError: No simulation has attached the robot, or its simulation was closed.
        """
        if self._data is None and self._closed:
            raise NotAttachedError(f"Robot.{member} is not available until the simulation has attached the robot: "
                                   f"the simulation of robot {self._name!r} was closed (build a new "
                                   "simulo.Simulation(scene) to use it again)")
        if self._data is None:
            raise NotAttachedError(f"Robot.{member} is not available until the simulation has attached the robot "
                                   "(from on_start onward / after simulo.Simulation(scene) is built)")
        return self._data

    # -- identity ----------------------------------------------------------------------------------
    @property
    def name(self) -> str | None:
        """Robot name, set by the scene when the robot is added."""
        return self._name

    @property
    def path(self) -> str | None:
        """Scene path, set by the scene when the robot is added."""
        return self._path

    @property
    def internals(self) -> Any:
        """Engine-specific escape hatch; unstable, no promises.

        The engine's articulation batch (:class:`~simulo.sim.robot_internals.RobotInternals` reads every
        attribute through to it), answering also the Isaac Lab default-state names the cloud's apps read
        from it: ``default_joint_pos``, ``default_joint_vel`` and ``default_root_state``.
        """
        self._data_or_raise("internals")
        assert self._internals is not None
        return self._internals

    @property
    def data(self) -> RobotData:
        """The robot's state buffers, targets and drive tables, for sensors and actuators (runtime API).

        Raises:
            NotAttachedError: No simulation has attached the robot.
        """
        return self._data_or_raise("data")

    @property
    def state(self) -> RobotState:
        """The grouped live state; the same object on every access."""
        return self._state

    @property
    def default_joint_positions(self) -> Any:
        """Joint positions ``reset`` writes (num_envs, num_joints); a new tensor on every read."""
        data = self._data_or_raise("default_joint_positions")
        return data.tensors.out(data.default_q.copy())

    @property
    def default_joint_velocities(self) -> Any:
        """Joint velocities ``reset`` writes (num_envs, num_joints); a new tensor on every read."""
        data = self._data_or_raise("default_joint_velocities")
        return data.tensors.out(data.default_qd.copy())

    @property
    def default_pose(self) -> Any:
        """Base pose ``reset`` writes, world frame with each environment's origin (num_envs, 7); a copy."""
        data = self._data_or_raise("default_pose")
        return data.tensors.out(data.default_pose.copy())

    # -- composition ---------------------------------------------------------------------------------
    @property
    def sensors(self) -> list[Any]:
        """Sensors attached with :meth:`add_sensor`."""
        return [s for s, _ in self._sensors]

    @property
    def actuators(self) -> list[Any]:
        """Actuators attached with :meth:`add_actuator`."""
        return [a for a, _ in self._actuators]

    def add_sensor(self, sensor: Any, attach_to: str) -> Robot:
        """Attach a sensor to the bodies matching ``attach_to``; returns the robot for chaining."""
        if not isinstance(sensor, RobotSensor):
            raise SimuloValueError(f"{sensor!r} is not a simulo sensor (it has no runtime_bind and update hooks)")
        self._check_attachable(sensor, attach_to, "sensor")
        # a simulo sensor needs the simulation's context, given at build
        if self._data is not None and isinstance(sensor, SimulationSensor):
            raise SimuloValueError(f"{type(sensor).__name__} sensors must be added before the simulation is built; "
                                   f"{sensor!r} was added to an attached robot")
        self._sensors.append((sensor, attach_to))
        if self._path is not None:
            sensor.path = f"{self._path}/{sensor.name or type(sensor).__name__}"
        if self._data is not None:
            sensor.runtime_bind(self._data, attach_to)
        return self

    def add_actuator(self, actuator: Any, attach_to: str) -> Robot:
        """Attach an actuator (e.g. :class:`simulo.ParallelGripper`); returns the robot for chaining."""
        item = self._check_attachable(actuator, attach_to, "actuator")
        if self._data is not None:
            raise SimuloValueError("actuators must be added before the simulation is built; "
                                   f"{actuator!r} was added to an attached robot")
        self._actuators.append((item, attach_to))
        return self

    def _check_attachable(self, item: Any, attach_to: str, what: str) -> RobotAttachment:
        if not isinstance(item, RobotAttachment):
            raise SimuloValueError(f"{item!r} is not a simulo {what} (it has no runtime_bind hook)")
        if not isinstance(attach_to, str) or not attach_to:
            raise SimuloValueError(f"attach_to must be a body name or pattern, got {attach_to!r}")
        if any(s is item for s, _ in (*self._sensors, *self._actuators)):
            raise SimuloValueError(f"{what} {item!r} is already attached to this robot")
        return item

    # -- queries -------------------------------------------------------------------------------------
    @property
    def num_joints(self) -> int:
        """Number of joints (revolute, continuous, prismatic)."""
        return self._data_or_raise("num_joints").num_joints

    @property
    def is_fixed_base(self) -> bool:
        """Whether the root link is bolted to the world."""
        return self._data_or_raise("is_fixed_base").fixed_base

    def get_joint_names(self) -> list[str]:
        """Joint names in column order."""
        return list(self._data_or_raise("get_joint_names").joint_names)

    def get_body_names(self) -> list[str]:
        """Body (link) names in body-index order: the root link first."""
        return list(self._data_or_raise("get_body_names").body_names)

    def find_joints(self, name_pattern: str) -> list[int]:
        """Indices of the joints whose names equal ``name_pattern`` or fully match it as a regex.

        Raises:
            NameNotFoundError: Nothing matches, or one ``|`` alternative of the pattern matches no joint.
        """
        return match_names(name_pattern, self._data_or_raise("find_joints").joint_names, "joint", every_branch=True)

    def find_bodies(self, name_pattern: str) -> list[int]:
        """Indices of the bodies whose names equal ``name_pattern`` or fully match it as a regex.

        Raises:
            NameNotFoundError: Nothing matches, or one ``|`` alternative of the pattern matches no body.
        """
        return match_names(name_pattern, self._data_or_raise("find_bodies").body_names, "body", every_branch=True)

    # -- dynamics queries ------------------------------------------------------------------------------
    def get_jacobians(self, body_indices: list[int] | None = None) -> Any:
        """Jacobians (num_envs, num_bodies, 6, num_joints) of the bodies' frame origins, world axes.

        Rows are ``[vx, vy, vz, wx, wy, wz]``; columns are the joints (a floating base's own six degrees of
        freedom are not included).
        """
        data = self._data_or_raise("get_jacobians")
        bodies = index_array(body_indices, len(data.body_names), "body_indices", "body")
        return data.tensors.out(data.batch.jacobians(bodies.tolist(), data.q))

    def get_mass_matrix(self, joint_ids: list[int] | None = None) -> Any:
        """Joint-space mass matrix (num_envs, n, n) for the given joints (all by default)."""
        data = self._data_or_raise("get_mass_matrix")
        cols = data.joint_cols(joint_ids)
        return data.tensors.out(data.batch.mass_matrices(data.q)[:, cols][:, :, cols])

    def get_gravity_compensation(self, joint_ids: list[int] | None = None) -> Any:
        """Joint efforts that cancel gravity at the current positions (num_envs, n)."""
        data = self._data_or_raise("get_gravity_compensation")
        cols = data.joint_cols(joint_ids)
        return data.tensors.out(data.batch.gravity_torques(data.q)[:, cols])

    # -- body reads (simulo.sim.robot_bodies) ------------------------------------------------------------
    def get_body_pose(self, body_name: str) -> Any:
        """World pose of a body's frame (num_envs, 7)."""
        data = self._data or self._data_or_raise("get_body_pose")
        return data.tensors.out(body_pose(data, data.body_index(body_name)))

    def get_body_velocity(self, body_name: str) -> Any:
        """World velocity ``[vx, vy, vz, wx, wy, wz]`` of a body's frame origin (num_envs, 6)."""
        data = self._data_or_raise("get_body_velocity")
        return data.tensors.out(body_velocity(data, data.body_index(body_name))[1])

    def get_body_pose_in_base_frame(self, body_name: str) -> tuple[Any, Any]:
        """``(position (num_envs, 3), quaternion (num_envs, 4))`` of a body relative to the base frame."""
        data = self._data_or_raise("get_body_pose_in_base_frame")
        pos, quat = body_pose_in_base(data, data.body_index(body_name))
        return data.tensors.out(pos), data.tensors.out(quat)

    def get_body_velocity_in_base_frame(self, body_name: str) -> tuple[Any, Any]:
        """``(linear, angular)`` velocity of a body relative to the base, in base axes, each (num_envs, 3)."""
        data = self._data_or_raise("get_body_velocity_in_base_frame")
        lin, ang = body_velocity_in_base(data, data.body_index(body_name))
        return data.tensors.out(lin), data.tensors.out(ang)

    def get_joint_state(self) -> tuple[Any, Any]:
        """``(joint_positions, joint_velocities)``, each (num_envs, num_joints) (live buffers)."""
        return self._state.joint_positions, self._state.joint_velocities

    def get_root_pose(self) -> Any:
        """Base pose in the world frame (num_envs, 7) (live buffer)."""
        return self._state.pose

    def get_root_velocity(self) -> Any:
        """Base velocity ``[vx, vy, vz, wx, wy, wz]`` in the world frame (num_envs, 6); a new tensor."""
        data = self._data_or_raise("get_root_velocity")
        return data.tensors.out(np.concatenate([data.lin_vel, data.ang_vel], axis=1))

    def update(self, dt: float) -> None:
        """Mark the state buffers stale after a step (the runtime calls this): the next read refreshes them."""
        (self._data or self._data_or_raise("update")).mark_stepped()
        for sensor, _ in self._sensors:
            sensor.update(dt)

    # -- teleports (simulo.sim.robot_commands) --------------------------------------------------------------
    def set_joint_state(self, positions: Any, velocities: Any = None, env_ids: Any = None) -> None:
        """Write joint positions (and velocities, zero if not given) directly: a teleport, not control.

        Args:
            positions: (len(env_ids), num_joints) in rad or m.
            velocities: Same shape, or None for zero.
            env_ids: Environments to write; None for all.
        """
        robot_commands.set_joint_state(self._data_or_raise("set_joint_state"), positions, velocities, env_ids)

    def set_root_pose(self, pose: Any, env_ids: Any = None) -> None:
        """Teleport the base to world-frame poses (len(env_ids), 7); quaternions are normalised.

        Raises:
            SimuloValueError: A quaternion has zero length. On a fixed base the pose moves the anchor.
        """
        robot_commands.set_root_pose(self._data_or_raise("set_root_pose"), pose, env_ids)

    def set_root_velocity(self, velocity: Any, env_ids: Any = None) -> None:
        """Set base velocities ``[vx, vy, vz, wx, wy, wz]`` (len(env_ids), 6), world frame."""
        robot_commands.set_root_velocity(self._data_or_raise("set_root_velocity"), velocity, env_ids, self._name)

    # -- targets -----------------------------------------------------------------------------------------
    # Each setter first tries the robot data's unchecked write (a joint_ids list validated before and a float array
    # of the block's shape within range, for every environment), then the checked path, which says what is wrong.
    def set_joint_position_target(self, positions: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set position targets (len(env_ids), len(joint_ids)); sent before the next physics step."""
        data = self._data
        if env_ids is None and data is not None:
            cols = data.write_targets(POSITION_TARGETS, positions, joint_ids)
            if cols is not None:
                data.targets_written(POSITION_TARGETS, cols)
                return
        robot_commands.set_targets(self._data_or_raise("set_joint_position_target"), "positions", positions,
                                   joint_ids, env_ids)

    def set_joint_velocity_target(self, velocities: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set velocity targets (len(env_ids), len(joint_ids)); sent before the next physics step."""
        data = self._data
        if env_ids is None and data is not None:
            cols = data.write_targets(VELOCITY_TARGETS, velocities, joint_ids)
            if cols is not None:
                data.targets_written(VELOCITY_TARGETS, cols)
                return
        robot_commands.set_targets(self._data_or_raise("set_joint_velocity_target"), "velocities", velocities,
                                   joint_ids, env_ids)

    def set_joint_effort_target(self, efforts: Any, joint_ids: Any = None) -> None:
        """Set effort targets (num_envs, len(joint_ids)) in N·m or N for every environment.

        Efforts beyond a joint's effort limit are applied at the limit (the actuator saturates);
        ``state.joint_efforts`` reports what was applied.
        """
        data = self._data
        if data is not None:
            cols = data.write_targets(EFFORT_TARGETS, efforts, joint_ids)
            if cols is not None:
                data.targets_written(EFFORT_TARGETS, cols)
                return
        robot_commands.set_targets(self._data_or_raise("set_joint_effort_target"), "efforts", efforts, joint_ids,
                                   None)

    # -- per-copy properties (RobotPropertiesProtocol, ExternalForceProtocol; simulo.sim.robot_commands) --------
    def set_body_friction(self, name_pattern: str, friction: float) -> None:
        """Set the lateral (Coulomb) friction coefficient of the matching bodies in every environment.

        Raises:
            NameNotFoundError: No body matches. SimuloValueError: friction is not a finite number >= 0.
        """
        robot_commands.set_body_friction(self._data_or_raise("set_body_friction"), name_pattern, friction)

    def set_mass(self, values: Any, env_ids: Any = None) -> None:
        """Set body masses (len(env_ids), num_bodies) in kg."""
        robot_commands.set_mass(self._data_or_raise("set_mass"), values, env_ids)

    def set_center_of_mass(self, values: Any, env_ids: Any = None) -> None:
        """Set body centres of mass (len(env_ids), num_bodies, 3); the PyBullet engine refuses."""
        robot_commands.set_center_of_mass(self._data_or_raise("set_center_of_mass"), values, env_ids)

    def set_friction(self, values: Any, env_ids: Any = None) -> None:
        """Set each body's friction coefficient (len(env_ids), num_bodies): one contact shape per body."""
        robot_commands.set_surface(self._data_or_raise("set_friction"), values, env_ids, "friction")

    def set_restitution(self, values: Any, env_ids: Any = None) -> None:
        """Set each body's restitution 0..1 (len(env_ids), num_bodies)."""
        robot_commands.set_surface(self._data_or_raise("set_restitution"), values, env_ids, "restitution")

    def set_joint_gains(self, stiffness: Any, damping: Any, env_ids: Any = None) -> None:
        """Set PD stiffness and damping (len(env_ids), num_joints) of PD-driven (ActuatorGainsConfig) joints."""
        robot_commands.set_joint_gains(self._data_or_raise("set_joint_gains"), stiffness, damping, env_ids)

    def set_joint_armature(self, values: Any, env_ids: Any = None) -> None:
        """Set joint armature (len(env_ids), num_joints); the PyBullet engine refuses."""
        robot_commands.set_joint_armature(self._data_or_raise("set_joint_armature"), values, env_ids)

    def apply_external_force(self, forces: Any, torques: Any, env_ids: Any = None) -> None:
        """Keep world-frame forces and torques (len(env_ids), num_bodies, 3) on the bodies' centres of mass at
        every physics step until set again (zeros stop them) or the environment is reset."""
        robot_commands.apply_external_force(self._data_or_raise("apply_external_force"), forces, torques, env_ids)

    # -- reset ---------------------------------------------------------------------------------------------
    def reset(self, env_ids: Any = None) -> None:
        """Write the default pose and joint state and clear every target, for ``env_ids`` only; the robot's
        actuators that keep state across steps reset there too (a surface gripper lets go)."""
        robot_commands.reset(self._data_or_raise("reset"), self.actuators, env_ids)

    def reset_to_default(self) -> None:
        """Reset every environment to the default state."""
        self.reset(None)

    # -- runtime hooks (see simulo.sim.hooks.SceneMember) ---------------------------------------------------
    @property
    def runtime_attached(self) -> bool:
        """Whether a simulation has attached the robot (runtime hook)."""
        return self._data is not None

    def runtime_set_path(self, path: str) -> None:
        """Take the scene path the robot was added at (runtime hook: the scene calls it)."""
        self._path = path
        self._name = path.rstrip("/").rsplit("/", 1)[-1]

    def runtime_flush(self) -> None:
        """Turn the buffered targets into this step's engine commands (runtime hook: once per physics step)."""
        data = self._data
        assert data is not None
        data.flush(force=self.disable_gravity)
        if self.disable_gravity:
            data.batch.cancel_gravity()
        pushed = data.external.active
        if pushed.size:
            data.batch.apply_link_forces(pushed, data.external.forces[pushed], data.external.torques[pushed])

    def runtime_attach(self, batch: ArticulationBatch, tensors: Tensors, default_pose: np.ndarray,
                       env_origins: np.ndarray | None = None, physics_dt: float = 1.0 / 240.0) -> None:
        """Bind the robot to its engine batch (runtime hook: the simulation calls it).

        ``env_origins`` (num_envs, 3) are the origins ``default_pose`` includes, for a robot spawned in every
        environment (None for one placed once in world coordinates); ``internals.default_root_state`` takes
        them out. ``physics_dt`` is the engine's time step, which the implicit PD drive integrates over.

        Raises:
            NameNotFoundError: A ``joint_config`` or ``actuator_gains`` name, or a sensor's or actuator's
                ``attach_to``, matches nothing.
            SimuloValueError: A default joint state or an actuator does not fit the model.
        """
        # the model's own drives (a USD DriveAPI's gains) first, so that the robot's actuator_gains override them
        gains = {re.escape(name): config for name, config in self.asset.drive_gains.items()}
        data = make_robot_data(batch, tensors, default_pose, self.articulation, self.joint_config,
                               {**gains, **(self.actuator_gains or {})} or None)
        data.physics_dt = float(physics_dt)
        self._data = data
        self._state.bind(data)
        self._internals = RobotInternals(data, env_origins)
        if self.mass_scale != 1.0:
            batch.scale_masses(self.mass_scale)
        if not self.collision_enabled or self.visual_only:
            batch.disable_collisions()
        if self.visual_only:
            batch.scale_masses(0.0)
        batch.write_joints(range(data.num_envs), data.default_q, data.default_qd)
        data.refresh_base()
        data.refresh_joints()
        for item, attach_to in (*self._actuators, *self._sensors):
            item.runtime_bind(data, attach_to)

    def runtime_detach(self) -> None:
        """Forget the engine batch (runtime hook: the simulation calls it when it closes)."""
        if self._data is not None:
            self._data.attached = False
            self._closed = True
        self._data = None
        self._state.bind(None)

    def __repr__(self) -> str:
        return f"Robot(name={self._name!r}, asset={self.asset.name!r}, attached={self._data is not None})"
