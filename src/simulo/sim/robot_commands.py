"""The writes of :class:`simulo.Robot` on its data: teleports, checked joint targets, per-copy physical properties,
external forces and reset.

``Robot``'s members of the same names check that a simulation has attached the robot and hand its
:class:`~simulo.sim.robot_data.RobotData` to these functions. Every write validates its input first and changes
nothing when it refuses it. The per-copy properties are the SDK's ``RobotPropertiesProtocol`` and
``ExternalForceProtocol``; their shapes, in the SDK's letters: K selected copies, B bodies (the root first), S
contact shapes, J joints. The PyBullet engine has one contact material per link, so a robot has S = B shapes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from simulo.checks import check_real
from simulo.errors import SimuloValueError
from simulo.sim.drives import StiffnessDrive
from simulo.sim.hooks import reset_each
from simulo.sim.names import match_names
from simulo.sim.properties import batch_values
from simulo.sim.robot_data import EFFORT_TARGETS, POSITION_TARGETS, VELOCITY_TARGETS, RobotData
from simulo.sim.tensors import MAX_MAGNITUDE, unit_poses

#: Which target array :func:`set_targets` writes, by the name of its values.
_TARGETS = {"positions": POSITION_TARGETS, "velocities": VELOCITY_TARGETS, "efforts": EFFORT_TARGETS}


# -- teleports -------------------------------------------------------------------------------------------
def set_joint_state(data: RobotData, positions: Any, velocities: Any, env_ids: Any) -> None:
    """Write joint positions and velocities (zero when ``velocities`` is None) directly: a teleport."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    shape = (len(ids), data.num_joints)
    q = data.tensors.floats(positions, shape, "positions")
    qd = np.zeros(shape) if velocities is None else data.tensors.floats(velocities, shape, "velocities")
    data.batch.write_joints(ids, q, qd)
    data.q[ids] = q
    data.qd[ids] = qd
    data.publish_held()


def set_root_pose(data: RobotData, pose: Any, env_ids: Any) -> None:
    """Teleport the base to world-frame poses (K, 7); quaternions are normalised."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    poses = unit_poses(data.tensors.floats(pose, (len(ids), 7), "pose"))
    data.batch.write_base_pose(ids, poses)
    data.refresh_base(ids.tolist())
    data.refresh_joints()
    data.publish_held()


def set_root_velocity(data: RobotData, velocity: Any, env_ids: Any, robot_name: str | None) -> None:
    """Set base velocities ``[vx, vy, vz, wx, wy, wz]`` (K, 6), world frame.

    Raises:
        SimuloValueError: A nonzero velocity for a fixed base (``robot_name`` names the robot).
    """
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    vel = data.tensors.floats(velocity, (len(ids), 6), "velocity")
    if data.fixed_base and np.any(vel):
        raise SimuloValueError(f"robot {robot_name!r} has a fixed base; its root velocity must stay zero")
    data.batch.write_base_velocity(ids, vel)
    data.refresh_base(ids.tolist())
    data.publish_held()


# -- targets ---------------------------------------------------------------------------------------------
def set_targets(data: RobotData, name: str, values: Any, joint_ids: Any, env_ids: Any) -> None:
    """The checked path of the target setters: validate everything, then write (nothing half-applied).

    Args:
        data: The robot's data.
        name: ``"positions"``, ``"velocities"`` or ``"efforts"``: which targets, and the values' name in errors.
        values: The targets (K, len(joint_ids)).
        joint_ids: Joint columns; None for all.
        env_ids: Environments; None for all.
    """
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
    which = _TARGETS[name]
    (data.pos_t, data.vel_t, data.eff_t)[which][block] = vals
    data.targets_written(which, cols)


# -- per-copy properties (RobotPropertiesProtocol, ExternalForceProtocol) --------------------------------
def set_body_friction(data: RobotData, name_pattern: str, friction: float) -> None:
    """Set the lateral friction coefficient of the bodies matching ``name_pattern`` in every environment.

    Raises:
        NameNotFoundError: No body matches. SimuloValueError: friction is not a finite number >= 0.
    """
    bodies = match_names(name_pattern, data.body_names, "body", every_branch=True)
    if check_real(friction, "friction", 0) > MAX_MAGNITUDE:
        raise SimuloValueError(f"friction must be a finite number >= 0 and <= {MAX_MAGNITUDE:g}, got {friction!r}")
    for b in bodies:
        data.batch.set_body_friction(b, float(friction))


def set_mass(data: RobotData, values: Any, env_ids: Any) -> None:
    """Set body masses (K, B) in kg: > 0 for a floating root, >= 0 elsewhere."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    masses = batch_values(data.tensors, values, (len(ids), len(data.body_names)), "masses", low=0.0)
    if not data.fixed_base and (masses[:, 0] <= 0).any():
        raise SimuloValueError(f"masses of the floating root body {data.body_names[0]!r} must be > 0 (0 would "
                               f"make it static), got {masses[:, 0].tolist()}")
    data.batch.set_link_masses(ids, masses)


