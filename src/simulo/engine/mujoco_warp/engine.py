"""``MuJoCoWarpEngine``: the environments of one simulation as the worlds of one MuJoCo Warp model.

The scene is built as on the MuJoCo engine (the same :class:`~simulo.engine.mujoco.spec.SceneSpec`, so every
asset that loads there loads here); the first step puts the model on the Warp device with ``nworld =
num_envs`` (:mod:`simulo.engine.mujoco_warp.worlds`) and every step advances all worlds in one call
(``mujoco_warp.step``, or ``step1``/``step2`` around the joint motors of :mod:`simulo.engine.mujoco_warp.motors`).

The device is Warp's: ``device`` (or ``SIMULO_WARP_DEVICE``), by default ``"cuda"`` when Warp sees a GPU, else
``"cpu"``. Warp computes in float32, so trajectories match the MuJoCo engine's to a tolerance, not bit for bit.
Cameras and rays are the MuJoCo engine's, drawn and cast on host copies of the body poses (:mod:`.host_poses`);
contact and joint-wrench sensors read what the device computed in the last step (:mod:`.sensing`).
What this engine does not support yet raises :class:`~simulo.engine.mujoco_warp.unsupported.WarpUnsupportedError`
(the list: :data:`~simulo.engine.mujoco_warp.unsupported.UNSUPPORTED`).

The simulation layer reaches this engine only through :mod:`simulo.engine.registry` (name ``"mujoco_warp"``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import mujoco
import mujoco_warp as mjw
import numpy as np
import warp as wp

from simulo.engine.base import ArticulationBatch, CameraFrames, EnvIds, RayHits, RigidBatch
from simulo.engine.mujoco import sensing as host_sensing
from simulo.engine.mujoco.camera import render_cameras, render_rgb
from simulo.engine.mujoco.inertia import use_shape_inertia
from simulo.engine.mujoco.spec import SceneSpec, load_robot
from simulo.engine.mujoco_warp import sensing
from simulo.engine.mujoco_warp.articulation import WarpArticulationBatch
from simulo.engine.mujoco_warp.grasp import WarpWeldBatch
from simulo.engine.mujoco_warp.host_poses import HostPoses
from simulo.engine.mujoco_warp.rigid import WarpRigidBatch
from simulo.engine.mujoco_warp.unsupported import unsupported
from simulo.engine.mujoco_warp.worlds import WarpWorlds
from simulo.errors import SimuloValueError

#: Environment variable naming the Warp device (``cpu``, ``cuda``, ``cuda:1``...).
DEVICE_VARIABLE = "SIMULO_WARP_DEVICE"

#: Largest ``envs_per_world`` accepted (the MuJoCo engine's bound; the value changes nothing here).
MAX_ENVS_PER_WORLD = 4096


def default_device() -> str:
    """``SIMULO_WARP_DEVICE`` if set, else ``"cuda"`` when Warp sees a CUDA device, else ``"cpu"``."""
    named = os.environ.get(DEVICE_VARIABLE, "").strip()
    if named:
        return named
    return "cuda" if wp.is_cuda_available() else "cpu"


class MuJoCoWarpEngine:
    """The MuJoCo Warp worlds of one simulation (implements :class:`simulo.engine.base.Engine`).

    Args:
        num_envs: Number of environments (Warp worlds).
        dt: Physics time step in seconds.
        gravity: Gravity vector in m/s².
        envs_per_world: Environments per world (``1 .. MAX_ENVS_PER_WORLD``), a grouping only, as on the MuJoCo
            engine: every environment is its own Warp world (``nworld = num_envs``), and all of them step in one
            call.
        solver_iterations: MuJoCo solver iterations, or ``None`` for its default (100).
        device: The Warp device; ``None``: :func:`default_device`.
        host_copies: Whether state reads copy the device's arrays to the host and writes copy them back; ``None``
            (the default): on a GPU only. ``True`` on the CPU device runs the GPU's data path there (for tests).

    Raises:
        SimuloValueError: ``envs_per_world`` is out of range, or Warp does not know ``device``.
    """

    default_envs_per_world: ClassVar[int] = 1
    max_envs_per_world: ClassVar[int] = MAX_ENVS_PER_WORLD
    friction_rule: ClassVar[str] = "max"  # MuJoCo's: the larger of two geoms' friction
    default_solver_iterations: ClassVar[int] = 100

    def __init__(self, num_envs: int, dt: float, gravity: Sequence[float] = (0.0, 0.0, -9.81),
                 envs_per_world: int = 1, solver_iterations: int | None = None, device: str | None = None,
                 host_copies: bool | None = None) -> None:
        if not 1 <= envs_per_world <= MAX_ENVS_PER_WORLD:
            raise SimuloValueError(f"envs_per_world must be between 1 and {MAX_ENVS_PER_WORLD}, got {envs_per_world}")
        wp.init()
        device = default_device() if device is None else device
        try:
            wp.get_device(device)
        except (ValueError, RuntimeError) as exc:
            raise SimuloValueError(f"Warp has no device {device!r}: {exc}") from exc
        self._num_envs = num_envs
        self._groups = -(-num_envs // envs_per_world)
        self._dt = float(dt)
        self._gravity = np.array([float(g) for g in gravity])
        self._worlds = WarpWorlds(num_envs, SceneSpec(dt, gravity, solver_iterations), device, host_copies)
        self._articulations: list[WarpArticulationBatch] = []
        self._rigids: list[WarpRigidBatch] = []
        self._welds = 0  # weld batches made (each one's equalities need a unique name)
        self._envs_per_world = envs_per_world
        #: every object built, in build order (its label is its place, from 1): ("geom", name) or ("robot", prefix)
        self._objects: list[tuple[str, str]] = []
        self._labels: tuple[mujoco.MjModel, np.ndarray] | None = None  # (the model they were computed for, labels)
        self._host = HostPoses(self._worlds)
        self._closed = False

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return self._num_envs

    @property
    def num_worlds(self) -> int:
        """Number of groups of ``envs_per_world`` environments (each environment is its own Warp world)."""
        return self._groups

    @property
    def device(self) -> str:
        """The Warp device the worlds live on."""
        return str(self._worlds.device)

    # -- building ------------------------------------------------------------------------------------
    def add_plane(self, height: float, friction: float | None, restitution: float | None,
                  contact: tuple[float, float] | None = None) -> None:
        """Add an infinite ground plane (``contact``: MuJoCo's direct stiffness and damping, ``solref=(-k,-b)``)."""
        if self._worlds.final:
            unsupported("grow_after_step")
        self._objects.append(("geom", self._worlds.scene.add_plane(height, friction, restitution, contact)))
        self._worlds.recompile()

    def add_heightfield(self, heights: np.ndarray, cell_size: float, pose: np.ndarray, friction: float | None,
                        restitution: float | None) -> None:
        """Refused: ``mujoco_warp``'s height-field collisions throw a box resting on the field off (the measured
        cause: :data:`~simulo.engine.mujoco_warp.unsupported.UNSUPPORTED`)."""
        unsupported("heightfield")

    def gravity(self) -> np.ndarray:
        """Gravity of every environment (num_envs, 3)."""
        if self._worlds.model is None:
            return np.tile(self._gravity, (self._num_envs, 1))
        return np.array([m.opt.gravity for m in self._worlds.models], dtype=np.float64)

    def set_gravity(self, env_ids: EnvIds, gravity: np.ndarray) -> None:
        """Set the gravity of ``env_ids``: every world may have its own."""
        values = np.array(gravity, dtype=float)
        self._worlds.edit_envs(env_ids, lambda m, k: m.opt.gravity.__setitem__(slice(None), values[k]))

    def add_articulation(self, path: str | os.PathLike[str], poses: np.ndarray, fixed_base: bool, scale: float = 1.0,
                         self_collision: bool = False, inertia_from_file: bool = True,
                         drawn_envs: int | None = None) -> WarpArticulationBatch:
        """Load one copy of a URDF (or MJCF ``.xml``) file per world at root-link poses (num_envs, 7), as the
        MuJoCo engine does (``drawn_envs`` changes nothing: the copies share one compiled model).

        Raises:
            AssetError: The file cannot be loaded, or has joints other than revolute, continuous, prismatic and
                fixed ones.
            WarpUnsupportedError: The scene is final (a step was taken).
        """
        if self._worlds.final:
            unsupported("grow_after_step")
        child, layout = load_robot(Path(path))
        if not inertia_from_file:
            use_shape_inertia(child)
        prefix = self._worlds.scene.add_robot(child, fixed_base, float(scale), self_collision)
        self._objects.append(("robot", prefix))
        self._worlds.recompile()
        batch = WarpArticulationBatch(self._worlds, prefix, layout, fixed_base, self._dt)
        batch.write_base_pose(range(self._num_envs), np.asarray(poses, dtype=float))
        self._articulations.append(batch)
        return batch

    def add_rigid(self, kind: str, dims: Sequence[float], mass: float, poses: np.ndarray,
                  color: Sequence[float] | None = None) -> WarpRigidBatch:
        """Create one single-body shape per world (``mass`` 0: static, a mocap body), as the MuJoCo engine does.

        Raises:
            WarpUnsupportedError: The scene is final (a step was taken).
        """
        if self._worlds.final:
            unsupported("grow_after_step")
        name = self._worlds.scene.add_rigid(kind, dims, mass, color)
        self._objects.append(("geom", name))
        self._worlds.recompile()
        batch = WarpRigidBatch(self._worlds, name, kind, mass)
        batch.write_pose(range(self._num_envs), np.asarray(poses, dtype=float))
        self._rigids.append(batch)
        return batch

    def add_welds(self, articulation: ArticulationBatch, body: int) -> WarpWeldBatch:
        """Welds from body ``body`` of ``articulation`` to each dynamic rigid object built so far, switched per
        world (see :mod:`.grasp`).

        Raises:
            SimuloValueError: ``articulation`` does not come from this engine.
            WarpUnsupportedError: The scene is final (a step was taken).
        """
        if not isinstance(articulation, WarpArticulationBatch) or articulation not in self._articulations:
            raise SimuloValueError(f"MuJoCo Warp welds start from a robot of this engine, got "
                                   f"{type(articulation).__name__}")
        if self._worlds.final:
            unsupported("grow_after_step")
        self._welds += 1
        return WarpWeldBatch(self._worlds, articulation, body, self._rigids, f"weld{self._welds}")

    def render(self, env: int, width: int, height: int, eye: Sequence[float], target: Sequence[float]) -> np.ndarray:
        """RGB image (height, width, 3) uint8 of environment ``env`` through MuJoCo's OpenGL renderer, as on the
        MuJoCo engine, from a host copy of its body poses (:mod:`.host_poses`).

        Raises:
            MissingDependencyError: No OpenGL context (EGL or OSMesa) can be made on this machine.
        """
        data = self._host.posed([env], self._host.state())[0]
        return render_rgb(self._worlds.models[env], data, width, height, eye, target)

    def _geom_labels(self) -> np.ndarray:
        model = self._worlds.model
        assert model is not None, "nothing was added to the scene"
        if self._labels is None or self._labels[0] is not model:
            self._labels = (model, host_sensing.geom_labels(model, self._objects))
        return self._labels[1]

    def render_cameras(self, env_ids: EnvIds, poses: np.ndarray, width: int, height: int, fov_y_deg: float,
                       near: float, far: float, *, depth: bool, labels: bool, isolate: bool) -> CameraFrames:
        """Images of cameras in the environments ``env_ids`` through MuJoCo's OpenGL renderer, as on the MuJoCo
        engine, from host copies of the body poses (:mod:`.host_poses`): every environment is drawn with the
        terrain; without ``isolate`` an image also shows the objects of the other environments of its group of
        ``envs_per_world``.

        Raises:
            MissingDependencyError: No OpenGL context (EGL or OSMesa) can be made on this machine.
        """
        ids = [int(i) for i in env_ids]
        count, size = self._num_envs, self._envs_per_world
        rgb = np.zeros((len(ids), int(height), int(width), 3), dtype=np.uint8)
        dist = np.full((len(ids), int(height), int(width)), np.inf, dtype=np.float32) if depth else None
        seg = np.zeros((len(ids), int(height), int(width)), dtype=np.int32) if labels else None
        state, geom_labels = self._host.state(), self._geom_labels()
        given = np.asarray(poses, dtype=float)
        for k, env in enumerate(ids):  # one image at a time: only its environments' host data are needed
            group = range(env - env % size, min(env - env % size + size, count))
            shown = [env] + ([] if isolate else [j for j in group if j != env])
            image = render_cameras([self._worlds.models[j] for j in shown], self._host.posed(shown, state),
                                   geom_labels, [0], [list(range(1, len(shown)))], given[k:k + 1], int(width),
                                   int(height), fov_y_deg, near, far, depth, labels)
            rgb[k] = image[0][0]
            if dist is not None and image[1] is not None:
                dist[k] = image[1][0]
            if seg is not None and image[2] is not None:
                seg[k] = image[2][0]
        return CameraFrames(rgb=rgb, depth=dist, labels=seg)

    def cast_rays(self, env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, terrain_only: bool) -> RayHits:
        """``mj_ray`` per ray, as on the MuJoCo engine, in a host copy of its own environment's body poses
        (:mod:`.host_poses`; only the terrain's geom group when ``terrain_only``)."""
        ids = np.asarray(env_ids, dtype=np.int64)
        begin, finish = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
        count = len(ids)
        fraction, position = np.full(count, np.inf), np.full((count, 3), np.inf)
        normal, label = np.zeros((count, 3)), np.zeros(count, dtype=np.int32)
        state, geom_labels = self._host.state(), self._geom_labels()
        order = np.argsort(ids, kind="stable")
        envs, first = np.unique(ids[order], return_index=True)
        for env, rows in zip(envs.tolist(), np.split(order, first[1:])):  # the rays of one environment at a time
            data = self._host.posed([env], state)[0]
            hits = host_sensing.cast_rays([self._worlds.models[env]], [data], geom_labels,
                                          np.zeros(len(rows), dtype=np.int64), begin[rows], finish[rows],
                                          terrain_only)
            fraction[rows], position[rows], normal[rows], label[rows] = (hits.fraction, hits.position, hits.normal,
                                                                         hits.label)
        return RayHits(fraction=fraction, position=position, normal=normal, label=label)

    # -- stepping ------------------------------------------------------------------------------------
    def step(self) -> None:
        """Advance every world by one time step, in one Warp call (two around the motors when a motor runs)."""
        w = self._worlds
        w.finalize()
        assert w.warp_model is not None and w.data is not None
        m, d = w.warp_model, w.data
        for rigid in self._rigids:  # copies switched off stay where they are
            rigid.hold()
        applied = np.zeros((self._num_envs, d.qvel.shape[1]))
        for a in self._articulations:
            a.write_torques(applied)
        driving = [a for a in self._articulations if a.law.any_motor]
        with wp.ScopedDevice(w.device):
            if driving:
                mjw.step1(m, d)
                for a in driving:
                    a.drive(applied)
            w.replace("qfrc_applied", applied)
            if driving:
                mjw.step2(m, d)
            else:
                mjw.step(m, d)
        wrenching = [a for a in self._articulations if a.wrenches is not None]
        if wrenching:  # the step's interaction forces, before its pushes are cleared (as on the MuJoCo engine)
            sensing.run_rne_postconstraint(w)
            for a in wrenching:
                a.record_wrenches()
        for a in self._articulations:
            if a.velocity_limited:
                a.limit_velocities()
        if w.pushed:  # a push lasts one step
            pushes = w.host("xfrc_applied")
            pushes[...] = 0.0
            w.commit("xfrc_applied", pushes)
            w.pushed = False
        w.current = False

    def close(self) -> None:
        """Release the worlds; a second call does nothing."""
        if self._closed:
            return
        self._worlds.data = None
        self._worlds.warp_model = None
        self._closed = True


if TYPE_CHECKING:  # the classes satisfy the engine Protocols (checked by mypy, free at run time)
    from simulo.engine.base import Engine, EngineFactory, WeldBatch

    _factory: EngineFactory = MuJoCoWarpEngine
    _engine: type[Engine] = MuJoCoWarpEngine
    _articulation: type[ArticulationBatch] = WarpArticulationBatch
    _rigid: type[RigidBatch] = WarpRigidBatch
    _welds: type[WeldBatch] = WarpWeldBatch
