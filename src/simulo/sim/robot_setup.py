"""Building a robot's :class:`~simulo.sim.robot_data.RobotData` once a simulation has loaded its model.

:func:`build_drives` chooses each joint's drive law (:mod:`simulo.sim.drives`) from the robot's
``actuator_gains``: the engine's own motor (:class:`~simulo.sim.actuators.engine_motor.EngineMotorDrive`,
:class:`~simulo.MotorGainsConfig`; on PyBullet ``POSITION_CONTROL``/``VELOCITY_CONTROL`` with solver gains) by
default, an ideal PD law (:class:`~simulo.sim.actuators.ideal_pd.IdealPDDrive`) for joints in a group with an
:class:`~simulo.ActuatorGainsConfig`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from simulo.authoring.config import ActuatorGainsConfig, ArticulationConfig, JointConfig, MotorGainsConfig
from simulo.engine.base import ArticulationBatch
from simulo.errors import NameNotFoundError, SimuloValueError
from simulo.sim.actuators.engine_motor import EngineMotorDrive
from simulo.sim.actuators.ideal_pd import IdealPDDrive
from simulo.sim.drives import JointDrive
from simulo.sim.names import match_names
from simulo.sim.robot_data import RobotData
from simulo.sim.tensors import Tensors

#: Force limit of the engine motor on a joint whose model gives no effort limit, N or N·m.
UNLIMITED_MOTOR_FORCE = 1000.0

#: Solver gains of the engine motor on joints without a ``MotorGainsConfig`` (PyBullet's defaults).
DEFAULT_POSITION_GAIN = 0.1
DEFAULT_VELOCITY_GAIN = 1.0


def make_robot_data(batch: ArticulationBatch, tensors: Tensors, default_pose: np.ndarray,
                    articulation: ArticulationConfig, joint_config: Sequence[JointConfig] | None,
                    actuator_gains: Mapping[str, ActuatorGainsConfig | MotorGainsConfig] | None) -> RobotData:
    """Check a robot's joint settings against the loaded model, apply ``joint_config`` and build its data.

    Args:
        batch: The engine's articulation batch.
        tensors: The simulation's tensor converter.
        default_pose: Root poses ``reset`` writes (num_envs, 7).
        articulation: Default joint state (and root settings the simulation has applied).
        joint_config: Per-joint overrides of limits, effort and velocity limits and damping.
        actuator_gains: Drive-law groups (see :func:`build_drives`).

    Raises:
        NameNotFoundError: A ``joint_config`` or ``actuator_gains`` name matches no joint.
        SimuloValueError: A default joint state has the wrong length or a non-finite value.
    """
    n = batch.num_envs
    joints = list(batch.joints)
    names = [j.name for j in joints]
    j_count = len(names)
    default_q = np.zeros((n, j_count))
    default_qd = np.zeros((n, j_count))
    if articulation.default_joint_positions is not None:
        default_q[:] = _vector(articulation.default_joint_positions, j_count, "articulation.default_joint_positions",
                               names)
    if articulation.default_joint_velocities is not None:
        default_qd[:] = _vector(articulation.default_joint_velocities, j_count,
                                "articulation.default_joint_velocities", names)
    effort_limit = np.array([j.max_force if j.max_force > 0 else np.inf for j in joints], dtype=float)
    for jc in joint_config or []:
        if jc.name not in names:
            raise NameNotFoundError(f"joint_config names joint {jc.name!r}; available joints: {names}")
        col = names.index(jc.name)
        if jc.effort_limit is not None:
            effort_limit[col] = jc.effort_limit
        batch.set_joint_properties(col, damping=jc.damping, max_velocity=jc.velocity_limit, limits=jc.limits)
    drives = build_drives(names, effort_limit, actuator_gains)
    return RobotData(batch, tensors, default_pose, default_q, default_qd, effort_limit, drives)


def build_drives(joint_names: list[str], effort_limit: np.ndarray,
                 actuator_gains: Mapping[str, ActuatorGainsConfig | MotorGainsConfig] | None) -> list[JointDrive]:
    """The drive laws of a robot: one :class:`EngineMotorDrive` and at most one :class:`IdealPDDrive`.

    Args:
        joint_names: Joint names in column order.
        effort_limit: Effort limit per joint (``inf``: none).
        actuator_gains: Groups ``regex or "all_joints" -> config``; later groups override earlier ones.

    Returns:
        The drives, engine motor first; together they cover every joint once.

    Raises:
        NameNotFoundError: A group's pattern matches no joint.
    """
    j_count = len(joint_names)
    is_pd = np.zeros(j_count, dtype=bool)
    kp = np.zeros(j_count)
    kd = np.zeros(j_count)
    pos_gain = np.full(j_count, DEFAULT_POSITION_GAIN)
    vel_gain = np.full(j_count, DEFAULT_VELOCITY_GAIN)
    # A joint without an effort limit (e.g. continuous) is unlimited for raw efforts; its engine motor, which
    # needs a finite force, gets UNLIMITED_MOTOR_FORCE.
    force = np.where(np.isfinite(effort_limit), effort_limit, UNLIMITED_MOTOR_FORCE)
    for key, gains in (actuator_gains or {}).items():
        cols = list(range(j_count)) if key == "all_joints" else match_names(key, joint_names, "joint")
        for c in cols:
            if isinstance(gains, ActuatorGainsConfig):
                is_pd[c], kp[c], kd[c] = True, gains.stiffness, gains.damping
            else:
                is_pd[c], pos_gain[c], vel_gain[c] = False, gains.position_gain, gains.velocity_gain
                force[c] = gains.max_force if gains.max_force is not None else min(effort_limit[c],
                                                                                   UNLIMITED_MOTOR_FORCE)
    drives: list[JointDrive] = []
    motor = np.flatnonzero(~is_pd)
    if motor.size:
        drives.append(EngineMotorDrive(motor, j_count, pos_gain[motor], vel_gain[motor], force[motor]))
    pd = np.flatnonzero(is_pd)
    if pd.size:
        drives.append(IdealPDDrive(pd, kp[pd], kd[pd]))
    return drives


def _vector(values: Any, n: int, what: str, names: list[str]) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (n,) or not np.isfinite(arr).all():
        raise SimuloValueError(f"{what} must have one value per joint ({n}: {names}), each a finite number, "
                               f"got {values!r}")
    return arr
