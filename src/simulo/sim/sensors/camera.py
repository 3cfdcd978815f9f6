"""``simulo.Camera`` and ``simulo.CameraSpawnConfig``: a pinhole RGB-D camera drawn by the engine.

On PyBullet the images come from the CPU TinyRenderer (headless). Each environment's camera shows only its
own environment: the engine hides the neighbours that share its world while it draws. A camera renders when
it is read and its image is older than ``update_period`` (0: older than the last physics step), so an
unread camera costs nothing; rows marked stale (environments that were reset) are redrawn on the next read.

Readings have one row per environment (a camera added with ``per_environment=False`` has one row; it is in
world coordinates and shows environment 0's world).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from simulo._sdk_protocols import CameraBase
from simulo.errors import SimuloValueError
from simulo.sim.sensors.base import Sensor
from simulo.sim.sensors.offset import SensorOffset

if TYPE_CHECKING:
    import numpy as np

    from simulo.engine.base import CameraFrames

#: Data types a camera accepts. ``"normals"`` is accepted, but no engine here draws them: reading them raises.
DATA_TYPES = ("rgb", "depth", "distance_to_image_plane", "normals", "semantic", "semantic_segmentation")


@dataclass(frozen=True)
class CameraSpawnConfig:
    """Pinhole optics of a :class:`Camera` (Isaac Lab's ``PinholeCameraCfg``; lengths in mm except the clipping).

    Args:
        focal_length: Focal length, mm.
        focus_distance: Focus distance, m (the engines draw everything sharp).
        f_stop: Aperture f-number (0: no depth of field, the only one drawn here).
        horizontal_aperture: Sensor width, mm.
        vertical_aperture: Sensor height, mm; ``None`` keeps pixels square (``horizontal * height / width``).
        clipping_range: Nearest and farthest distance drawn, m (PyBullet draws at most 10 km away).

    Raises:
        SimuloValueError: A length is not positive and finite, or the clipping range is not ``0 < near < far``.
    """

    focal_length: float = 24.0
    focus_distance: float = 400.0
    f_stop: float = 0.0
    horizontal_aperture: float = 20.955
    vertical_aperture: float | None = None
    clipping_range: tuple[float, float] = (0.01, 1.0e6)

    def __post_init__(self) -> None:
        for name in ("focal_length", "focus_distance", "horizontal_aperture", "vertical_aperture"):
            value = getattr(self, name)
            if value is None and name == "vertical_aperture":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise SimuloValueError(f"CameraSpawnConfig.{name} must be a finite number > 0, got {value!r}")
        f_stop = self.f_stop
        if isinstance(f_stop, bool) or not isinstance(f_stop, (int, float)) or not 0 <= f_stop < math.inf:
            raise SimuloValueError(f"CameraSpawnConfig.f_stop must be a finite number >= 0, got {self.f_stop!r}")
        clip = tuple(self.clipping_range) if isinstance(self.clipping_range, (tuple, list)) else ()
        if len(clip) != 2 or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in clip) \
                or not 0 < clip[0] < clip[1] < math.inf:
            raise SimuloValueError(f"CameraSpawnConfig.clipping_range must be (near, far) m with 0 < near < far, got "
                                   f"{self.clipping_range!r}")
        object.__setattr__(self, "clipping_range", (float(clip[0]), float(clip[1])))

    def vertical_fov_deg(self, width: int, height: int) -> float:
        """Vertical field of view in degrees for an image of ``width`` x ``height`` pixels."""
        aperture = self.vertical_aperture or self.horizontal_aperture * height / width
        return math.degrees(2.0 * math.atan(aperture / (2.0 * self.focal_length)))

    def focal_pixels(self, width: int, height: int) -> tuple[float, float]:
        """``(fx, fy)``: the focal length in pixels along each image axis."""
        aperture = self.vertical_aperture or self.horizontal_aperture * height / width
        return width * self.focal_length / self.horizontal_aperture, height * self.focal_length / aperture


def _size(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 4096:
        raise SimuloValueError(f"Camera {what} must be an integer pixel count in 1..4096, got {value!r}")
    return value


class Camera(Sensor, CameraBase):
    """An RGB-D camera (the SDK's ``CameraProtocol``).

    Args:
        path: Scene path (set by the scene when the camera is added).
        width: Image width in pixels.
        height: Image height in pixels.
        data_types: What to capture: ``"rgb"`` (default), ``"depth"`` (alias ``"distance_to_image_plane"``),
            ``"semantic"`` (alias ``"semantic_segmentation"``), ``"normals"`` (accepted; no engine draws them yet).
        update_period: Seconds between images (0: a new image after every physics step, when read).
        offset: Camera pose in the frame it is mounted in (:meth:`SensorOffset.look_at` for a fixed camera).
        spawn: Optics (:class:`CameraSpawnConfig`; its defaults when ``None``).
        enabled: Whether the camera is active.
        debug_vis: Accepted for compatibility.
        purpose: ``"observer"`` (recordings) or ``"policy"`` (an image input of a policy).

    Raises:
        SimuloValueError: A bad size, data type, purpose, offset or spawn configuration.
    """

    def __init__(self, path: str | None = None, width: int = 640, height: int = 480,
                 data_types: list[str] | None = None, update_period: float = 0.0, offset: SensorOffset | None = None,
                 spawn: CameraSpawnConfig | None = None, enabled: bool = True, debug_vis: bool = False,
                 purpose: Literal["observer", "policy"] = "observer") -> None:
        super().__init__(path, update_period, offset, enabled, debug_vis)
        self.width = _size(width, "width")
        self.height = _size(height, "height")
        kinds = ["rgb"] if data_types is None else list(data_types)
        for kind in kinds:
            if kind not in DATA_TYPES:
                raise SimuloValueError(f"Camera data type {kind!r} is unknown; expected some of {list(DATA_TYPES)}")
        self.data_types = kinds
        if spawn is not None and not isinstance(spawn, CameraSpawnConfig):
            raise SimuloValueError(f"spawn must be a simulo.CameraSpawnConfig or None, got {spawn!r}")
        self.spawn = spawn if spawn is not None else CameraSpawnConfig()
        if purpose not in ("observer", "policy"):
            raise ValueError(f"Camera purpose must be 'observer' or 'policy', got {purpose!r}")
        self.purpose: Literal["observer", "policy"] = purpose
        self._frames: CameraFrames | None = None
        self._stamp = -math.inf
        self._stale: np.ndarray | None = None

    def _wants(self, *kinds: str) -> bool:
        return any(k in self.data_types for k in kinds)

    @property
    def semantic_labels(self) -> dict[int, str]:
        """Label -> scene path of what :meth:`read_semantic` shows (0 is nothing)."""
        return dict(self._require().labels)

    def intrinsics(self) -> tuple[float, float, float, float]:
        """``(fx, fy, cx, cy)`` in pixels: the pinhole projection ``u = fx * x / z + cx`` (x right, y down, z ahead)."""
        fx, fy = self.spawn.focal_pixels(self.width, self.height)
        return fx, fy, self.width / 2.0, self.height / 2.0

    # -- rendering -----------------------------------------------------------------------------------
    def _draw(self, rows: np.ndarray) -> CameraFrames:
        import numpy as np

        ctx = self._require()
        poses = self.sensor_poses(camera=True)[rows]
        near, far = self.spawn.clipping_range
        env_ids = rows if self.count == ctx.num_envs else np.zeros(len(rows), dtype=np.int64)
        return ctx.engine.render_cameras(env_ids, poses, self.width, self.height,
                                         self.spawn.vertical_fov_deg(self.width, self.height), near, far,
                                         depth=self._wants("depth", "distance_to_image_plane"),
                                         labels=self._wants("semantic", "semantic_segmentation"),
                                         isolate=self.count == ctx.num_envs)

    def _fresh(self) -> CameraFrames:
        import numpy as np

        ctx = self._require()
        now = ctx.clock()
        due = now > self._stamp if self.update_period == 0 else now - self._stamp >= self.update_period - 1e-9
        if self._frames is None or due:
            self._frames = self._draw(np.arange(self.count))
            self._stamp = now
            self._stale = np.zeros(self.count, dtype=bool)
        elif self._stale is not None and self._stale.any():
            self._redraw(np.flatnonzero(self._stale))
        return self._frames

    def _redraw(self, rows: np.ndarray) -> None:
        assert self._frames is not None and self._stale is not None
        part = self._draw(rows)
        for mine, new in ((self._frames.rgb, part.rgb), (self._frames.depth, part.depth),
                          (self._frames.labels, part.labels)):
            if mine is not None and new is not None:
                mine[rows] = new
        self._stale[rows] = False

    def runtime_mark_stale(self, env_ids: Any) -> None:
        """Redraw these environments' rows on the next read (runtime hook: after they were reset)."""
        import numpy as np

        if self._stale is not None and len(self._stale) > 1:
            self._stale[np.asarray(env_ids, dtype=np.int64)] = True
        elif self._stale is not None:
            self._stale[:] = True

    def runtime_refresh(self, env_ids: Any) -> None:
        """Redraw these environments' rows now (runtime hook of ``refresh_policy_frames``)."""
        import numpy as np

        if self._frames is None:
            self._fresh()
            return
        ids = np.asarray(env_ids, dtype=np.int64).reshape(-1)
        rows = ids if self.count > 1 else np.zeros(min(1, len(ids)), dtype=np.int64)
        if len(rows):
            self._redraw(rows)

    def runtime_rgb_rows(self, env_ids: Any = None) -> np.ndarray:
        """A new contiguous copy of the RGB rows of ``env_ids`` (all when ``None``), (N, H, W, 3) uint8."""
        import numpy as np

        frames = self._fresh()
        if env_ids is None:
            return frames.rgb.copy()
        return np.ascontiguousarray(frames.rgb[np.asarray(env_ids, dtype=np.int64)])

    # -- readers -------------------------------------------------------------------------------------
    def _check(self, *kinds: str) -> None:
        if not self._wants(*kinds):
            raise SimuloValueError(f"Camera {self.name!r} does not capture {kinds[0]!r}; add it to data_types "
                                   f"(has {self.data_types})")

    def read_rgb(self) -> Any:
        """Colour images (num_envs, H, W, 3) uint8 (one row for a shared camera)."""
        self._check("rgb")
        return self._require().tensors.out(self.runtime_rgb_rows())

    def read_depth(self) -> Any:
        """Distance to the image plane in metres (num_envs, H, W) float32; ``inf`` where nothing was drawn."""
        self._check("depth", "distance_to_image_plane")
        depth = self._fresh().depth
        assert depth is not None
        return self._require().tensors.out(depth.copy())

    def read_normals(self) -> Any:
        """Surface normals (num_envs, H, W, 3): no engine of simulo-local draws them yet.

        Raises:
            SimuloValueError: ``"normals"`` is not in ``data_types``.
            NotImplementedError: Always otherwise (PyBullet's TinyRenderer has no normal buffer); use
                :meth:`read_depth` and differentiate it.
        """
        self._check("normals")
        raise NotImplementedError(f"Camera {self.name!r}: surface normals are not drawn by simulo-local's engines "
                                  "(PyBullet's TinyRenderer has no normal buffer); read_depth() is available")

    def read_semantic(self) -> Any:
        """Object labels (num_envs, H, W) int32: 0 nothing, else a key of :attr:`semantic_labels`."""
        self._check("semantic", "semantic_segmentation")
        labels = self._fresh().labels
        assert labels is not None
        return self._require().tensors.out(labels.copy())

    def reset(self) -> None:
        """Forget the last image; the next read draws a new one."""
        self._frames = None
        self._stamp = -math.inf

    def runtime_detach(self) -> None:
        """Forget the simulation and the last image (runtime hook)."""
        super().runtime_detach()
        self.reset()