def set_center_of_mass(data: RobotData, values: Any, env_ids: Any) -> None:
    """Set body centres of mass (K, B, 3) in the body frames."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    offsets = batch_values(data.tensors, values, (len(ids), len(data.body_names), 3), "centers of mass")
    data.batch.set_link_centers_of_mass(ids, offsets)


def set_surface(data: RobotData, values: Any, env_ids: Any, what: str) -> None:
    """Set per-body ``friction`` (>= 0) or ``restitution`` (0..1), (K, S) with S = B."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    arr = batch_values(data.tensors, values, (len(ids), len(data.body_names)), what, low=0.0,
                       high=1.0 if what == "restitution" else None)
    data.batch.set_link_surface(ids, arr if what == "friction" else None, arr if what == "restitution" else None)


def set_joint_gains(data: RobotData, stiffness: Any, damping: Any, env_ids: Any) -> None:
    """Set the stiffness and damping (K, J) of the robot's joints, every one driven by a law that has them.

    Raises:
        SimuloValueError: A joint is driven by the engine's motor (its solver gains are not stiffness), or a
            gain is negative.
    """
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    shape = (len(ids), data.num_joints)
    kp = batch_values(data.tensors, stiffness, shape, "stiffness", low=0.0)
    kd = batch_values(data.tensors, damping, shape, "damping", low=0.0)
    pd = [d for d in data.drives if isinstance(d, StiffnessDrive)]
    covered = np.zeros(data.num_joints, dtype=bool)
    for drive in pd:
        covered[drive.cols] = True
    if not covered.all():
        motor = [data.joint_names[c] for c in np.flatnonzero(~covered)]
        raise SimuloValueError(f"set_joint_gains sets the stiffness and damping of PD-driven joints, but joints "
                               f"{motor} use the engine's motor (MotorGainsConfig solver gains, not stiffness); "
                               "give the robot actuator_gains={'all_joints': simulo.ActuatorGainsConfig(...)}")
    for drive in pd:
        drive.set_gains(ids, kp[:, drive.cols], kd[:, drive.cols], data.num_envs)


def set_joint_armature(data: RobotData, values: Any, env_ids: Any) -> None:
    """Set joint armature (K, J), >= 0."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    armature = batch_values(data.tensors, values, (len(ids), data.num_joints), "armature", low=0.0)
    data.batch.set_joint_armature(ids, armature)


def apply_external_force(data: RobotData, forces: Any, torques: Any, env_ids: Any) -> None:
    """Keep world-frame forces and torques (K, B, 3) on the robot's bodies from the next step on."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    shape = (len(ids), len(data.body_names), 3)
    f = batch_values(data.tensors, forces, shape, "forces")
    t = batch_values(data.tensors, torques, shape, "torques")
    data.external.set(ids, f, t)


# -- reset -----------------------------------------------------------------------------------------------
def reset(data: RobotData, actuators: Iterable[Any], env_ids: Any) -> None:
    """Write the default pose and joint state and clear every target, for ``env_ids`` only; ``actuators`` that keep
    state across steps reset there first (a surface gripper lets go)."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    reset_each(actuators, ids)
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
