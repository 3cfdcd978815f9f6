"""The writes of :class:`simulo.Robot`: joint targets, teleports, per-copy physical properties and reset.

:class:`RobotCommands` is a base of ``Robot`` (the robot's other members live in :mod:`simulo.sim.robot`). Every
write validates its input first and changes nothing when it refuses it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulo._checks import check_real
from simulo.errors import NotAttachedError, SimuloValueError
from simulo.sim import properties
from simulo.sim.actuators.attach import reset_each
from simulo.sim.names import match_names
from simulo.sim.robot_data import EFFORT_TARGETS, POSITION_TARGETS, VELOCITY_TARGETS, RobotData
from simulo.sim.tensors import MAX_MAGNITUDE, unit_poses


class RobotCommands:
    """What a robot writes: targets, teleports, properties, reset (a base of :class:`simulo.Robot`)."""

    #: the robot's data while a simulation has it attached (None before and after)
    _rt: RobotData | None
    #: whether a simulation attached the robot and has been closed since
    _closed: bool
    _name: str | None
    #: the actuators added with ``add_actuator`` and where they attach
    _actuators: list[tuple[Any, Any]]

    def _rt_or_raise(self, member: str) -> RobotData:
        if self._rt is None and self._closed:
            raise NotAttachedError(f"Robot.{member} is not available until the simulation has attached the robot: "
                                   f"the simulation of robot {self._name!r} was closed (build a new "
                                   "simulo.Simulation(scene) to use it again)")
        if self._rt is None:
            raise NotAttachedError(f"Robot.{member} is not available until the simulation has attached the robot "
                                   "(from on_start onward / after simulo.Simulation(scene) is built)")
        return self._rt


    # -- teleports -------------------------------------------------------------------------------------
    def set_joint_state(self, positions: Any, velocities: Any = None, env_ids: Any = None) -> None:
        """Write joint positions (and velocities, zero if not given) directly: a teleport, not control.

        Args:
            positions: (len(env_ids), num_joints) in rad or m.
            velocities: Same shape, or None for zero.
            env_ids: Environments to write; None for all.
        """
        data = self._rt_or_raise("set_joint_state")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        shape = (len(ids), data.num_joints)
        q = data.tensors.floats(positions, shape, "positions")
        qd = np.zeros(shape) if velocities is None else data.tensors.floats(velocities, shape, "velocities")
        data.batch.write_joints(ids, q, qd)
        data.q[ids] = q
        data.qd[ids] = qd
        data.publish_held()

    def set_root_pose(self, pose: Any, env_ids: Any = None) -> None:
        """Teleport the base to world-frame poses (len(env_ids), 7); quaternions are normalised.

        Raises:
            SimuloValueError: A quaternion has zero length. On a fixed base the pose moves the anchor.
        """
        data = self._rt_or_raise("set_root_pose")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        poses = unit_poses(data.tensors.floats(pose, (len(ids), 7), "pose"))
        data.batch.write_base_pose(ids, poses)
        data.refresh_base(ids.tolist())
        data.refresh_joints()
        data.publish_held()

    def set_root_velocity(self, velocity: Any, env_ids: Any = None) -> None:
        """Set base velocities ``[vx, vy, vz, wx, wy, wz]`` (len(env_ids), 6), world frame."""
        data = self._rt_or_raise("set_root_velocity")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        vel = data.tensors.floats(velocity, (len(ids), 6), "velocity")
        if data.fixed_base and np.any(vel):
            raise SimuloValueError(f"robot {self._name!r} has a fixed base; its root velocity must stay zero")
        data.batch.write_base_velocity(ids, vel)
        data.refresh_base(ids.tolist())
        data.publish_held()

    # -- targets -----------------------------------------------------------------------------------------
    # Each setter first tries the robot data's unchecked write (a joint_ids list validated before and a float array
    # of the block's shape within range, for every environment), then the checked path, which says what is wrong.
    def set_joint_position_target(self, positions: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set position targets (len(env_ids), len(joint_ids)); sent before the next physics step."""
        data = self._rt
        if env_ids is None and data is not None:
            cols = data.write_targets(POSITION_TARGETS, positions, joint_ids)
            if cols is not None:
                data.targets_written(POSITION_TARGETS, cols)
                return
        self._set_targets("set_joint_position_target", "positions", positions, joint_ids, env_ids)

    def set_joint_velocity_target(self, velocities: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set velocity targets (len(env_ids), len(joint_ids)); sent before the next physics step."""
        data = self._rt
        if env_ids is None and data is not None:
            cols = data.write_targets(VELOCITY_TARGETS, velocities, joint_ids)
            if cols is not None:
                data.targets_written(VELOCITY_TARGETS, cols)
                return
        self._set_targets("set_joint_velocity_target", "velocities", velocities, joint_ids, env_ids)

    def set_joint_effort_target(self, efforts: Any, joint_ids: Any = None) -> None:
        """Set effort targets (num_envs, len(joint_ids)) in N·m or N for every environment.

        Efforts beyond a joint's effort limit are applied at the limit (the actuator saturates);
        ``state.joint_efforts`` reports what was applied.
        """
        data = self._rt
        if data is not None:
            cols = data.write_targets(EFFORT_TARGETS, efforts, joint_ids)
            if cols is not None:
                data.targets_written(EFFORT_TARGETS, cols)
                return
        self._set_targets("set_joint_effort_target", "efforts", efforts, joint_ids, None)

    def _set_targets(self, member: str, name: str, values: Any, joint_ids: Any, env_ids: Any) -> None:
        """The checked path of the target setters: validate everything, then write (nothing half-applied)."""
        data = self._rt_or_raise(member)
        block: Any
        if env_ids is None:  # every environment in order: the columns' index (a slice for a run)
            cols, index = data.joint_block(joint_ids)
            vals = data.tensors.floats(values, (data.num_envs, len(cols)), name)
            block = (slice(None), index)
        else:
            ids = data.tensors.env_ids(env_ids, data.num_envs)
            cols = data.joint_cols(joint_ids)
            vals = data.tensors.floats(values, (len(ids), len(cols)), name)
            block = np.ix_(ids, cols)
        which = {"positions": POSITION_TARGETS, "velocities": VELOCITY_TARGETS, "efforts": EFFORT_TARGETS}[name]
        (data.pos_t, data.vel_t, data.eff_t)[which][block] = vals
        data.targets_written(which, cols)

    def set_body_friction(self, name_pattern: str, friction: float) -> None:
        """Set the lateral (Coulomb) friction coefficient of the matching bodies in every environment.

        Raises:
            NameNotFoundError: No body matches. SimuloValueError: friction is not a finite number >= 0.
        """
        data = self._rt_or_raise("set_body_friction")
        bodies = match_names(name_pattern, data.body_names, "body", every_branch=True)
        if check_real(friction, "friction", 0) > MAX_MAGNITUDE:
            raise SimuloValueError(f"friction must be a finite number >= 0 and <= {MAX_MAGNITUDE:g}, got {friction!r}")
        for b in bodies:
            data.batch.set_body_friction(b, float(friction))

    # -- per-copy properties (RobotPropertiesProtocol, ExternalForceProtocol; see simulo.sim.properties) ------
    def set_mass(self, values: Any, env_ids: Any = None) -> None:
        """Set body masses (len(env_ids), num_bodies) in kg."""
        properties.robot_set_mass(self._rt_or_raise("set_mass"), values, env_ids)

    def set_center_of_mass(self, values: Any, env_ids: Any = None) -> None:
        """Set body centres of mass (len(env_ids), num_bodies, 3); the PyBullet engine refuses."""
        properties.robot_set_center_of_mass(self._rt_or_raise("set_center_of_mass"), values, env_ids)

    def set_friction(self, values: Any, env_ids: Any = None) -> None:
        """Set each body's friction coefficient (len(env_ids), num_bodies): one contact shape per body."""
        properties.robot_set_surface(self._rt_or_raise("set_friction"), values, env_ids, "friction")

    def set_restitution(self, values: Any, env_ids: Any = None) -> None:
        """Set each body's restitution 0..1 (len(env_ids), num_bodies)."""
        properties.robot_set_surface(self._rt_or_raise("set_restitution"), values, env_ids, "restitution")

    def set_joint_gains(self, stiffness: Any, damping: Any, env_ids: Any = None) -> None:
        """Set PD stiffness and damping (len(env_ids), num_joints) of PD-driven (ActuatorGainsConfig) joints."""
        properties.robot_set_joint_gains(self._rt_or_raise("set_joint_gains"), stiffness, damping, env_ids)

    def set_joint_armature(self, values: Any, env_ids: Any = None) -> None:
        """Set joint armature (len(env_ids), num_joints); the PyBullet engine refuses."""
        properties.robot_set_joint_armature(self._rt_or_raise("set_joint_armature"), values, env_ids)

    def apply_external_force(self, forces: Any, torques: Any, env_ids: Any = None) -> None:
        """Keep world-frame forces and torques (len(env_ids), num_bodies, 3) on the bodies' centres of mass at
        every physics step until set again (zeros stop them) or the environment is reset."""
        data = self._rt_or_raise("apply_external_force")
        properties.robot_apply_external_force(data, data.external, forces, torques, env_ids)

    # -- reset ---------------------------------------------------------------------------------------------
    def reset(self, env_ids: Any = None) -> None:
        """Write the default pose and joint state and clear every target, for ``env_ids`` only; the robot's
        actuators that keep state across steps reset there too (a surface gripper lets go)."""
        data = self._rt_or_raise("reset")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        reset_each([actuator for actuator, _ in self._actuators], ids)
        data.batch.write_base_pose(ids, data.default_pose[ids])
        data.batch.write_base_velocity(ids, np.zeros((len(ids), 6)))
        data.batch.write_joints(ids, data.default_q[ids], data.default_qd[ids])
        data.clear_targets(ids)
        data.external.clear(ids)
        data.q[ids] = data.default_q[ids]
        data.qd[ids] = data.default_qd[ids]
        data.effort[ids] = 0.0
        data.refresh_base(ids.tolist())
        data.publish_held()

    def reset_to_default(self) -> None:
        """Reset every environment to the default state."""
        self.reset(None)

