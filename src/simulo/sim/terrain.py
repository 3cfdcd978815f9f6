"""Height fields for :class:`~simulo.authoring.world.RoughTerrain`: seeded, deterministic, numpy only.

The grid has ``num_rows`` rows along x and ``num_cols`` columns along y of ``size`` m sub-terrains, inside a
flat border. Columns are shared between the sub-terrain types in proportion (IsaacLab's rule); row ``r`` has
difficulty ``(r + 0.5) / num_rows`` with ``curriculum``, a seeded random one otherwise. Parameters use
IsaacLab's names; a range ``(low, high)`` is interpolated by the difficulty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simulo.authoring.world import RoughTerrain, SubTerrainConfig
from simulo.errors import SceneError

#: Most height samples one terrain may have (PyBullet builds a height field of 4 M samples in seconds).
MAX_SAMPLES = 4_000_000

_Generator = Callable[[np.ndarray, np.ndarray, float, dict[str, Any], np.random.Generator], np.ndarray]


def _lerp(params: dict[str, Any], key: str, default: tuple[float, float], difficulty: float) -> float:
    low, high = (float(v) for v in params.get(key, default))
    return low + difficulty * (high - low)


def _platform(x: np.ndarray, y: np.ndarray, params: dict[str, Any], default: float) -> np.ndarray:
    """Whether each sample is on the flat square platform at the cell's centre."""
    half = float(params.get("platform_width", default)) / 2
    return (np.abs(x) <= half) & (np.abs(y) <= half)


