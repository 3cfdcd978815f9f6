"""Terrain and lights: what the scene stands on and how it would be lit (the SDK's factories and configs).

``Terrain.plane`` and ``Terrain.rough`` return the SDK's ``GroundPlane`` and ``RoughTerrain`` configs with the
SDK's fields; ``Light.dome`` and ``Light.distant`` return ``DomeLight`` and ``DistantLight``. simulo-local adds
keyword-only extensions, each marked below. Values are checked on construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

from simulo.authoring.pose import Pose
from simulo.checks import check_int, check_real
from simulo.errors import SimuloValueError
from simulo.frozen import mutable_dataclass

#: Sub-terrain types :func:`simulo.sim.terrain.heightfield` can generate.
SUB_TERRAIN_TYPES = ("flat", "random_rough", "pyramid_stairs", "pyramid_stairs_inv", "discrete_obstacles", "wave",
                     "hf_pyramid_slope", "hf_pyramid_slope_inv")


def _check_name(owner: str, name: object) -> None:
    if not isinstance(name, str) or not name or "/" in name:
        raise SimuloValueError(f"{owner}.name must be a non-empty string without '/', got {name!r}")


def _check_optional(owner: str, positive: bool = False, **values: float | None) -> None:
    for key, value in values.items():
        if value is not None:
            check_real(value, f"{owner}.{key}", low=0, low_open=positive)


@mutable_dataclass
class TerrainConfig:
    """Base terrain configuration.

    Attributes:
        name: Item name (the last component of its scene path).
        pose: Where the terrain sits; a plane uses the height (z) only.
    """

    name: str
    pose: Pose = field(default_factory=Pose.identity)

    def __post_init__(self) -> None:
        _check_name(type(self).__name__, self.name)
        if not isinstance(self.pose, Pose):
            raise SimuloValueError(f"{type(self).__name__}.pose must be a simulo.Pose, got {self.pose!r}")


@mutable_dataclass
class GroundPlane(TerrainConfig):
    """An infinite flat ground plane (PyBullet's ``plane.urdf``) with its surface at ``pose``'s height.

    Attributes:
        size: Visual size in m (the collision plane is infinite).
        friction: Lateral friction coefficient, or ``None`` for the engine default (1.0 for PyBullet's plane).
        contact_stiffness: Normal contact stiffness in N/m (> 0), or ``None``; PyBullet needs it together with
            ``contact_damping``.
        contact_damping: Normal contact damping in N·s/m (> 0), or ``None``.
        contact_gap: Extra contact detection distance in m, or ``None``; not available on PyBullet (refused when
            the simulation is built).
        restitution: Bounciness 0..1, or ``None`` (simulo-local extension, keyword-only).
    """

    size: float = 100.0
    friction: float | None = None
    contact_stiffness: float | None = None
    contact_damping: float | None = None
    contact_gap: float | None = None
    restitution: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        check_real(self.size, "GroundPlane.size", low=0, low_open=True)
        _check_optional("GroundPlane", friction=self.friction, contact_gap=self.contact_gap)
        _check_optional("GroundPlane", positive=True, contact_stiffness=self.contact_stiffness,
                        contact_damping=self.contact_damping)
        if self.restitution is not None:
            check_real(self.restitution, "GroundPlane.restitution", low=0, high=1)


@mutable_dataclass
class SubTerrainConfig:
    """One sub-terrain type of a rough terrain.

    Attributes:
        type: One of ``SUB_TERRAIN_TYPES``.
        proportion: Share of the grid's columns given to this type (> 0; shares are normalised).
        params: Type-specific parameters (IsaacLab's names, e.g. ``step_height_range``, ``noise_range``).
        material: Visual material: ``"default"``, ``"concrete"``, ``"dirt"`` or ``"none"`` (not physical).
    """

    type: str
    proportion: float = 1.0
    params: dict[str, Any] = field(default_factory=dict)
    material: str = "default"

    def __post_init__(self) -> None:
        if self.type not in SUB_TERRAIN_TYPES:
            raise SimuloValueError(f"SubTerrainConfig.type {self.type!r} is unknown; expected one of "
                                   f"{', '.join(SUB_TERRAIN_TYPES)}")
        check_real(self.proportion, "SubTerrainConfig.proportion", low=0, high=1, low_open=True)
        if not isinstance(self.params, dict):
            raise SimuloValueError(f"SubTerrainConfig.params must be a dict, got {self.params!r}")
        if self.material not in ("default", "concrete", "dirt", "none"):
            raise SimuloValueError("SubTerrainConfig.material must be one of: default, concrete, dirt, none; "
                                   f"got {self.material!r}")


def _default_sub_terrains() -> list[SubTerrainConfig]:
    """The SDK's default mix (IsaacLab's ``ROUGH_TERRAINS_CFG``)."""
    stairs = {"step_height_range": (0.05, 0.23), "step_width": 0.3, "platform_width": 3.0, "border_width": 1.0}
    return [
        SubTerrainConfig("pyramid_stairs", 0.2, dict(stairs)),
        SubTerrainConfig("pyramid_stairs_inv", 0.2, dict(stairs)),
        SubTerrainConfig("discrete_obstacles", 0.2, {"box_height_range": (0.05, 0.2), "platform_width": 2.0}),
        SubTerrainConfig("random_rough", 0.2, {"grid_height_range": (0.02, 0.08), "grid_width": 0.15,
                                               "platform_width": 1.5}),
        SubTerrainConfig("hf_pyramid_slope", 0.1, {"slope_range": (0.0, 0.4), "platform_width": 2.0}),
        SubTerrainConfig("hf_pyramid_slope_inv", 0.1, {"slope_range": (0.0, 0.4), "platform_width": 2.0,
                                                       "inverted": True}),
    ]


@mutable_dataclass
class RoughTerrain(TerrainConfig):
    """A grid of generated sub-terrains, built as one static height field (PyBullet ``GEOM_HEIGHTFIELD``).

    Row ``r`` of the grid has difficulty ``(r + 0.5) / num_rows`` when ``curriculum`` is on (random otherwise);
    columns are shared between the sub-terrain types by ``proportion``. The same ``seed`` builds the same
    heights, bit for bit. ``pose`` places the centre of the grid (border included) at height 0.

    Attributes:
        num_rows: Sub-terrain rows (along x).
        num_cols: Sub-terrain columns (along y).
        size: Size ``(x, y)`` of one sub-terrain in m.
        border_width: Width of the flat border around the grid in m.
        curriculum: Difficulty grows with the row; ``False`` draws each cell's difficulty at random.
        max_init_terrain_level: Accepted as in the SDK; spawning stays on the scene's environment grid.
        sub_terrains: The sub-terrain types; empty takes the SDK's default mix.
        color_scheme: ``"height"`` or ``"none"`` (visual only).
        seed: Seed of the generator (simulo-local extension, keyword-only).
        horizontal_scale: Distance between height samples in m (simulo-local extension, keyword-only).
        friction: Friction coefficient, or ``None`` for the engine default (simulo-local extension).
    """

    num_rows: int = 10
    num_cols: int = 20
    size: tuple[float, float] = (8.0, 8.0)
    border_width: float = 20.0
    curriculum: bool = True
    max_init_terrain_level: int | None = None
    sub_terrains: list[SubTerrainConfig] = field(default_factory=list)
    color_scheme: str = "height"
    seed: int = field(default=0, kw_only=True)
    horizontal_scale: float = field(default=0.1, kw_only=True)
    friction: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        for key in ("num_rows", "num_cols", "seed"):
            value = getattr(self, key)
            check_int(value, f"RoughTerrain.{key}", 0 if key == "seed" else 1)
        if not isinstance(self.size, Sequence) or len(self.size) != 2:
            raise SimuloValueError(f"RoughTerrain.size must be (x, y) in m, got {self.size!r}")
        for k, s in enumerate(self.size):
            check_real(s, f"RoughTerrain.size[{k}]", low=0, low_open=True)
        check_real(self.border_width, "RoughTerrain.border_width", low=0)
        check_real(self.horizontal_scale, "RoughTerrain.horizontal_scale", low=0, low_open=True)
        _check_optional("RoughTerrain", friction=self.friction)
        if self.color_scheme not in ("height", "none"):
            raise SimuloValueError(f"RoughTerrain.color_scheme must be 'height' or 'none', got {self.color_scheme!r}")
        if not isinstance(self.sub_terrains, (list, tuple)):
            raise SimuloValueError(f"RoughTerrain.sub_terrains must be a list of SubTerrainConfig values, got "
                                   f"{self.sub_terrains!r}")
        if not self.sub_terrains:
            self.sub_terrains = _default_sub_terrains()
        if not all(isinstance(s, SubTerrainConfig) for s in self.sub_terrains):
            raise SimuloValueError(f"RoughTerrain.sub_terrains must be SubTerrainConfig values, "
                                   f"got {self.sub_terrains!r}")


class Terrain:
    """Terrain factory (the SDK's ``simulo.Terrain``)."""

    @staticmethod
    def plane(name: str = "groundPlane", pose: Pose | None = None, size: float = 100.0, *,
              friction: float | None = None, contact_stiffness: float | None = None,
              contact_damping: float | None = None, contact_gap: float | None = None,
              restitution: float | None = None) -> GroundPlane:
        """A flat, infinite ground plane; see :class:`GroundPlane` (``restitution`` is a simulo-local extension)."""
        return GroundPlane(name, pose or Pose.identity(), size, friction, contact_stiffness, contact_damping,
                           contact_gap, restitution=restitution)

    @staticmethod
    def rough(name: str = "terrain", pose: Pose | None = None, num_rows: int = 10, num_cols: int = 20,
              size: tuple[float, float] = (8.0, 8.0), border_width: float = 20.0, curriculum: bool = True,
              max_init_terrain_level: int | None = None, sub_terrains: list[SubTerrainConfig] | None = None,
              color_scheme: str = "height", *, seed: int = 0, horizontal_scale: float = 0.1,
              friction: float | None = None) -> RoughTerrain:
        """Generated rough terrain; see :class:`RoughTerrain` (the keyword-only arguments are extensions)."""
        return RoughTerrain(name, pose or Pose.identity(), num_rows, num_cols, size, border_width, curriculum,
                            max_init_terrain_level, sub_terrains or [], color_scheme, seed=seed,
                            horizontal_scale=horizontal_scale, friction=friction)


@mutable_dataclass
class LightConfig:
    """A light. Headless PyBullet runs draw with a fixed light, so lights are recorded, not simulated.

    Attributes:
        name: Item name.
        intensity: Brightness (unitless, >= 0).
        color: RGB in 0..1.
        pose: Where the light sits (a distant light shines along its -z axis).
    """

    name: str
    intensity: float = 1000.0
    color: tuple[float, float, float] = (1.0, 1.0, 1.0)
    pose: Pose = field(default_factory=Pose.identity)

    def __post_init__(self) -> None:
        _check_name(type(self).__name__, self.name)
        check_real(self.intensity, f"{type(self).__name__}.intensity", low=0)
        if not isinstance(self.color, Sequence) or len(self.color) != 3:
            raise SimuloValueError(f"{type(self).__name__}.color must be (r, g, b) in 0..1, got {self.color!r}")
        for k, c in enumerate(self.color):
            check_real(c, f"{type(self).__name__}.color[{k}]", low=0, high=1)
        self.color = (float(self.color[0]), float(self.color[1]), float(self.color[2]))


@mutable_dataclass
class DistantLight(LightConfig):
    """A sun-like directional light."""


@mutable_dataclass
class DomeLight(LightConfig):
    """An environment (sky) light."""


class Light:
    """Light factory (the SDK's ``simulo.Light``)."""

    @staticmethod
    def distant(name: str = "distantLight", intensity: float = 1000.0,
                color: tuple[float, float, float] = (1.0, 1.0, 1.0), pose: Pose | None = None) -> DistantLight:
        """A sun-like directional light."""
        return DistantLight(name, intensity, color, pose or Pose.identity())

    @staticmethod
    def dome(name: str = "domeLight", intensity: float = 1000.0,
             color: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> DomeLight:
        """An environment (sky) light."""
        return DomeLight(name, intensity, color)
