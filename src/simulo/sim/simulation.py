"""``simulo.Simulation``: builds a scene in the physics engine and steps it.

Scripted apps use it directly::

    scene = simulo.Scene(num_envs=4)
    scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene, dt=1 / 240) as sim:
        robot.set_joint_position_target(...)
        sim.step(240)

Learning apps get the same object from :class:`simulo.LearningEnv`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from simulo.authoring.pose import Pose
from simulo.authoring.world import GroundPlane, RoughTerrain
from simulo.checks import check_int, check_num_envs, is_int, is_real
from simulo.engine.registry import create_engine, default_engine, engine_factory
from simulo.errors import NotAttachedError, SceneError, SimuloValueError
from simulo.math.batched import pose_mul
from simulo.sim import model_physics
from simulo.sim.geometry import engine_geometry, surface_of
from simulo.sim.hooks import ActuatorContext, connect_actuators, reset_each
from simulo.sim.prop import Prop
from simulo.sim.robot import Robot
from simulo.sim.scene import Scene
from simulo.sim.sensors.attach import attach_sensors, detach_sensors, has_cameras
from simulo.sim.tensors import Tensors
from simulo.sim.variants import VariantBatch, VariantProp

#: Most physics steps one ``step(n)`` call takes: a day of simulated time at 1 kHz (a bigger n is a typo or an
#: overflow, and would hold the process for days).
MAX_STEPS_PER_CALL = 10**8

#: Without ``visuals=True``, environments 0..DRAWN_ENVS-1 keep their robots' visual shapes (for :meth:`render`
#: and videos) and the others leave them out: PyBullet keeps a renderer copy of every visual mesh of every body
#: (about 48 MB for a Panda), which thousands of training environments would otherwise pay for.
DRAWN_ENVS = 16


def grid_origins(num_envs: int, spacing: float) -> np.ndarray:
    """Environment origins on a grid, (num_envs, 3); environment 0 at the world origin."""
    cols = max(1, math.ceil(math.sqrt(num_envs)))
    idx = np.arange(num_envs)
    rows, col = np.divmod(idx, cols)
    return np.stack([rows * spacing, col * spacing, np.zeros(num_envs)], axis=1).astype(np.float64)


def compose(parent: Pose, child: Pose) -> Pose:
    """The pose ``parent * child`` (child expressed in the parent's frame)."""
    if parent.is_identity:
        return child
    pose = pose_mul(np.array([*parent.xyz, *parent.quat_wxyz]), np.array([*child.xyz, *child.quat_wxyz]))
    return Pose(pose[:3].tolist(), pose[3:].tolist())


class Simulation:
    """A scene built in a physics engine (PyBullet in DIRECT mode by default), batched over ``num_envs`` environments.

    Args:
        scene: The scene to build. It is attached to this simulation until :meth:`close`.
        dt: Physics time step, s (PyBullet's default 1/240).
        num_envs: Overrides ``scene.num_envs`` when given.
        gravity: Gravity vector, m/s².
        envs_per_world: Largest number of environments sharing one engine world (PyBullet client); ``None``
            takes the engine's benchmarked default (1 for a scene with a camera). Environment ``i`` always lives in
            world ``i // envs_per_world``.
        use_torch: Return float32 torch tensors instead of float64 numpy arrays. The library is chosen here,
            once: inputs may be numpy arrays or torch tensors either way, and outputs never switch library.
        solver_iterations: Constraint-solver iterations, or ``None`` for the engine's default.
        shard: ``(first_env, total_envs)`` when this simulation holds environments
            ``first_env .. first_env + num_envs - 1`` of a larger batch split over processes: origins and
            world membership are those of the global indices, so a shard computes exactly what the same
            environments compute in one process. ``first_env`` must be a multiple of ``envs_per_world``.
        visuals: Load drawable models for :meth:`render`: robots get a visual copy of each collision shape
            and props/fixtures without a colour get a default one, in every environment. Without it, only
            the first :data:`DRAWN_ENVS` environments keep the robots' own visual shapes. Visual shapes do not
            change the physics. A scene with a camera always loads them.
        engine: Name of the physics engine (see :func:`simulo.engine.registry.available_engines`); ``None``:
            the ``SIMULO_ENGINE`` environment variable's, else ``"pybullet"``.

    Attributes:
        engine_name: The engine the scene was built in.

    Raises:
        SceneError: The scene is already simulated, or an item cannot be built.
        SimuloValueError: A bad ``dt``, ``gravity``, ``solver_iterations`` or ``envs_per_world``.
        UnknownEngineError: ``engine`` is not a registered engine name (a ``SimuloValueError``).
    """

    def __init__(self, scene: Scene, dt: float = 1.0 / 240.0, num_envs: int | None = None,
                 gravity: Sequence[float] = (0.0, 0.0, -9.81), envs_per_world: int | None = None,
                 use_torch: bool = False, solver_iterations: int | None = None,
                 shard: tuple[int, int] | None = None, visuals: bool = False, engine: str | None = None) -> None:
        if not isinstance(scene, Scene):
            raise SceneError(f"Simulation needs a simulo.Scene, got {scene!r}")
        if scene.runtime_simulation is not None:
            raise SceneError("this scene is already attached to a Simulation; close that one first")
        if num_envs is not None:  # bounded by memory before anything is built
            check_num_envs(num_envs, "num_envs", error=SceneError)
        for flag, value in (("use_torch", use_torch), ("visuals", visuals)):
            if not isinstance(value, (bool, np.bool_)):
                raise SimuloValueError(f"Simulation {flag} must be True or False, got {value!r}")
        if not is_real(dt, 0, 1.0, low_open=True):
            raise SimuloValueError(f"dt must be a finite number of seconds > 0 (at most 1), got {dt!r}")
        if solver_iterations is not None and not is_int(solver_iterations, 1, 10_000):  # docs/limits.md
            raise SimuloValueError(f"solver_iterations must be an integer from 1 to 10000, or None, "
                                   f"got {solver_iterations!r}")
        given: tuple[Any, ...] = (tuple(gravity) if hasattr(gravity, "__iter__") and not isinstance(gravity, str)
                                  else (gravity,))
        if len(given) != 3 or not all(isinstance(g, numbers.Real) and not isinstance(g, bool) and math.isfinite(g)
                                      and -1e6 <= float(g) <= 1e6 for g in given):
            raise SimuloValueError(f"gravity must be three finite numbers (m/s², at most 1e6), got {given!r}")
        engine = default_engine() if engine is None else engine
        factory = engine_factory(engine)
        max_per_world = factory.max_envs_per_world
        self._friction_rule = factory.friction_rule
        robots = [entry.item for entry in scene.items_of("robot")]
        solver_iterations = model_physics.solver_iterations(robots, solver_iterations,
                                                            factory.default_solver_iterations)
        if envs_per_world is not None and not is_int(envs_per_world, 1, max_per_world):
            raise SimuloValueError(f"envs_per_world must be an integer from 1 to {max_per_world}, "
                                   f"got {envs_per_world!r}")
        old_num_envs = scene.num_envs
        if num_envs is not None:
            scene.num_envs = num_envs
        try:  # nothing half-applied: a refused override leaves the scene's num_envs as it was
            scene.runtime_check_layout()
            shared = [e.path for e in scene.items_of("robot") + scene.items_of("prop") if not e.per_environment]
            if shared and scene.num_envs > 1:
                raise SceneError(f"shared (per_environment=False) robots/props {shared} need num_envs == 1, "
                                 f"got {scene.num_envs}")
            # cameras draw fastest in a world per environment (benchmarks/cameras.py): nothing to hide
            per_world = envs_per_world or (1 if has_cameras(scene) else factory.default_envs_per_world)
            if shard is not None and (not isinstance(shard, (tuple, list)) or len(shard) != 2):
                raise SceneError(f"shard must be (first_env, total_envs), got {shard!r}")
            first, total = (0, scene.num_envs) if shard is None else shard
            if (not is_int(first, 0) or not isinstance(total, int) or first + scene.num_envs > total
                    or first % per_world):
                raise SceneError(f"shard {shard!r} must be (first_env, total_envs) with first_env a multiple of "
                                 f"envs_per_world={per_world} and first_env + num_envs ({scene.num_envs}) <= "
                                 "total_envs")
        except SceneError:
            scene.num_envs = old_num_envs
            raise
        self.shard = (first, total)
        self.visuals = bool(visuals) or has_cameras(scene)  # a camera needs something to draw
        #: without visuals, only the first DRAWN_ENVS environments keep their robots' visual shapes
        self._drawn_envs = None if self.visuals else min(DRAWN_ENVS, scene.num_envs)
        self.scene = scene
        self.dt = float(dt)
        self.num_envs = scene.num_envs
        self.tensors = Tensors(use_torch)
        self.step_count = 0
        self._closed = False
        self.engine_name = engine
        self._engine = create_engine(engine, self.num_envs, self.dt, given, per_world, solver_iterations)
        self._origins = grid_origins(total, float(scene.env_spacing))[first:first + self.num_envs].copy()
        self._robots: list[Robot] = []
        self._props: list[Prop] = []
        scene.runtime_attach(self)
        try:
            self._build()
        except BaseException:
            self.close()
            scene.num_envs = old_num_envs
            raise
        scene.runtime_set_origins(self.tensors.out(self._origins))
        attach_sensors(self, self._engine)
        try:
            actuators = [actuator for robot in self._robots for actuator in robot.actuators]
            self._stepped = connect_actuators(actuators, ActuatorContext(self._engine, tuple(self._props),
                                                                         self.tensors, lambda: self.time))
        except BaseException:
            self.close()
            scene.num_envs = old_num_envs
            raise
        #: what flushes commands before every physics step, taken once (the scene is frozen while attached)
        self._flushed = scene.runtime_flushed()

    # -- building ----------------------------------------------------------------------------------
    def _world_poses(self, local: Pose, path: str, per_environment: bool) -> np.ndarray:
        pose = compose(self.scene.offset_of(path), local)
        rows = np.tile(np.array(pose.to_list()), (self.num_envs, 1))
        if per_environment:
            rows[:, :3] += self._origins
        return rows

    def _build(self) -> None:
        for entry in self.scene.get_items():
            item, path, kind, per_env = entry["item"], entry["path"], entry["kind"], entry["per_environment"]
            if kind == "terrain":
                self._build_terrain(item, path)
            elif kind == "robot":
                self._build_robot(item, path, per_env)
            elif kind == "prop" and isinstance(item, VariantProp):
                self._build_variants(item, path, per_env)
            elif kind == "prop":
                kind_name, dims = engine_geometry(item.shape)
                poses = self._world_poses(item.shape.pose, path, per_env)
                batch = self._engine.add_rigid(kind_name, dims, item.shape.physics.mass, poses, self._color(item.shape))
                self._props.append(item)
                item.runtime_attach(batch, self.tensors, poses)
            elif kind == "fixture":
                kind_name, dims = engine_geometry(item)
                fixture = self._engine.add_rigid(kind_name, dims, 0.0, self._world_poses(item.pose, path, per_env),
                                                 self._color(item))
                friction, restitution = surface_of(item)
                if friction is not None or restitution is not None:
                    fixture.set_surface(range(self.num_envs),
                                        None if friction is None else np.full(self.num_envs, friction),
                                        None if restitution is None else np.full(self.num_envs, restitution))

    def _build_terrain(self, terrain: Any, path: str) -> None:
        pose = compose(self.scene.offset_of(path), terrain.pose)
        if isinstance(terrain, RoughTerrain):
            from simulo.sim.terrain import heightfield  # noqa: PLC0415 - numpy.random only for rough terrain

            heights, scale = heightfield(terrain)
            self._engine.add_heightfield(heights, scale, np.array(pose.to_list()), terrain.friction, None)
            return
        if not isinstance(terrain, GroundPlane):
            raise SceneError(f"terrain {type(terrain).__name__} at {path!r} is not available on the "
                             f"{self.engine_name!r} engine; use Terrain.plane() or Terrain.rough()")
        if not np.allclose(pose.quat_wxyz, (1.0, 0.0, 0.0, 0.0)):
            raise SceneError(f"ground plane {path!r} is tilted ({pose.quat_wxyz}); the plane's pose sets its height "
                             "only")
        if terrain.contact_gap is not None:
            raise SceneError(f"ground plane {path!r}: contact_gap is not available on the {self.engine_name!r} "
                             "engine")
        if (terrain.contact_stiffness is None) != (terrain.contact_damping is None):
            raise SceneError(f"ground plane {path!r}: give contact_stiffness and contact_damping together (the "
                             "engine's soft contact needs both)")
        stiffness, damping = terrain.contact_stiffness, terrain.contact_damping
        contact = None if stiffness is None or damping is None else (float(stiffness), float(damping))
        self._engine.add_plane(pose.xyz[2], terrain.friction, terrain.restitution, contact=contact)

    def _build_variants(self, prop: VariantProp, path: str, per_env: bool) -> None:
        poses = self._world_poses(prop.shape.pose, path, per_env)
        batches = []
        for option in prop.options:
            kind_name, dims = engine_geometry(option)
            physics = option.physics or prop.shape.physics
            assert physics is not None  # a Prop has physics
            batch = self._engine.add_rigid(kind_name, dims, physics.mass, poses, self._color(option))
            friction, restitution = surface_of(option)
            if friction is not None:
                batch.set_friction(friction)
            if restitution is not None:
                batch.set_surface(range(self.num_envs), None, np.full(self.num_envs, restitution))
            batches.append(batch)
        self._props.append(prop)
        prop.runtime_attach_variants(VariantBatch(batches, prop.initial_variants(self.num_envs)), self.tensors,
                                     poses)

    def _open(self, member: str) -> None:
        if self._closed:
            raise NotAttachedError(f"Simulation.{member}: this simulation is closed (build a new "
                                   "simulo.Simulation(scene) to simulate the scene again)")

    def set_gravity(self, values: Any, env_ids: Any = None) -> None:
        """Set world-frame gravity (len(env_ids), 3) in m/s² for ``env_ids`` (all by default); the engine may
        keep one gravity per world (PyBullet: ``envs_per_world=1`` gives every environment its own).

        Raises:
            ShapeError, NonFiniteError: Bad values. SimuloValueError: Two gravities asked for in one world.
        """
        self._open("set_gravity")
        ids = self.tensors.env_ids(env_ids, self.num_envs)
        gravity = self.tensors.floats(values, (len(ids), 3), "gravity")
        self._engine.set_gravity(ids, gravity)

    @property
    def gravity(self) -> Any:
        """Gravity of every environment (num_envs, 3) in m/s²; a copy."""
        self._open("gravity")
        return self.tensors.out(self._engine.gravity())

    def _color(self, shape: Any) -> tuple[float, float, float] | None:
        if shape.color is None and self.visuals:
            return (0.2, 0.6, 0.3) if shape.physics is not None else (0.6, 0.5, 0.4)
        return shape.color

    def _build_robot(self, robot: Robot, path: str, per_env: bool) -> None:
        floating = [j.name for j in robot.asset.model.joints if j.type == "floating"]
        if floating:  # an engine would load it as a fixed joint: refused rather than silently bolted
            raise SceneError(f"robot {path!r}: joints {floating} are floating; simulo-local drives revolute, "
                             "continuous, prismatic and fixed joints (a free root is "
                             "ArticulationConfig(fix_root_link=False), not a floating joint)")
        asset = robot.asset.with_collision_visuals() if self.visuals else robot.asset
        local = robot.initial_pose
        if local.is_identity and asset.spawn_pose is not None:
            local = asset.spawn_pose
        poses = self._world_poses(local, path, per_env)
        fixed = robot.articulation.fix_root_link
        if fixed is None:
            fixed = bool(asset.fixed_base)
        fixed = fixed or robot.visual_only
        self_collision = robot.articulation.enable_self_collision
        if self_collision is None:
            self_collision = asset.physics.self_collision
        batch = self._engine.add_articulation(asset.urdf_file(), poses, fixed, robot.scale[0], bool(self_collision),
                                              inertia_from_file=asset.inertia_from_file, drawn_envs=self._drawn_envs)
        model_physics.apply_surfaces(batch, robot, self._friction_rule)
        self._robots.append(robot)  # listed first, so that close() detaches it if attaching fails half-way
        robot.runtime_attach(batch, self.tensors, poses, self._origins if per_env else None, self.dt)

    # -- running -----------------------------------------------------------------------------------
    @property
    def time(self) -> float:
        """Simulated time in seconds."""
        return self.step_count * self.dt

    @property
    def env_origins(self) -> Any:
        """Environment origins (num_envs, 3)."""
        return self.tensors.out(self._origins)

    @property
    def worlds(self) -> int:
        """Number of engine worlds (PyBullet clients) the environments are split over."""
        self._open("worlds")
        return self._engine.num_worlds

    def check_drawn(self, env: int) -> None:
        """Check that environment ``env`` carries its robots' visual shapes, as :meth:`render` needs.

        Raises:
            SimuloValueError: It does not (only the first :data:`DRAWN_ENVS` do without ``visuals=True``).
        """
        if self._drawn_envs is not None and env >= self._drawn_envs:
            raise SimuloValueError(f"render env {env}: without visuals=True only environments 0..{self._drawn_envs - 1}"
                                   " carry visual shapes; build simulo.Simulation(scene, visuals=True) to draw any")

    def render(self, env: int = 0, width: int = 320, height: int = 240,
               eye: Sequence[float] = (1.1, -0.9, 0.7), target: Sequence[float] = (0.3, 0.1, 0.1)) -> np.ndarray:
        """Draw environment ``env`` from a camera at ``eye`` looking at ``target`` (relative to its origin).

        Returns RGB (height, width, 3) uint8 from the engine's CPU renderer. Robots are drawn with their own
        visual shapes; ``visuals=True`` also gives each collision shape a visual copy. Without ``visuals=True``
        only the first :data:`DRAWN_ENVS` environments carry visual shapes.

        Raises:
            SimuloValueError: A bad argument, or ``env`` is not drawn (the message says how to draw it).
        """
        self._open("render")
        if not is_int(env):
            raise SimuloValueError(f"render env must be an environment index, got {env!r}")
        ids = self.tensors.env_ids([env], self.num_envs)
        self.check_drawn(env)
        for name, size in (("width", width), ("height", height)):
            if not is_int(size, 8, 4096):
                raise SimuloValueError(f"render {name} must be an integer pixel count in 8..4096, got {size!r}")
        points = []
        for name, value in (("eye", eye), ("target", target)):
            point: np.ndarray | None
            try:
                point = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                point = None
            if point is None or point.shape != (3,) or not np.isfinite(point).all():
                raise SimuloValueError(f"render {name} must be three finite numbers (x, y, z in m), got {value!r}")
            points.append(point)
        origin = self._origins[int(ids[0])]
        return self._engine.render(int(ids[0]), width, height, (points[0] + origin).tolist(),
                                   (points[1] + origin).tolist())

    def step(self, n: int = 1) -> None:
        """Advance ``n`` physics steps: flush commands, step every world, refresh every state buffer."""
        if self._closed:
            self._open("step")
        if type(n) is not int or not 0 <= n <= MAX_STEPS_PER_CALL:  # the common case needs no call
            check_int(n, "step count", 0, MAX_STEPS_PER_CALL)
        flushed, robots, props, stepped, dt = self._flushed, self._robots, self._props, self._stepped, self.dt
        for _ in range(n):
            for member in flushed:
                member.runtime_flush()
            self._engine.step()
            self.step_count += 1
            for robot in robots:
                robot.update(dt)
            for prop in props:
                prop.update(dt)
            for actuator in stepped:
                actuator.runtime_step(dt)

    def reset(self) -> None:
        """Reset every robot and prop to its default state (sim time keeps running); grippers let go."""
        self._open("reset")
        self._reset_actuators(np.arange(self.num_envs))
        self.scene.reset()

    def runtime_reset_envs(self, env_ids: np.ndarray) -> None:
        """Reset the robots' actuators in the environments ``env_ids`` (local indices): a surface gripper lets go
        (runtime hook: an environment's reset calls it before the task's ``reset_idx``)."""
        self._reset_actuators(env_ids)

    def _reset_actuators(self, env_ids: np.ndarray) -> None:
        """Call the ``runtime_reset`` hook of every robot's actuators that has one, in robot and attachment order."""
        for robot in self._robots:
            reset_each(robot.actuators, env_ids)

    def close(self) -> None:
        """Disconnect the engine and detach the scene's robots and props; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        for robot in self._robots:
            robot.runtime_detach()
        for prop in self._props:
            prop.runtime_detach()
        self._robots, self._props = [], []
        detach_sensors(self.scene)
        self._engine.close()
        self.scene.runtime_detach(self)  # a second close must not detach a newer simulation of the scene

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
