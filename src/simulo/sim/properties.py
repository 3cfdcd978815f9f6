"""Per-copy physical properties and external forces of robots and props (the SDK's properties Protocols).

:class:`~simulo.Robot` and :class:`~simulo.Prop` expose these as ``set_mass``, ``set_center_of_mass``,
``set_friction``, ``set_restitution``, ``set_joint_gains``, ``set_joint_armature``, ``set_scale`` and
``apply_external_force`` (``RobotPropertiesProtocol``, ``PropPropertiesProtocol``, ``ExternalForceProtocol``).
Every call takes ``env_ids`` (any subset, any order; ``None``: every copy) and values whose first axis follows
``env_ids``. Shapes, in the SDK's letters: K selected copies, B bodies (the root first), S contact shapes, J
joints. The PyBullet engine has one contact material per link, so a robot has S = B shapes and a prop S = 1.

Every value is checked before anything changes, and a refusal (wrong shape, NaN, out of range, or something
the engine cannot do) raises a :class:`~simulo.SimuloError` subclass that names the value: nothing is
half-applied. External forces are world-frame, at each body's centre of mass; they stay applied at every
physics step until they are set again (zeros stop them) or the copy is reset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.errors import SimuloValueError
from simulo.sim.tensors import Tensors

if TYPE_CHECKING:
    from simulo.sim.prop import PropData
    from simulo.sim.robot_data import RobotData


def batch_values(tensors: Tensors, values: Any, shape: tuple[int, ...], name: str, low: float | None = None,
                 high: float | None = None, positive: bool = False) -> np.ndarray:
    """``values`` as a float64 array of ``shape``: a plain number fills it; checked finite and in range.

    Raises:
        ShapeError: Wrong shape. NonFiniteError: NaN or infinity. SimuloValueError: Out of range.
    """
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        values = np.full(shape, float(values))
    out = tensors.floats(values, shape, name)
    bad = np.zeros(out.shape, dtype=bool)
    if low is not None:
        bad |= (out <= low) if positive else (out < low)
    if high is not None:
        bad |= out > high
    if bad.any():
        where = np.argwhere(bad)[0].tolist()
        bounds = f"{'>' if positive else '>='} {low}" if high is None else f"in {low}..{high}"
        raise SimuloValueError(f"{name} must be {bounds}, got {out[tuple(where)]} at index {where}")
    return out


class ForceBuffer:
    """External forces and torques (num_envs, B, 3) kept applied at every physics step until changed."""

    def __init__(self, num_envs: int, num_bodies: int) -> None:
        self.forces = np.zeros((num_envs, num_bodies, 3))
        self.torques = np.zeros((num_envs, num_bodies, 3))
        self.active = np.zeros(0, dtype=np.int64)

    def set(self, env_ids: np.ndarray, forces: np.ndarray, torques: np.ndarray) -> None:
        """Replace the forces and torques of ``env_ids``."""
        self.forces[env_ids] = forces
        self.torques[env_ids] = torques
        self.active = np.flatnonzero(self.forces.any(axis=(1, 2)) | self.torques.any(axis=(1, 2)))

    def clear(self, env_ids: np.ndarray) -> None:
        """Stop pushing ``env_ids`` (a reset)."""
        if self.active.size:
            self.set(env_ids, np.zeros((len(env_ids), *self.forces.shape[1:])),
                     np.zeros((len(env_ids), *self.torques.shape[1:])))


# -- robots ----------------------------------------------------------------------------------------
def robot_set_mass(data: RobotData, values: Any, env_ids: Any) -> None:
    """Set body masses (K, B) in kg: > 0 for a floating root, >= 0 elsewhere."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    masses = batch_values(data.tensors, values, (len(ids), len(data.body_names)), "masses", low=0.0)
    if not data.fixed_base and (masses[:, 0] <= 0).any():
        raise SimuloValueError(f"masses of the floating root body {data.body_names[0]!r} must be > 0 (0 would "
                               f"make it static), got {masses[:, 0].tolist()}")
    data.batch.set_link_masses(ids, masses)


