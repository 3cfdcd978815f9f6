"""The batch Protocols of the engine interface (:mod:`simulo.engine.base`): one copy of an articulated robot,
of a rigid object or of a set of welds per environment."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from simulo.engine.values import EnvIds, JointInfo


class RigidBatch(Protocol):
    """One single-body rigid object per environment. Poses are of the shape's centre."""

    @property
    def num_envs(self) -> int:
        """Number of copies."""
        ...

    def read(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray) -> None:
        """Write the current poses (num_envs, 7) and velocities (num_envs, 3) into the arrays in place."""
        ...

    def write_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport the objects of ``env_ids`` to ``poses`` (len(env_ids), 7)."""
        ...

    def write_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set the velocities ``[vx, vy, vz, wx, wy, wz]`` (len(env_ids), 6) of the objects of ``env_ids``."""
        ...

    def set_friction(self, friction: float) -> None:
        """Set the lateral (Coulomb) friction coefficient of every copy."""
        ...

    # -- per-copy properties (checked by the caller: finite, in range, right shape) ----------------
    def masses(self) -> np.ndarray:
        """Mass of every copy (num_envs,) in kg (0: static)."""
        ...

    def set_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the masses (len(env_ids),) of the copies of ``env_ids``, each > 0."""
        ...

    def set_surface(self, env_ids: EnvIds, friction: np.ndarray | None, restitution: np.ndarray | None) -> None:
        """Set the friction and/or restitution (len(env_ids),) of the copies of ``env_ids`` (``None``: keep)."""
        ...

    def set_center_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        """Move the centre of mass to ``offsets`` (len(env_ids), 3) in the body frame.

        Raises:
            SimuloValueError: The engine cannot move a built body's centre of mass (before changing anything).
        """
        ...

    def set_scale(self, env_ids: EnvIds, scales: np.ndarray) -> None:
        """Rescale the shapes of ``env_ids`` to ``scales`` (len(env_ids), 3) times their built size.

        Raises:
            SimuloValueError: The shape cannot take that scale (a sphere scaled unevenly), or the engine cannot
                rescale a built shape (before changing anything).
        """
        ...

    def apply_force(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the coming step only, push the copies of ``env_ids`` with world-frame forces (at the centre of
        mass) and torques, each (len(env_ids), 3)."""
        ...

    def set_enabled(self, env_ids: EnvIds, enabled: bool) -> None:
        """Switch the copies of ``env_ids`` on (dynamic, colliding) or off (static, colliding with nothing);
        a copy switched on gets back its mass and collisions."""
        ...


