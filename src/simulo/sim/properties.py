"""What the per-copy physical properties of robots and props share: the check of their values, and the external
forces kept on their bodies (the SDK's properties Protocols).

:class:`~simulo.Robot` (:mod:`simulo.sim.robot_commands`) and :class:`~simulo.Prop` expose these as ``set_mass``,
``set_center_of_mass``, ``set_friction``, ``set_restitution``, ``set_joint_gains``, ``set_joint_armature``,
``set_scale`` and ``apply_external_force`` (``RobotPropertiesProtocol``, ``PropPropertiesProtocol``,
``ExternalForceProtocol``). Every call takes ``env_ids`` (any subset, any order; ``None``: every copy) and values
whose first axis follows ``env_ids``.

Every value is checked before anything changes, and a refusal (wrong shape, NaN, out of range, or something
the engine cannot do) raises a :class:`~simulo.SimuloError` subclass that names the value: nothing is
half-applied. External forces are world-frame, at each body's centre of mass; they stay applied at every
physics step until they are set again (zeros stop them) or the copy is reset.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulo.errors import SimuloValueError
from simulo.sim.tensors import Tensors


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