def robot_set_center_of_mass(data: RobotData, values: Any, env_ids: Any) -> None:
    """Set body centres of mass (K, B, 3) in the body frames."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    offsets = batch_values(data.tensors, values, (len(ids), len(data.body_names), 3), "centers of mass")
    data.batch.set_link_centers_of_mass(ids, offsets)


def robot_set_surface(data: RobotData, values: Any, env_ids: Any, what: str) -> None:
    """Set per-body ``friction`` (>= 0) or ``restitution`` (0..1), (K, S) with S = B."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    arr = batch_values(data.tensors, values, (len(ids), len(data.body_names)), what, low=0.0,
                       high=1.0 if what == "restitution" else None)
    data.batch.set_link_surface(ids, arr if what == "friction" else None, arr if what == "restitution" else None)


def robot_set_joint_gains(data: RobotData, stiffness: Any, damping: Any, env_ids: Any) -> None:
    """Set the PD drive's stiffness and damping (K, J) of the robot's joints.

    Raises:
        SimuloValueError: A joint is driven by the engine's motor (its solver gains are not stiffness), or a
            gain is negative.
    """
    from simulo.sim.actuators.ideal_pd import IdealPDDrive

    ids = data.tensors.env_ids(env_ids, data.num_envs)
    shape = (len(ids), data.num_joints)
    kp = batch_values(data.tensors, stiffness, shape, "stiffness", low=0.0)
    kd = batch_values(data.tensors, damping, shape, "damping", low=0.0)
    pd = [d for d in data.drives if isinstance(d, IdealPDDrive)]
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


def robot_set_joint_armature(data: RobotData, values: Any, env_ids: Any) -> None:
    """Set joint armature (K, J), >= 0."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    armature = batch_values(data.tensors, values, (len(ids), data.num_joints), "armature", low=0.0)
    data.batch.set_joint_armature(ids, armature)


def robot_apply_external_force(data: RobotData, forces: ForceBuffer, values: Any, torques: Any,
                               env_ids: Any) -> None:
    """Keep world-frame forces and torques (K, B, 3) on the robot's bodies from the next step on."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    shape = (len(ids), len(data.body_names), 3)
    f = batch_values(data.tensors, values, shape, "forces")
    t = batch_values(data.tensors, torques, shape, "torques")
    forces.set(ids, f, t)


# -- props -----------------------------------------------------------------------------------------
def prop_set_mass(data: PropData, values: Any, env_ids: Any) -> None:
    """Set the prop's mass (K, 1) in kg, > 0."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    masses = batch_values(data.tensors, values, (len(ids), 1), "masses", low=0.0, positive=True)
    data.batch.set_masses(ids, masses[:, 0])


def prop_set_center_of_mass(data: PropData, values: Any, env_ids: Any) -> None:
    """Set the prop's centre of mass (K, 1, 3) in its body frame."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    offsets = batch_values(data.tensors, values, (len(ids), 1, 3), "centers of mass")
    data.batch.set_center_of_mass(ids, offsets[:, 0])


def prop_set_surface(data: PropData, values: Any, env_ids: Any, what: str) -> None:
    """Set the prop's ``friction`` (>= 0) or ``restitution`` (0..1), (K, 1): one shape."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    arr = batch_values(data.tensors, values, (len(ids), 1), what, low=0.0,
                       high=1.0 if what == "restitution" else None)[:, 0]
    data.batch.set_surface(ids, arr if what == "friction" else None, arr if what == "restitution" else None)


def prop_set_scale(data: PropData, values: Any, env_ids: Any) -> None:
    """Set the prop's scale (K, 1, 3) relative to its authored size, > 0."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    scales = batch_values(data.tensors, values, (len(ids), 1, 3), "scales", low=0.0, positive=True)
    data.batch.set_scale(ids, scales[:, 0])


def prop_apply_external_force(data: PropData, forces: ForceBuffer, values: Any, torques: Any,
                              env_ids: Any) -> None:
    """Keep a world-frame force and torque (K, 1, 3) on the prop from the next step on."""
    ids = data.tensors.env_ids(env_ids, data.num_envs)
    f = batch_values(data.tensors, values, (len(ids), 1, 3), "forces")
    t = batch_values(data.tensors, torques, (len(ids), 1, 3), "torques")
    forces.set(ids, f, t)
