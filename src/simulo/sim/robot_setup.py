"""Building a robot's :class:`~simulo.sim.robot_data.RobotData` once a simulation has loaded its model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from simulo.authoring.config import ActuatorGainsConfig, ArticulationConfig, JointConfig, MotorGainsConfig
from simulo.engine.base import ArticulationBatch
from simulo.errors import NameNotFoundError, SimuloValueError
from simulo.sim.robot_data import RobotData
from simulo.sim.tensors import Tensors


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
        actuator_gains: Drive-law groups (see :func:`~simulo.sim.actuators.drive.build_drives`).

    Raises:
        NameNotFoundError: A ``joint_config`` or ``actuator_gains`` name matches no joint.
        SimuloValueError: A default joint state has the wrong length or a non-finite value.
    """
    from simulo.sim.actuators.drive import build_drives

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


def _vector(values: Any, n: int, what: str, names: list[str]) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (n,) or not np.isfinite(arr).all():
        raise SimuloValueError(f"{what} must have one value per joint ({n}: {names}), each a finite number, "
                               f"got {values!r}")
    return arr
