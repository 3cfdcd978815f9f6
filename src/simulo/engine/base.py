"""The engine interface: the only thing the simulation layer (:mod:`simulo.sim`) sees of a physics engine.

An engine holds ``num_envs`` environments (on PyBullet, split over several physics clients; on MuJoCo, one
model and many data). The simulation layer talks to it through three Protocols:

* :class:`Engine`: the batch of worlds; spawns planes, articulations and rigid bodies, steps, renders, casts
  rays, closes;
* :class:`ArticulationBatch`: one copy of an articulated robot per environment;
* :class:`RigidBatch`: one single-body rigid object per environment;
* :class:`WeldBatch`: welds that hold a rigid object to a robot link (a suction cup's grip).

Conventions every engine follows:

* arrays are float64 numpy arrays whose first axis is the environment (or a list ``env_ids`` of them);
* poses are ``[x, y, z, qw, qx, qy, qz]`` (w-first) of a link's URDF frame, not of its centre of mass;
  velocities are ``[vx, vy, vz, wx, wy, wz]`` of that frame's origin, world axes. An engine converts its own
  conventions in exactly one place;
* joints are the model's non-fixed joints in document order and are addressed by column ``0 .. J-1``;
  bodies are the root link followed by every other link in document order, addressed by index ``0 .. B-1``.
  Engine-internal indices never leave the engine.

Engines are chosen by name through :mod:`simulo.engine.registry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Protocol

import numpy as np

#: Environment indices: a list or an integer array of distinct indices, any order.
EnvIds = Sequence[int] | np.ndarray


class ControlMode(IntEnum):
    """How one joint of one environment is driven during a physics step.

    The values are stored in ``int8`` arrays of shape (num_envs, num_joints).
    """

    #: No drive: the joint moves freely (the engine's default motors are off).
    PASSIVE = 0
    #: The engine's own position motor, with its solver gains and force limit.
    POSITION_MOTOR = 1
    #: The engine's own velocity motor, with its velocity gain and force limit.
    VELOCITY_MOTOR = 2
    #: An explicit joint torque (or force), applied for one step.
    TORQUE = 3


@dataclass(frozen=True)
class JointInfo:
    """One joint of a model, as the engine loaded it.

    Attributes:
        name: Joint name from the model file.
        kind: ``"revolute"`` (continuous included), ``"prismatic"`` or ``"fixed"``; an engine that cannot
            drive a kind refuses the model when it is loaded.
        link_name: Name of the joint's child link (a body name).
        lower: Lower position limit (rad or m); ``lower > upper`` means unlimited.
        upper: Upper position limit.
        max_force: Effort limit from the model (N·m or N); ``<= 0`` means none given.
        max_velocity: Velocity limit from the model (rad/s or m/s).
    """

    name: str
    kind: str
    link_name: str
    lower: float
    upper: float
    max_force: float
    max_velocity: float


@dataclass(frozen=True)
class CameraFrames:
    """What :meth:`Engine.render_cameras` draws for E cameras.

    Attributes:
        rgb: Colour images (E, H, W, 3) uint8.
        depth: Distance to the image plane in metres (E, H, W) float32 (``inf`` where nothing was drawn), or
            ``None`` when not asked for.
        labels: Object labels (E, H, W) int32, or ``None`` when not asked for: ``k`` is the ``k``-th object the
            engine built (1-based, counting each ``add_plane``, ``add_heightfield``, ``add_articulation`` and
            ``add_rigid`` call once), 0 where nothing was drawn.
    """

    rgb: np.ndarray
    depth: np.ndarray | None
    labels: np.ndarray | None


@dataclass(frozen=True)
class RayHits:
    """What :meth:`Engine.cast_rays` finds for R rays.

    Attributes:
        fraction: Where each ray hit along its segment (R,), 0 at the start, 1 at the end; ``inf`` for a miss.
        position: World hit points (R, 3); ``inf`` for a miss.
        normal: World surface normals at the hits (R, 3); 0 for a miss.
        label: Object label of the hit (R,) int32 (see :class:`CameraFrames`), 0 for a miss.
    """

    fraction: np.ndarray
    position: np.ndarray
    normal: np.ndarray
    label: np.ndarray


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

    def read_base(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray,
                  env_ids: EnvIds | None = None) -> None:
        """Write the root pose and velocity into rows ``env_ids`` (all when ``None``) of the arrays."""
        ...

    def read_bodies(self, bodies: Sequence[int], env_ids: EnvIds, velocity: bool
                    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Poses (E, len(bodies), 7) and, if ``velocity``, velocities (E, len(bodies), 6) of non-root bodies."""
        ...

    # -- writes ----------------------------------------------------------------------------------
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


