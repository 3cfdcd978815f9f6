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

Engines are chosen by name through :mod:`simulo.engine.registry`. The batch Protocols live in
:mod:`simulo.engine.batches` and the value types in :mod:`simulo.engine.values`; this module is where every
layer imports them from.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from simulo.engine.batches import ArticulationBatch, RigidBatch, WeldBatch
from simulo.engine.values import CameraFrames, ControlMode, EnvIds, JointInfo, RayHits

__all__ = ["ArticulationBatch", "CameraFrames", "ControlMode", "Engine", "EngineFactory", "EnvIds", "JointInfo",
           "RayHits", "RigidBatch", "WeldBatch"]

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

    def add_articulation(self, path: str | os.PathLike[str], poses: np.ndarray, fixed_base: bool, scale: float = 1.0,
                         self_collision: bool = False, inertia_from_file: bool = True,
                         drawn_envs: int | None = None) -> ArticulationBatch:
        """Load one copy of a URDF file (``path``) per environment at root-link poses (num_envs, 7).

        ``inertia_from_file`` takes each link's inertia from its ``<inertia>`` (as urdfdom, Isaac Lab's importer
        and MuJoCo do); False lets the engine compute it from the collision shapes where it can (PyBullet's
        default). ``drawn_envs`` k: only the copies of environments 0..k-1 need their ``<visual>`` shapes (the
        others are never drawn, and an engine may leave them out); None: every copy's. The physics is the same
        either way.

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

    An engine class with class attributes ``default_envs_per_world``, ``max_envs_per_world``, ``friction_rule`` and
    ``default_solver_iterations`` and this constructor signature is a factory.
    """

    @property
    def default_envs_per_world(self) -> int:
        """Environments per world when the simulation does not say (chosen by benchmark)."""
        ...

    @property
    def max_envs_per_world(self) -> int:
        """Largest number of environments one world may hold."""
        ...

    @property
    def friction_rule(self) -> str:
        """How the engine combines two touching shapes' friction coefficients: ``"multiply"`` or ``"max"``."""
        ...

    @property
    def default_solver_iterations(self) -> int:
        """The constraint solver's iterations when the simulation does not name them."""
        ...

    def __call__(self, num_envs: int, dt: float, gravity: Sequence[float], envs_per_world: int,
                 solver_iterations: int | None) -> Engine:
        """Build the engine for ``num_envs`` environments stepping by ``dt`` seconds."""
        ...