def _flat(x: np.ndarray, y: np.ndarray, d: float, params: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    return np.zeros_like(x)


def _random_rough(x: np.ndarray, y: np.ndarray, d: float, params: dict[str, Any],
                  rng: np.random.Generator) -> np.ndarray:
    if "grid_height_range" in params:  # a grid of random-height squares
        top = _lerp(params, "grid_height_range", (0.02, 0.08), d)
        width = float(params.get("grid_width", 0.15))
        ix = np.floor((x - x.min()) / width).astype(np.int64)
        iy = np.floor((y - y.min()) / width).astype(np.int64)
        table = rng.uniform(-top, top, size=(int(ix.max()) + 1, int(iy.max()) + 1))
        heights = table[ix, iy]
    else:  # uniform noise on a step grid
        low, high = (float(v) for v in params.get("noise_range", (-0.05, 0.05)))
        step = float(params.get("noise_step", 0.005))
        levels = np.arange(low, high + step / 2, step)
        heights = rng.choice(levels, size=x.shape)
    return np.where(_platform(x, y, params, 0.0), 0.0, heights)


def _stairs(x: np.ndarray, y: np.ndarray, d: float, params: dict[str, Any], rng: np.random.Generator,
            inverted: bool = False) -> np.ndarray:
    step_h = _lerp(params, "step_height_range", (0.05, 0.23), d)
    step_w = float(params.get("step_width", 0.3))
    half_platform = float(params.get("platform_width", 1.0)) / 2
    ring = np.maximum(np.abs(x), np.abs(y))  # distance from the centre, square rings
    steps = np.ceil(np.maximum(ring - half_platform, 0.0) / step_w)
    top = steps.max()
    heights = (top - steps) * step_h  # a pyramid: the platform on top
    return -heights if inverted else heights


def _stairs_inv(x: np.ndarray, y: np.ndarray, d: float, params: dict[str, Any],
                rng: np.random.Generator) -> np.ndarray:
    return _stairs(x, y, d, params, rng, inverted=True)


def _obstacles(x: np.ndarray, y: np.ndarray, d: float, params: dict[str, Any],
               rng: np.random.Generator) -> np.ndarray:
    top = _lerp(params, "box_height_range", (0.05, 0.2), d)
    low_w, high_w = (float(v) for v in params.get("obstacle_width_range", (0.25, 0.75)))
    heights = np.zeros_like(x)
    for _ in range(int(params.get("num_obstacles", 20))):
        cx, cy = rng.uniform(x.min(), x.max()), rng.uniform(y.min(), y.max())
        wx, wy = rng.uniform(low_w, high_w, size=2)
        box = (np.abs(x - cx) <= wx / 2) & (np.abs(y - cy) <= wy / 2)
        heights[box] = rng.choice([-top, top])
    return np.where(_platform(x, y, params, 2.0), 0.0, heights)


def _wave(x: np.ndarray, y: np.ndarray, d: float, params: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    amplitude = _lerp(params, "amplitude_range", (0.05, 0.2), d)
    waves = float(params.get("num_waves", 2))
    span = max(float(x.max() - x.min()), 1e-9)
    k = 2 * np.pi * waves / span
    return amplitude * (np.sin(k * x) + np.cos(k * y)) / 2


def _slope(x: np.ndarray, y: np.ndarray, d: float, params: dict[str, Any], rng: np.random.Generator,
           inverted: bool = False) -> np.ndarray:
    slope = _lerp(params, "slope_range", (0.0, 0.4), d)
    half_platform = float(params.get("platform_width", 2.0)) / 2
    ring = np.maximum(np.abs(x), np.abs(y))
    edge = float(ring.max())
    heights = slope * (edge - np.maximum(ring, half_platform))  # the platform is the top
    return -heights if inverted or params.get("inverted", False) else heights


def _slope_inv(x: np.ndarray, y: np.ndarray, d: float, params: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    return _slope(x, y, d, params, rng, inverted=True)


_GENERATORS: dict[str, _Generator] = {
    "flat": _flat, "random_rough": _random_rough, "pyramid_stairs": _stairs, "pyramid_stairs_inv": _stairs_inv,
    "discrete_obstacles": _obstacles, "wave": _wave, "hf_pyramid_slope": _slope, "hf_pyramid_slope_inv": _slope_inv,
}


def column_types(sub_terrains: list[SubTerrainConfig], num_cols: int) -> list[SubTerrainConfig]:
    """The sub-terrain of each column: types in order, by normalised cumulative proportion (IsaacLab's rule)."""
    shares = np.cumsum([s.proportion for s in sub_terrains])
    shares = shares / shares[-1]
    return [sub_terrains[int(np.searchsorted(shares, (c + 0.5) / num_cols))] for c in range(num_cols)]


def heightfield(terrain: RoughTerrain) -> tuple[np.ndarray, float]:
    """Heights (rows along y, columns along x) and the sample spacing of a rough terrain.

    Raises:
        SceneError: The terrain would need more than :data:`MAX_SAMPLES` samples.
    """
    scale = float(terrain.horizontal_scale)
    cell_x, cell_y = (max(2, round(float(s) / scale)) for s in terrain.size)
    border = round(float(terrain.border_width) / scale)
    nx, ny = terrain.num_rows * cell_x + 2 * border + 1, terrain.num_cols * cell_y + 2 * border + 1
    if nx * ny > MAX_SAMPLES:
        raise SceneError(f"rough terrain {terrain.name!r} needs {nx} x {ny} height samples, more than "
                         f"{MAX_SAMPLES}; use fewer rows/columns, smaller sub-terrains, a narrower border or a "
                         "larger horizontal_scale")
    rng = np.random.default_rng(terrain.seed)
    heights = np.zeros((ny, nx))
    types = column_types(terrain.sub_terrains, terrain.num_cols)
    lx = (np.arange(cell_x) - (cell_x - 1) / 2) * scale  # sample coordinates from the cell's centre
    ly = (np.arange(cell_y) - (cell_y - 1) / 2) * scale
    gx, gy = np.meshgrid(lx, ly)  # (cell_y, cell_x)
    for r in range(terrain.num_rows):
        for c, sub in enumerate(types):
            difficulty = (r + 0.5) / terrain.num_rows if terrain.curriculum else float(rng.uniform())
            cell = _GENERATORS[sub.type](gx, gy, difficulty, sub.params, rng)
            x0, y0 = border + r * cell_x, border + c * cell_y
            heights[y0:y0 + cell_y, x0:x0 + cell_x] = cell
    return heights, scale