class Engine(Protocol):
    """The worlds of one simulation, holding ``num_envs`` environments."""

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        ...

    @property
    def num_worlds(self) -> int:
        """Number of engine worlds the environments are split over."""
        ...

    def add_plane(self, height: float, friction: float | None, restitution: float | None,
                  contact: tuple[float, float] | None = None) -> None:
        """Add a ground plane, shared by the environments of each world, with its surface at ``height``;
        ``contact`` is a soft contact's ``(stiffness N/m, damping N·s/m)``, ``None`` for the engine's own."""
        ...

    def add_heightfield(self, heights: np.ndarray, cell_size: float, pose: np.ndarray, friction: float | None,
                        restitution: float | None) -> None:
        """Add a static height field, shared by the environments of each world.

        Args:
            heights: Surface heights (rows, cols) in m; row ``r`` lies along +y, column ``c`` along +x.
            cell_size: Distance between neighbouring samples in m.
            pose: World pose ``[x, y, z, qw, qx, qy, qz]`` of the field's centre at height 0.
            friction: Friction coefficient, or ``None`` for the engine default.
            restitution: Restitution, or ``None`` for the engine default.
        """
        ...

    def gravity(self) -> np.ndarray:
        """Gravity of every environment (num_envs, 3) in m/s²."""
        ...

    def set_gravity(self, env_ids: EnvIds, gravity: np.ndarray) -> None:
        """Set the gravity (len(env_ids), 3) of the environments ``env_ids``.

        Raises:
            SimuloValueError: The engine keeps one gravity per world and the request would leave two values in
                one world (checked before anything changes).
        """
        ...

    def add_articulation(self, path: Path, poses: np.ndarray, fixed_base: bool, scale: float = 1.0,
                         self_collision: bool = False, inertia_from_file: bool = True) -> ArticulationBatch:
        """Load one copy of a URDF per environment at root-link poses (num_envs, 7).

        ``inertia_from_file`` takes each link's inertia from its ``<inertia>`` (as urdfdom, Isaac Lab's importer
        and MuJoCo do); False lets the engine compute it from the collision shapes where it can (PyBullet's
        default).

        Raises:
            AssetError: The model has joints this engine cannot drive.
        """
        ...

    def add_rigid(self, kind: str, dims: Sequence[float], mass: float, poses: np.ndarray,
                  color: Sequence[float] | None = None) -> RigidBatch:
        """Create one single-body shape per environment: ``box`` (half extents), ``sphere`` (radius),
        ``cylinder`` (radius, height) or ``cone`` (radius, height; apex up, centred on its axis at mid-height);
        ``mass`` 0 makes it static; a visual shape only when ``color`` is given."""
        ...

    def add_welds(self, articulation: ArticulationBatch, body: int) -> WeldBatch:
        """Prepare one weld per environment from body ``body`` of ``articulation`` (made by this engine) to a rigid
        object, all off (a suction gripper's; see :class:`WeldBatch`). Called while the scene is built."""
        ...

    def render(self, env: int, width: int, height: int, eye: Sequence[float], target: Sequence[float]) -> np.ndarray:
        """RGB image (height, width, 3) uint8 of environment ``env``'s world, camera in world coordinates."""
        ...

    def render_cameras(self, env_ids: EnvIds, poses: np.ndarray, width: int, height: int, fov_y_deg: float,
                       near: float, far: float, *, depth: bool, labels: bool, isolate: bool) -> CameraFrames:
        """Draw one image per entry of ``env_ids`` (repeats allowed) from camera ``poses`` (E, 7) in world coordinates.

        A camera pose's x axis is its viewing direction and its z axis its up direction. The projection is a
        pinhole with square pixels: vertical field of view ``fov_y_deg``, clipping planes ``near`` and ``far``
        (m). With ``isolate`` each image shows only its own environment's objects and the shared terrain;
        otherwise everything in that environment's world.
        """
        ...

    def cast_rays(self, env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, terrain_only: bool) -> RayHits:
        """Cast R straight rays from ``starts`` to ``ends`` (R, 3) world coordinates; ray ``r`` belongs to
        environment ``env_ids[r]`` (R,) and hits only that environment's objects and the shared terrain (only the
        terrain when ``terrain_only``)."""
        ...

    def step(self) -> None:
        """Advance every world by one time step."""
        ...

    def close(self) -> None:
        """Release the worlds; a second call does nothing."""
        ...


class EngineFactory(Protocol):
    """What the registry holds for an engine: a callable that builds it, plus its batching bounds.

    An engine class with class attributes ``default_envs_per_world`` and ``max_envs_per_world`` and this
    constructor signature is a factory.
    """

    @property
    def default_envs_per_world(self) -> int:
        """Environments per world when the simulation does not say (chosen by benchmark)."""
        ...

    @property
    def max_envs_per_world(self) -> int:
        """Largest number of environments one world may hold."""
        ...

    def __call__(self, num_envs: int, dt: float, gravity: Sequence[float], envs_per_world: int,
                 solver_iterations: int | None) -> Engine:
        """Build the engine for ``num_envs`` environments stepping by ``dt`` seconds."""
        ...
