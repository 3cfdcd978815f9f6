"""``MuJoCoWarpEngine``: the environments of one simulation as the worlds of one MuJoCo Warp model.

The scene is built as on the MuJoCo engine (the same :class:`~simulo.engine.mujoco.spec.SceneSpec`, so every
asset that loads there loads here); the first step puts the model on the Warp device with ``nworld =
num_envs`` (:mod:`simulo.engine.mujoco_warp.worlds`) and every step advances all worlds in one call
(``mujoco_warp.step``, or ``step1``/``step2`` around the joint motors of :mod:`simulo.engine.mujoco_warp.motors`).

The device is Warp's: ``device`` (or ``SIMULO_WARP_DEVICE``), by default ``"cuda"`` when Warp sees a GPU, else
``"cpu"``. Warp computes in float32, so trajectories match the MuJoCo engine's to a tolerance, not bit for bit.
What this engine does not support yet raises :class:`~simulo.engine.mujoco_warp.unsupported.WarpUnsupportedError`
(the list: :data:`~simulo.engine.mujoco_warp.unsupported.UNSUPPORTED`).

The simulation layer reaches this engine only through :mod:`simulo.engine.registry` (name ``"mujoco_warp"``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import mujoco_warp as mjw
import numpy as np
import warp as wp

from simulo.engine.base import ArticulationBatch, CameraFrames, EnvIds, RayHits, RigidBatch, WeldBatch
from simulo.engine.mujoco.inertia import use_shape_inertia
from simulo.engine.mujoco.spec import SceneSpec, load_robot
from simulo.engine.mujoco_warp.articulation import WarpArticulationBatch
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

    Raises:
        SimuloValueError: ``envs_per_world`` is out of range, or Warp does not know ``device``.
    """

    default_envs_per_world: ClassVar[int] = 1
    max_envs_per_world: ClassVar[int] = MAX_ENVS_PER_WORLD
    friction_rule: ClassVar[str] = "max"  # MuJoCo's: the larger of two geoms' friction
    default_solver_iterations: ClassVar[int] = 100

    def __init__(self, num_envs: int, dt: float, gravity: Sequence[float] = (0.0, 0.0, -9.81),
                 envs_per_world: int = 1, solver_iterations: int | None = None, device: str | None = None) -> None:
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
        self._worlds = WarpWorlds(num_envs, SceneSpec(dt, gravity, solver_iterations), device)
        self._articulations: list[WarpArticulationBatch] = []
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
        self._worlds.scene.add_plane(height, friction, restitution, contact)
        self._worlds.recompile()

    def add_heightfield(self, heights: np.ndarray, cell_size: float, pose: np.ndarray, friction: float | None,
                        restitution: float | None) -> None:
        """Not supported yet (see :mod:`.unsupported`)."""
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
        MuJoCo engine does (``drawn_envs`` changes nothing: nothing is drawn).

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
        self._worlds.recompile()
        batch = WarpRigidBatch(self._worlds, name, mass)
        batch.write_pose(range(self._num_envs), np.asarray(poses, dtype=float))
        return batch

    def add_welds(self, articulation: ArticulationBatch, body: int) -> WeldBatch:
        """Not supported yet (see :mod:`.unsupported`)."""
        unsupported("welds")

    def render(self, env: int, width: int, height: int, eye: Sequence[float], target: Sequence[float]) -> np.ndarray:
        """Not supported yet (see :mod:`.unsupported`)."""
        unsupported("render")

    def render_cameras(self, env_ids: EnvIds, poses: np.ndarray, width: int, height: int, fov_y_deg: float,
                       near: float, far: float, *, depth: bool, labels: bool, isolate: bool) -> CameraFrames:
        """Not supported yet (see :mod:`.unsupported`)."""
        unsupported("render")

    def cast_rays(self, env_ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, terrain_only: bool) -> RayHits:
        """Not supported yet (see :mod:`.unsupported`)."""
        unsupported("rays")

    # -- stepping ------------------------------------------------------------------------------------
    def step(self) -> None:
        """Advance every world by one time step, in one Warp call (two around the motors when a motor runs)."""
        w = self._worlds
        w.finalize()
        assert w.warp_model is not None and w.data is not None
        m, d = w.warp_model, w.data
        applied = np.zeros((self._num_envs, d.qvel.shape[1]))
        for a in self._articulations:
            a.write_torques(applied)
        driving = [a for a in self._articulations if a.law.any_motor]
        with wp.ScopedDevice(w.device):
            if driving:
                mjw.step1(m, d)
                for a in driving:
                    a.drive(applied)
            rows = w.host("qfrc_applied")
            rows[...] = applied
            w.commit("qfrc_applied", rows)
            if driving:
                mjw.step2(m, d)
            else:
                mjw.step(m, d)
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
    from simulo.engine.base import Engine, EngineFactory

    _factory: EngineFactory = MuJoCoWarpEngine
    _engine: type[Engine] = MuJoCoWarpEngine
    _articulation: type[ArticulationBatch] = WarpArticulationBatch
    _rigid: type[RigidBatch] = WarpRigidBatch
