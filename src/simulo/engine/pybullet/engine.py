"""``PyBulletEngine``: a batch of environments over several PyBullet worlds.

A batch of ``num_envs`` environments is split over worlds (DIRECT clients) holding at most
``envs_per_world`` environments each: environment ``i`` lives in world ``i // envs_per_world``, always
with the same neighbours for a given layout, so results repeat exactly (environments that share a client are
not independent bit for bit; see docs/architecture.md, Determinism).

Everything here works on numpy arrays indexed by environment; the simulation layer never sees a
PyBullet id. It reaches this engine only through :mod:`simulo.engine.registry` (name ``"pybullet"``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from simulo.authoring.checked_urdf import checked_model
from simulo.engine.base import ArticulationBatch, CameraFrames, Engine, EngineFactory, EnvIds, RayHits, RigidBatch
from simulo.engine.pybullet.articulation import PyBulletArticulationBatch
from simulo.engine.pybullet.layout import WorldLayout
from simulo.engine.pybullet.rigid import PyBulletRigidBatch
from simulo.engine.pybullet.sensing import SceneSensing
from simulo.engine.pybullet.world import PyBulletWorld
from simulo.errors import SimuloValueError

#: Default bound on environments per world, chosen with benchmarks/robot_throughput.py.
DEFAULT_ENVS_PER_WORLD = 16

#: Largest bound: environments sharing a world are kept apart with one collision-filter bit each
#: (:mod:`.layout`).
MAX_ENVS_PER_WORLD = 28


class PyBulletEngine:
    """The PyBullet worlds of one simulation (implements :class:`simulo.engine.base.Engine`).

    The worlds and the bodies built in them are kept in a :class:`~simulo.engine.pybullet.layout.WorldLayout`;
    cameras and rays are a :class:`~simulo.engine.pybullet.sensing.SceneSensing` over that layout.

    Args:
        num_envs: Number of environments.
        dt: Physics time step in seconds.
        gravity: Gravity vector in m/s².
        envs_per_world: Largest number of environments sharing one PyBullet client.
        solver_iterations: PyBullet ``numSolverIterations`` for every world, or ``None``.

    Raises:
        SimuloValueError: ``envs_per_world`` is outside ``1 .. MAX_ENVS_PER_WORLD``.
    """

    default_envs_per_world: ClassVar[int] = DEFAULT_ENVS_PER_WORLD
    max_envs_per_world: ClassVar[int] = MAX_ENVS_PER_WORLD
    # Bullet multiplies two shapes' friction coefficients; 50 is PyBullet's own numSolverIterations
    friction_rule: ClassVar[str] = "multiply"
    default_solver_iterations: ClassVar[int] = 50

    def __init__(self, num_envs: int, dt: float, gravity: Sequence[float] = (0.0, 0.0, -9.81),
                 envs_per_world: int = DEFAULT_ENVS_PER_WORLD, solver_iterations: int | None = None) -> None:
        if not 1 <= envs_per_world <= MAX_ENVS_PER_WORLD:
            raise SimuloValueError(f"envs_per_world must be between 1 and {MAX_ENVS_PER_WORLD}, got {envs_per_world}")
        n_worlds = -(-num_envs // envs_per_world)
        #: the worlds, which environment each holds, and every object built in them
        self.layout = WorldLayout(num_envs, envs_per_world,
                                  [PyBulletWorld(dt, gravity, solver_iterations) for _ in range(n_worlds)])
        self._steppers = [world.stepper for world in self.layout.worlds]
        self._sensing = SceneSensing(self.layout)

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return self.layout.num_envs

    @property
    def env_world(self) -> list[PyBulletWorld]:
        """The PyBullet client of each environment."""
        return self.layout.env_world

    @property
    def num_worlds(self) -> int:
        """Number of PyBullet clients."""
        return len(self.layout.worlds)

    def add_plane(self, height: float, friction: float | None, restitution: float | None,
                  contact: tuple[float, float] | None = None) -> None:
        """Add a ground plane to every world (``contact``: PyBullet's contact stiffness and damping)."""
        self.layout.add_terrain([(world, world.add_plane(height, friction, restitution, contact))
                                 for world in self.layout.worlds])

    def add_heightfield(self, heights: np.ndarray, cell_size: float, pose: np.ndarray, friction: float | None,
                        restitution: float | None) -> None:
        """Add the same static height field to every world."""
        self.layout.add_terrain([(world, world.add_heightfield(heights, cell_size, pose[:3].tolist(), pose[3:],
                                                               friction, restitution))
                                 for world in self.layout.worlds])

    def gravity(self) -> np.ndarray:
        """Gravity of every environment (num_envs, 3): its world's."""
        return np.array([world.gravity for world in self.layout.env_world], dtype=np.float64)

    def set_gravity(self, env_ids: EnvIds, gravity: np.ndarray) -> None:
        """Set the gravity of ``env_ids``; PyBullet keeps one gravity per world (client).

        Raises:
            SimuloValueError: The request would leave two gravities in one world: environments that share a
                world (``envs_per_world > 1``) must be given the same value together.
        """
        per = self.layout.envs_per_world
        wanted = self.gravity()
        wanted[np.asarray(env_ids, dtype=np.int64)] = gravity
        for w in range(len(self.layout.worlds)):
            rows = wanted[w * per:(w + 1) * per]
            if not (rows == rows[0]).all():
                first = w * per
                raise SimuloValueError(
                    f"the PyBullet engine keeps one gravity per world, and environments {first}.."
                    f"{first + len(rows) - 1} share world {w}; give them all the same gravity, or build the "
                    f"simulation with envs_per_world=1 (asked for {np.unique(rows, axis=0).tolist()})")
        for w, world in enumerate(self.layout.worlds):
            g = wanted[w * per]
            if tuple(float(v) for v in g) != world.gravity:
                world.set_gravity(g.tolist())

    def add_articulation(self, path: str | os.PathLike[str], poses: np.ndarray, fixed_base: bool, scale: float = 1.0,
                         self_collision: bool = False, inertia_from_file: bool = True,
                         drawn_envs: int | None = None) -> PyBulletArticulationBatch:
        """Load one copy of a URDF per environment at ``poses`` (num_envs, 7), link-frame poses.

        The copies of environments from ``drawn_envs`` on are loaded with ``URDF_IGNORE_VISUAL_SHAPES``: PyBullet's
        renderer keeps its own copy of every visual mesh of every body, about 48 MB for each of pybullet_data's
        Pandas.

        Joint columns and bodies follow the file's document order (see
        :class:`~simulo.engine.pybullet.articulation.PyBulletArticulationBatch`). With ``inertia_from_file``
        each link's inertia diagonal is the file's (:func:`~simulo.engine.pybullet.urdf_file.file_inertias`),
        else PyBullet's recomputation from the collision shapes.
        """
        handles = []
        inertias: dict[str, tuple[float, float, float]] = {}
        if inertia_from_file:
            from simulo.engine.pybullet.urdf_file import file_inertias  # noqa: PLC0415 (the file is read only here)

            inertias = file_inertias(path)
        # (PyBullet link index, diagonal) of each link to set: the same for every copy, found on the first
        overrides: list[tuple[int, tuple[float, float, float]]] | None = None
        for i in range(self.num_envs):
            world = self.layout.env_world[i]
            body = world.load_urdf(path, poses[i, :3], poses[i, 3:], fixed_base, scale, self_collision,
                                   drawn_envs is None or i < drawn_envs)
            if overrides is None:
                # the file's inertias; globalScaling keeps the masses and scales lengths, so inertia by scale²
                links = {world.base_link_name(body): -1, **{j.link_name: k for k, j in enumerate(world.joints(body))}
                         } if inertias else {}
                overrides = [(links[name], (d[0] * scale**2, d[1] * scale**2, d[2] * scale**2))
                             for name, d in inertias.items() if name in links]
            for link, diagonal in overrides:
                world.set_dynamics(body, link, inertia_diagonal=diagonal)
            self.layout.isolate(i, body)
            handles.append((world, body))
        batch = PyBulletArticulationBatch(handles, fixed_base, _document_order(path))
        self.layout.add_env_object(batch.handles)
        return batch

    def add_rigid(self, kind: str, dims: Sequence[float], mass: float, poses: np.ndarray,
                  color: Sequence[float] | None = None) -> PyBulletRigidBatch:
        """Create one single-body shape per environment (``mass`` 0: static)."""
        handles = []
        for i in range(self.num_envs):
            world = self.layout.env_world[i]
            body = world.add_shape(kind, dims, mass, poses[i, :3], poses[i, 3:], color)
            self.layout.isolate(i, body)
            handles.append((world, body))
        batch = PyBulletRigidBatch(handles, kind, dims, color, self.layout.isolate)
        self.layout.add_env_object(batch.handles)  # the batch's own list: a rebuilt body replaces its entry
        return batch

    def add_welds(self, articulation: ArticulationBatch, body: int) -> PyBulletWeldBatch:
        """One ``JOINT_FIXED`` weld per environment from body ``body`` of ``articulation`` (see :mod:`.grasp`).

        Raises:
            SimuloValueError: ``articulation`` does not come from the PyBullet engine.
        """
        from simulo.engine.pybullet.grasp import PyBulletWeldBatch  # noqa: PLC0415 (only a surface gripper welds)

        if not isinstance(articulation, PyBulletArticulationBatch):
            raise SimuloValueError(f"PyBullet welds start from a PyBullet robot, got {type(articulation).__name__}")
        return PyBulletWeldBatch(articulation, body)

    def render(self, env: int, width: int, height: int, eye: Sequence[float], target: Sequence[float]) -> np.ndarray:
        """RGB image (height, width, 3) of the world holding environment ``env`` (world coordinates)."""
        return self.layout.env_world[env].sensing.render(width, height, eye, target)

    def render_cameras(self, env_ids: EnvIds, poses: np.ndarray, width: int, height: int, fov_y_deg: float,
                       near: float, far: float, *, depth: bool, labels: bool, isolate: bool) -> CameraFrames:
        """TinyRenderer images of cameras in the worlds of ``env_ids`` (see :mod:`.sensing`)."""
        return self._sensing.render_cameras(env_ids, poses, width, height, fov_y_deg, near, far, depth=depth,
                                            labels=labels, isolate=isolate)

    def cast_rays(self, env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, terrain_only: bool) -> RayHits:
        """``rayTestBatch`` per world, each environment's rays filtered to its own bodies (see :mod:`.sensing`)."""
        return self._sensing.cast_rays(env_ids, starts, ends, terrain_only)

    def step(self) -> None:
        """Advance every world by one time step."""
        for step in self._steppers:
            step()

    def close(self) -> None:
        """Disconnect every world."""
        for world in self.layout.worlds:
            world.close()


def _document_order(path: str | os.PathLike[str]) -> tuple[list[str], list[str]] | None:
    """Link and joint names of a URDF file in document order: the checked model's when this process checked the
    file as it now reads (:func:`~simulo.authoring.checked_urdf.checked_model`), else the file's own, parsed
    (:func:`~simulo.engine.pybullet.urdf_file.document_order`)."""
    model = checked_model(path)
    if model is None:
        from simulo.engine.pybullet.urdf_file import document_order  # noqa: PLC0415 (only for a file not checked here)

        return document_order(path)
    return list(model.links), list(model.joint_names)


if TYPE_CHECKING:  # the classes satisfy the engine Protocols (checked by mypy, free at run time)
    from simulo.engine.base import WeldBatch
    from simulo.engine.pybullet.grasp import PyBulletWeldBatch

    _factory: EngineFactory = PyBulletEngine
    _engine: type[Engine] = PyBulletEngine
    _articulation: type[ArticulationBatch] = PyBulletArticulationBatch
    _rigid: type[RigidBatch] = PyBulletRigidBatch
    _welds: type[WeldBatch] = PyBulletWeldBatch