class ArticulationBatch(Protocol):
    """One copy of an articulated robot per environment.

    ``joints`` lists the non-fixed joints (one column each); ``body_names`` the root link and then every
    other link. Commands are sent with :meth:`apply` once per physics step; reads fill caller-owned arrays.
    """

    @property
    def num_envs(self) -> int:
        """Number of copies."""
        ...

    @property
    def fixed_base(self) -> bool:
        """Whether the root link is bolted to the world."""
        ...

    @property
    def joints(self) -> Sequence[JointInfo]:
        """The non-fixed joints, in column order."""
        ...

    @property
    def body_names(self) -> Sequence[str]:
        """Body names in body-index order: the root link first."""
        ...

    # -- state -----------------------------------------------------------------------------------
    def read_joints(self, q: np.ndarray, qd: np.ndarray, effort: np.ndarray) -> None:
        """Write joint positions, velocities and the engine motors' efforts (num_envs, J) in place."""
        ...

    @property
    def reports_all_efforts(self) -> bool:
        """Whether :meth:`read_joints` also writes every other joint's effort: the last apply's torque where a
        joint is torque-driven, zero where it is passive. When False the caller writes those entries itself
        after each read."""
        ...

    def read_base(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
                  env_ids: EnvIds | None = None) -> None:
        """Write the root pose and velocity into rows ``env_ids`` (all when ``None``) of the arrays."""
        ...

    def read_bodies(self, bodies: Sequence[int], env_ids: EnvIds, velocity: bool
                    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Poses (E, len(bodies), 7) and, if ``velocity``, velocities (E, len(bodies), 6) of non-root bodies."""
        ...

    # -- writes ----------------------------------------------------------------------------------
    def body_pose_reader(self, body: int) -> Callable[[], np.ndarray]:
        """A call that reads the world poses (num_envs, 7) of non-root body ``body``'s frame in every environment
        now, into a new array each time (what :meth:`read_bodies` gives for that body, made cheap to repeat)."""
        ...

    def write_joints(self, env_ids: EnvIds, q: np.ndarray, qd: np.ndarray) -> None:
        """Teleport the joints of ``env_ids`` to ``q``/``qd`` (len(env_ids), J)."""
        ...

    def write_base_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport the root links of ``env_ids`` to ``poses`` (len(env_ids), 7)."""
        ...

    def write_base_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set the root velocities (len(env_ids), 6) of ``env_ids``."""
        ...

    def apply(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
              position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        """Send one step's joint commands for every environment; every array is (num_envs, J).

        ``mode`` holds :class:`ControlMode` values. Motors use ``position``/``velocity`` targets, ``force`` as
        their limit and the solver gains; ``TORQUE`` joints get ``torque``; a joint leaving a motor mode has its
        motor switched off. Entries a joint's mode does not use are ignored (they may be NaN).
        """
        ...

    def apply_positions(self, position: np.ndarray) -> None:
        """Send the last :meth:`apply`'s commands again with new ``position`` targets (num_envs, J).

        The caller guarantees that nothing but position targets changed since that ``apply`` (the same modes,
        velocity targets, forces and gains, and no joint torque-driven), so an engine may resend only its
        position motors' targets.
        """
        ...

    def apply_efforts(self, effort: np.ndarray) -> None:
        """Send the last :meth:`apply`'s commands again with new ``effort`` torques (num_envs, J), read where a
        joint is ``TORQUE``-driven.

        The caller guarantees that nothing but those torques changed since that ``apply`` (the same modes,
        position and velocity targets, forces and gains), so an engine may send only the torques.
        """
        ...

    def cancel_gravity(self) -> None:
        """For the coming step only, apply an upward m·g at every link's centre of mass."""
        ...

    # -- dynamics queries ------------------------------------------------------------------------
    def jacobians(self, bodies: Sequence[int], q: np.ndarray) -> np.ndarray:
        """Jacobians (num_envs, len(bodies), 6, J) of the bodies' frame origins, world axes, joint columns only."""
        ...

    def mass_matrices(self, q: np.ndarray) -> np.ndarray:
        """Joint-space mass matrices (num_envs, J, J) at joint positions ``q``."""
        ...

    def gravity_torques(self, q: np.ndarray) -> np.ndarray:
        """Joint efforts (num_envs, J) that hold the robot still against gravity at ``q``."""
        ...

    # -- model edits -----------------------------------------------------------------------------
    def scale_masses(self, factor: float) -> None:
        """Multiply every link mass by ``factor`` in every copy (0 makes the robot massless)."""
        ...

    def set_joint_properties(self, joint: int, *, damping: float | None = None, max_velocity: float | None = None,
                             limits: tuple[float, float] | None = None) -> None:
        """Override the given properties of joint column ``joint`` in every copy (``None``: keep)."""
        ...

    def set_body_friction(self, body: int, friction: float) -> None:
        """Set the lateral friction coefficient of body ``body`` in every copy."""
        ...

    # -- per-copy properties (checked by the caller: finite, in range, right shape) ----------------
    def link_masses(self) -> np.ndarray:
        """Mass of every body of every copy (num_envs, B) in kg."""
        ...

    def set_link_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the body masses (len(env_ids), B) of the copies of ``env_ids``."""
        ...

    def set_link_surface(self, env_ids: EnvIds, friction: np.ndarray | None,
                         restitution: np.ndarray | None) -> None:
        """Set each body's friction and/or restitution (len(env_ids), B) (``None``: keep). An engine with one
        contact material per body (PyBullet) has one shape per body."""
        ...

    def set_link_centers_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        """Move each body's centre of mass to ``offsets`` (len(env_ids), B, 3) in its body frame.

        Raises:
            SimuloValueError: The engine cannot move a loaded link's centre of mass (before changing anything).
        """
        ...

    def set_joint_armature(self, env_ids: EnvIds, armature: np.ndarray) -> None:
        """Set each joint's armature (reflected rotor inertia, len(env_ids), J).

        Raises:
            SimuloValueError: The engine has no joint armature (before changing anything).
        """
        ...

    def apply_link_forces(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """For the coming step only, push each body of the copies of ``env_ids`` with world-frame forces (at its
        centre of mass) and torques, each (len(env_ids), B, 3)."""
        ...

    def disable_collisions(self) -> None:
        """Make every copy collide with nothing."""
        ...

    def add_gear(self, joint_a: int, joint_b: int, ratio: float, erp: float, max_force: float) -> None:
        """Couple two joint columns in every copy (``ratio`` -1 mirrors them)."""
        ...

    def contact_counts(self, other: RigidBatch, bodies: Sequence[int] | None) -> np.ndarray:
        """Contact points with ``other`` per environment: (num_envs,) for the whole robot when ``bodies`` is
        ``None``, else (num_envs, len(bodies)). ``other`` comes from the same engine."""
        ...

    def contact_forces(self, bodies: Sequence[int], other: RigidBatch | None) -> np.ndarray:
        """Net contact force (normal and friction) on each of ``bodies`` (num_envs, len(bodies), 3), world axes,
        N, from the last step's contacts with ``other`` (anything when ``None``)."""
        ...

    def joint_wrenches(self, bodies: Sequence[int]) -> np.ndarray:
        """The wrench the parent exerts on each of ``bodies`` (non-root) through its joint, in the last step:
        (num_envs, len(bodies), 6) ``[fx, fy, fz, tx, ty, tz]`` in the body's frame, N and N·m, about its origin.
        The first call switches the engine's joint force sensors on; they report from the next step."""
        ...


class WeldBatch(Protocol):
    """Welds between one body of an articulation and rigid objects, at most one per environment (a suction
    cup's grip). Made with :meth:`Engine.add_welds` while the scene is built; each environment's weld is off until
    :meth:`attach`."""

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        ...

    def attach(self, env_ids: EnvIds, other: RigidBatch) -> None:
        """Weld the body to ``other``'s copy in each of ``env_ids`` at their current relative pose (an attached
        weld of those environments is replaced). ``other`` comes from the same engine."""
        ...

    def detach(self, env_ids: EnvIds) -> None:
        """Switch the welds of ``env_ids`` off (a detached one stays off)."""
        ...

    def forces(self) -> np.ndarray:
        """Force (num_envs, 3) each weld applied to its held object in the last step, world axes, N (0 where
        off): an object held still against gravity gets ``m·g`` upwards."""
        ...
