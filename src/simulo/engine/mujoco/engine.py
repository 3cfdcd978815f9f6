"""``MuJoCoEngine``: a batch of environments on one MuJoCo model, stepped in one batched call or one by one.

Everything is added to one ``MjSpec`` (:mod:`simulo.engine.mujoco.spec`) and compiled once per addition
(:mod:`simulo.engine.mujoco.worlds`); per-environment properties give that environment its own model copy.

A step takes one of two paths:

* **Batched** (several environments, only torques drive, nothing held, velocity-limited, wrench-sensed or
  pushed, and no step's contacts read so far): every environment is stepped by one ``mujoco.rollout`` call on
  MuJoCo's thread pool, from the state arrays of :mod:`simulo.engine.mujoco.block`, with no Python per
  environment.
* **Per environment** (otherwise): each environment's data in turn, ``mj_step``, or ``mj_step1``, the joint
  motors of :mod:`simulo.engine.mujoco.commands`, ``mj_step2``. Environments are grouped into "worlds" of
  ``envs_per_world`` that a Python thread pool steps side by side when ``threads`` is given (MuJoCo releases the
  GIL inside ``mj_step``).

Results do not depend on the grouping or the thread count, since no two environments share data.

The simulation layer reaches this engine only through :mod:`simulo.engine.registry` (name ``"mujoco"``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING, ClassVar, NamedTuple

import mujoco
import numpy as np

from simulo.engine.base import ArticulationBatch, CameraFrames, Engine, EngineFactory, EnvIds, RayHits, RigidBatch
from simulo.engine.mujoco import sensing
from simulo.engine.mujoco.articulation import MuJoCoArticulationBatch
from simulo.engine.mujoco.camera import render_cameras, render_rgb
from simulo.engine.mujoco.grasp import MuJoCoWeldBatch
from simulo.engine.mujoco.inertia import use_shape_inertia
from simulo.engine.mujoco.rigid import MuJoCoRigidBatch
from simulo.engine.mujoco.spec import SceneSpec, load_robot
from simulo.engine.mujoco.worlds import Worlds
from simulo.errors import SimuloValueError

#: Default environments per world (one thread-pool task), chosen with benchmarks/engines.py.
DEFAULT_ENVS_PER_WORLD = 16

#: Largest bound (a world is only a grouping of independent environments).
MAX_ENVS_PER_WORLD = 4096

#: Environment variable giving the number of stepping threads (default: every core this process may use, see
#: :func:`usable_cores`).
THREADS_VARIABLE = "SIMULO_MUJOCO_THREADS"

#: Fewest environments stepped by the batched path (one environment is stepped directly: a rollout call costs
#: more than it saves there).
MIN_BATCHED_ENVS = 2


#: One torque write of a step: ``target[index] = torque`` (see ``_StepPlan.pushes``).
_Write = tuple[np.ndarray, slice | np.ndarray | EllipsisType, np.ndarray]


class _StepPlan(NamedTuple):
    """What one step does besides ``mj_step``, decided once for all of its environments, and what it steps."""

    models: list[mujoco.MjModel]  # every environment's model
    datas: list[mujoco.MjData]  # and data
    qfrc: list[np.ndarray]  # and its qfrc_applied
    xfrc: list[np.ndarray]  # and its xfrc_applied
    holding: list[MuJoCoRigidBatch]  # props with copies switched off, held in place
    limited: list[MuJoCoArticulationBatch]  # robots with joint velocity limits
    wrenching: list[MuJoCoArticulationBatch]  # robots whose joint wrenches are read
    motors: list[bool]  # whether a motor runs in each environment (its step is split around the motor law)
    #: per environment without a motor, its torque writes ``target[index] = torque``: its qfrc_applied, or a view
    #: of it at a law's DOF columns when they are consecutive; the columns, or ``...`` for a view; a law's torque row
    pushes: list[list[_Write]]
    clear_forces: bool  # whether any xfrc_applied was written (or a held prop's will be)


#: The plain loop: with one stepping thread, nothing but torques and passive joints, nothing held, limited or
#: sensed, and nothing pushed, per environment its index, data and torque writes are the whole step (the model is
#: looked up in ``Worlds.models`` each step, since a per-environment edit gives an environment its own). The
#: torques stay in ``qfrc_applied`` after the step: the next one writes the same columns again.
_Plain = list[tuple[int, mujoco.MjData, list[_Write]]]


#: The batched step's torque writes: per robot with torques, its DOF columns and its torque rows (num_envs, J).
_Batched = list[tuple[slice | np.ndarray, np.ndarray]]


def _write(target: np.ndarray, columns: slice | np.ndarray, torque: np.ndarray) -> _Write:
    """The write ``target[columns] = torque``, through a view of ``target`` when ``columns`` is a slice (a write
    into a whole view skips the slice's indexing)."""
    return (target[columns], ..., torque) if isinstance(columns, slice) else (target, columns, torque)


def _threads_from_environment() -> int | None:
    """``SIMULO_MUJOCO_THREADS``, or None when it is not set."""
    raw = os.environ.get(THREADS_VARIABLE, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise SimuloValueError(f"{THREADS_VARIABLE} must be a positive integer, got {raw!r}")
    return int(raw)


def usable_cores() -> int:
    """The number of cores this process may run on, at most ``OMP_NUM_THREADS`` when that is a positive integer
    (the usual thread budget: Ray sets it to each task's and actor's CPUs, so env runners do not oversubscribe)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    budget = os.environ.get("OMP_NUM_THREADS", "").strip()
    return min(cores, int(budget)) if budget.isdigit() and int(budget) > 0 else cores


class MuJoCoEngine:
    """The MuJoCo environments of one simulation (implements :class:`simulo.engine.base.Engine`).

    Args:
        num_envs: Number of environments.
        dt: Physics time step in seconds.
        gravity: Gravity vector in m/s².
        envs_per_world: Environments per world (one stepping task).
        solver_iterations: MuJoCo solver iterations, or ``None`` for its default (100).
        threads: Stepping threads; ``None`` reads ``SIMULO_MUJOCO_THREADS``. The batched step runs on MuJoCo's
            pool of this many threads (default: every usable core); the per-environment step runs its worlds on
            a Python pool only when a number above 1 is given (else in the calling thread).

    Raises:
        SimuloValueError: ``envs_per_world`` is outside ``1 .. MAX_ENVS_PER_WORLD`` or ``threads`` is not positive.
    """

    default_envs_per_world: ClassVar[int] = DEFAULT_ENVS_PER_WORLD
    max_envs_per_world: ClassVar[int] = MAX_ENVS_PER_WORLD
    # MuJoCo takes the larger of two geoms' friction; 100 is MuJoCo's own opt.iterations
    friction_rule: ClassVar[str] = "max"
    default_solver_iterations: ClassVar[int] = 100

    def __init__(self, num_envs: int, dt: float, gravity: Sequence[float] = (0.0, 0.0, -9.81),
                 envs_per_world: int = DEFAULT_ENVS_PER_WORLD, solver_iterations: int | None = None,
                 threads: int | None = None) -> None:
        if not 1 <= envs_per_world <= MAX_ENVS_PER_WORLD:
            raise SimuloValueError(f"envs_per_world must be between 1 and {MAX_ENVS_PER_WORLD}, got {envs_per_world}")
        self._num_envs = num_envs
        self._dt = float(dt)
        self.envs_per_world = envs_per_world
        self._chunks = [range(s, min(s + envs_per_world, num_envs)) for s in range(0, num_envs, envs_per_world)]
        threads = _threads_from_environment() if threads is None else threads
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise SimuloValueError(f"threads must be a positive integer, got {threads!r}")
        self.threads = usable_cores() if threads is None else threads
        self._worlds = Worlds(num_envs, SceneSpec(dt, gravity, solver_iterations), self.threads)
        self._articulations: list[MuJoCoArticulationBatch] = []
        self._rigids: list[MuJoCoRigidBatch] = []
        #: every object built, in build order (its label is its place, from 1): ("geom", name) or ("robot", prefix)
        self._objects: list[tuple[str, str]] = []
        self._labels: tuple[int, np.ndarray] | None = None  # (id of the model they were computed for, labels)
        self._welds = 0  # welds made (each one's equality needs a unique name)
        self._pool = ThreadPoolExecutor(threads) if threads and threads > 1 and len(self._chunks) > 1 else None
        #: (Worlds.revision it was made at, the per-environment step plan and its plain loop, or None for either,
        #: and the batched step's torque writes or None)
        self._plan_at: tuple[int, _StepPlan | None, _Plain | None, _Batched | None] | None = None
        self._closed = False

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return self._num_envs

    @property
    def num_worlds(self) -> int:
        """Number of worlds (groups of ``envs_per_world`` environments stepped as one task)."""
        return len(self._chunks)

    # -- building ----------------------------------------------------------------------------------
    def add_plane(self, height: float, friction: float | None, restitution: float | None,
                  contact: tuple[float, float] | None = None) -> None:
        """Add an infinite ground plane (``contact``: MuJoCo's direct stiffness and damping, ``solref=(-k,-b)``)."""
        self._objects.append(("geom", self._worlds.scene.add_plane(height, friction, restitution, contact)))
        self._worlds.recompile()

    def add_heightfield(self, heights: np.ndarray, cell_size: float, pose: np.ndarray, friction: float | None,
                        restitution: float | None) -> None:
        """Add a static MuJoCo height field (rows along +y, columns along +x) centred at ``pose``."""
        self._objects.append(("geom", self._worlds.scene.add_heightfield(np.asarray(heights, dtype=float), cell_size,
                                                                         pose, friction, restitution)))
        self._worlds.recompile()

    def gravity(self) -> np.ndarray:
        """Gravity of every environment (num_envs, 3)."""
        return np.array([m.opt.gravity for m in self._worlds.models], dtype=np.float64)

    def set_gravity(self, env_ids: EnvIds, gravity: np.ndarray) -> None:
        """Set the gravity of ``env_ids``: every environment may have its own (its model is copied)."""
        values = np.array(gravity, dtype=float)
        self._worlds.edit_envs(env_ids, lambda m, k: m.opt.gravity.__setitem__(slice(None), values[k]))

    def add_articulation(self, path: str | os.PathLike[str], poses: np.ndarray, fixed_base: bool, scale: float = 1.0,
                         self_collision: bool = False, inertia_from_file: bool = True,
                         drawn_envs: int | None = None) -> MuJoCoArticulationBatch:
        """Load one copy of a URDF (or MJCF ``.xml``) file per environment at root-link poses (num_envs, 7).

        ``drawn_envs`` changes nothing here: the copies share one compiled model, whose meshes are stored once.

        With ``inertia_from_file=False`` every link with collision shapes gets PyBullet's inertia instead of the
        file's: that of a box filling the shapes' bounding box, with the link's mass
        (:mod:`simulo.engine.mujoco.inertia`).

        Raises:
            AssetError: The file cannot be loaded, or has joints other than revolute, continuous, prismatic and
                fixed ones.
        """
        child, layout = load_robot(Path(path))
        if not inertia_from_file:
            use_shape_inertia(child)
        prefix = self._worlds.scene.add_robot(child, fixed_base, float(scale), self_collision)
        self._objects.append(("robot", prefix))
        self._worlds.recompile()
        self._worlds.revision += 1
        batch = MuJoCoArticulationBatch(self._worlds, prefix, layout, fixed_base, self._dt)
        batch.write_base_pose(range(self.num_envs), np.asarray(poses, dtype=float))
        self._articulations.append(batch)
        return batch

    def add_rigid(self, kind: str, dims: Sequence[float], mass: float, poses: np.ndarray,
                  color: Sequence[float] | None = None) -> MuJoCoRigidBatch:
        """Create one single-body shape per environment (``mass`` 0: static, a mocap body)."""
        name = self._worlds.scene.add_rigid(kind, dims, mass, color)
        self._objects.append(("geom", name))
        self._worlds.recompile()
        self._worlds.revision += 1
        batch = MuJoCoRigidBatch(self._worlds, name, kind, mass)
        batch.write_pose(range(self.num_envs), np.asarray(poses, dtype=float))
        self._rigids.append(batch)
        return batch

    def add_welds(self, articulation: ArticulationBatch, body: int) -> MuJoCoWeldBatch:
        """One weld equality from body ``body`` of ``articulation``, switched per environment (see :mod:`.grasp`).

        Raises:
            SimuloValueError: ``articulation`` does not come from this engine.
        """
        if not isinstance(articulation, MuJoCoArticulationBatch) or articulation not in self._articulations:
            raise SimuloValueError(f"MuJoCo welds start from a robot of this engine, got {type(articulation).__name__}")
        self._welds += 1
        return MuJoCoWeldBatch(self._worlds, articulation, body, f"weld{self._welds}")

    def render(self, env: int, width: int, height: int, eye: Sequence[float], target: Sequence[float]) -> np.ndarray:
        """RGB image (height, width, 3) uint8 of environment ``env`` through MuJoCo's OpenGL renderer.

        Raises:
            MissingDependencyError: No OpenGL context (EGL or OSMesa) can be made on this machine.
        """
        self._worlds.current([env])
        return render_rgb(self._worlds.models[env], self._worlds.read_datas([env])[env], width, height, eye, target)

    def _geom_labels(self) -> np.ndarray:
        template = self._worlds.template
        assert template is not None
        if self._labels is None or self._labels[0] != id(template):
            self._labels = (id(template), sensing.geom_labels(template, self._objects))
        return self._labels[1]

    def render_cameras(self, env_ids: EnvIds, poses: np.ndarray, width: int, height: int, fov_y_deg: float,
                       near: float, far: float, *, depth: bool, labels: bool, isolate: bool) -> CameraFrames:
        """Images of cameras in the environments ``env_ids`` through MuJoCo's OpenGL renderer. Every environment
        is its own data, drawn with the terrain; without ``isolate`` an image also shows the objects of the other
        environments of its world (``envs_per_world``).

        Raises:
            MissingDependencyError: No OpenGL context (EGL or OSMesa) can be made on this machine.
        """
        ids = [int(i) for i in env_ids]
        neighbours = [[] if isolate else [j for j in self._chunks[i // self.envs_per_world] if j != i] for i in ids]
        shown = set(ids).union(*neighbours)
        self._worlds.current(shown)
        rgb, dist, seg = render_cameras(self._worlds.models, self._worlds.read_datas(shown), self._geom_labels(), ids,
                                        neighbours, np.asarray(poses, dtype=float), int(width), int(height),
                                        fov_y_deg, near, far, depth, labels)
        return CameraFrames(rgb=rgb, depth=dist, labels=seg)

    def cast_rays(self, env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, terrain_only: bool) -> RayHits:
        """``mj_ray`` per ray in its own environment's data (only the terrain's geom group when
        ``terrain_only``)."""
        ids = np.asarray(env_ids, dtype=np.int64)
        self._worlds.current(set(ids.tolist()))
        return sensing.cast_rays(self._worlds.models, self._worlds.read_datas(ids.tolist()), self._geom_labels(), ids,
                                 np.asarray(starts, dtype=float), np.asarray(ends, dtype=float), terrain_only)

    # -- stepping ----------------------------------------------------------------------------------
    def _plan(self) -> tuple[_StepPlan | None, _Plain | None, _Batched | None]:
        """The step plan, made again only after something it depends on changed (``Worlds.revision``; the
        scene is final, so the data and their views stay): a per-environment plan and its plain loop, or the
        batched step's writes."""
        w = self._worlds
        if self._plan_at is None or self._plan_at[0] != w.revision:
            self._plan_at = (w.revision, *self._make_plan(batchable=True))
        return self._plan_at[1:]

    def _make_plan(self, batchable: bool) -> tuple[_StepPlan | None, _Plain | None, _Batched | None]:
        """The batched step's torque writes when the step can take them (``batchable`` and torques only), else a
        per-environment plan, with its plain loop when it is one."""
        w = self._worlds
        arts = self._articulations
        motors = np.zeros(self.num_envs, dtype=bool)
        for a in arts:
            if a.law.any_motor:
                motors |= a.law.motor_envs
        laws = [a.law for a in arts if a.law.active_envs]
        holding = [r for r in self._rigids if r.any_disabled]
        limited = [a for a in arts if a.velocity_limited]
        wrenching = [a for a in arts if a.wrenches is not None]
        torques_only = not (holding or limited or wrenching or motors.any())
        if batchable and torques_only and self.num_envs >= MIN_BATCHED_ENVS and not w.wants_step_data:
            return None, None, [(law.dof_columns, law.torque) for law in laws]
        qfrc = w.qfrc
        for forces in qfrc:  # a plain loop leaves its last torques there
            forces.fill(0.0)
        pushes = [[] if motors[i] else [_write(qfrc[i], law.dof_columns, law.torque[i]) for law in laws
                                        if law.active[i]] for i in range(self.num_envs)]
        plan = _StepPlan(w.models, w.datas, qfrc, w.xfrc, holding, limited, wrenching, motors.tolist(), pushes,
                         bool(holding))
        plain = list(zip(range(self.num_envs), w.datas, pushes)) if torques_only and self._pool is None else None
        return plan, plain, None

    def _step_envs(self, plan: _StepPlan, envs: range) -> None:
        models, datas, qfrc, xfrc = plan.models, plan.datas, plan.qfrc, plan.xfrc
        arts, holding, limited, wrenching, motors, pushes = (self._articulations, plan.holding, plan.limited,
                                                             plan.wrenching, plan.motors, plan.pushes)
        step = mujoco.mj_step
        driving = []  # the environments with a motor: their motor laws run for all of them at once
        for i in envs:
            for rigid in holding:
                rigid.hold(i)
            if motors[i]:
                mujoco.mj_step1(models[i], datas[i])
                driving.append(i)
        if driving:
            for a in arts:
                a.drive(driving)
        for i in envs:
            m, d = models[i], datas[i]
            if motors[i]:
                mujoco.mj_step2(m, d)
                driven = True
            else:  # only torques drive (if anything): written without a drive call
                for target, index, torque in pushes[i]:
                    target[index] = torque
                driven = bool(pushes[i])
                step(m, d)
            if wrenching:  # the step's interaction forces, on the state the step started from
                mujoco.mj_rnePostConstraint(m, d)
                for a in wrenching:
                    a.record_wrenches(i)
            if driven:
                qfrc[i].fill(0.0)
            if plan.clear_forces:
                xfrc[i].fill(0.0)
            for a in limited:
                a.limit_velocities(i)

    def step(self) -> None:
        """Advance every environment by one time step (the scene is final from now on)."""
        w = self._worlds
        kept = self._plan_at
        if kept is not None and kept[0] == w.revision and not w.pushed:
            if kept[3] is not None:  # the batched step
                self._step_batched(kept[3])
                return
            if kept[2] is not None:  # the plain loop (the scene is final since the plan was made)
                step, models = mujoco.mj_step, w.models
                for i, d, writes in kept[2]:
                    for target, index, torque in writes:
                        target[index] = torque
                    step(models[i], d)
                self._stepped_per_environment()
                return
        w.finalize()
        plan, _, batched = self._plan()
        if batched is not None and not w.pushed:
            self._step_batched(batched)
            return
        if plan is None:  # a push since a batched plan was made: this step runs per environment
            plan = self._make_plan(batchable=False)[0]
            assert plan is not None
        if w.pushed and not plan.clear_forces:
            plan = plan._replace(clear_forces=True)
        if self._pool is None:
            self._step_envs(plan, range(self.num_envs))
        else:
            list(self._pool.map(partial(self._step_envs, plan), self._chunks))
        w.pushed = False
        self._stepped_per_environment()

    def _step_batched(self, writes: _Batched) -> None:
        """One ``mujoco.rollout`` call over every environment, the torques written as its applied forces."""
        w = self._worlds
        block = w.enter_block()
        qfrc = block.qfrc
        qfrc.fill(0.0)  # (a torque acts for one step: a robot whose joints went passive pushes no more)
        for columns, torque in writes:
            qfrc[:, columns] = torque
        block.step(w.models)
        w.fresh[:] = w.stale

    def _stepped_per_environment(self) -> None:
        """After a per-environment step: the data hold its contacts, the kinematics are stale."""
        w = self._worlds
        if w.block is not None:
            w.block.stepped = False
        w.fresh[:] = w.stale

    def close(self) -> None:
        """Release the stepping threads and the data; a second call does nothing."""
        if self._closed:
            return
        if self._pool is not None:
            self._pool.shutdown()
        self._worlds.close()
        self._closed = True


if TYPE_CHECKING:  # the classes satisfy the engine Protocols (checked by mypy, free at run time)
    from simulo.engine.base import WeldBatch

    _factory: EngineFactory = MuJoCoEngine
    _engine: type[Engine] = MuJoCoEngine
    _articulation: type[ArticulationBatch] = MuJoCoArticulationBatch
    _rigid: type[RigidBatch] = MuJoCoRigidBatch
    _welds: type[WeldBatch] = MuJoCoWeldBatch
