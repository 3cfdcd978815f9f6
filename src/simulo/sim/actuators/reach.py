"""What a surface gripper can reach: the scene's dynamic props and the distance from a point to each one's surface.

The distance is measured from a point (the gripper's attach frame) to the nearest point of the prop's authored
shape (0 inside it), in the prop's frame: exact for boxes, spheres and cylinders, and for cones on their
(radius, height) section. A prop rescaled with ``set_scale`` is measured at its authored size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simulo.engine.base import RigidBatch
from simulo.frozen import frozen_dataclass
from simulo.math.batched import quat_rotate_inverse
from simulo.sim.geometry import engine_geometry
from simulo.sim.variants import VariantBatch


def _segment_distance(px: np.ndarray, py: np.ndarray, a: tuple[float, float], b: tuple[float, float]) -> np.ndarray:
    """Distance from 2-D points to the segment ``a``-``b``."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    t = np.clip(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
    return np.hypot(px - ax - t * dx, py - ay - t * dy)


def surface_distance(kind: str, dims: Sequence[float], local: np.ndarray) -> np.ndarray:
    """Distance (E,) from points ``local`` (E, 3), in a shape's frame, to the shape (0 inside).

    Args:
        kind: ``box`` (half extents), ``sphere`` (radius), ``cylinder`` or ``cone`` (radius, height; axis z,
            centred at mid-height, a cone's apex up), as :func:`simulo.sim.geometry.engine_geometry` gives them.
        dims: The shape's dimensions.
        local: The points.
    """
    if kind == "box":
        return np.linalg.norm(np.maximum(np.abs(local) - np.asarray(dims, dtype=float), 0.0), axis=1)
    if kind == "sphere":
        return np.maximum(np.linalg.norm(local, axis=1) - float(dims[0]), 0.0)
    radius, half = float(dims[0]), float(dims[1]) / 2
    rho, z = np.hypot(local[:, 0], local[:, 1]), local[:, 2]
    if kind == "cylinder":
        return np.hypot(np.maximum(rho - radius, 0.0), np.maximum(np.abs(z) - half, 0.0))
    # a cone: the triangle (0, -half), (radius, -half), (0, half) in the (rho, z) half plane
    inside = (z >= -half) & (z <= half) & (rho <= radius * (half - z) / (2 * half))
    edges = np.minimum(_segment_distance(rho, z, (0.0, -half), (radius, -half)),
                       _segment_distance(rho, z, (radius, -half), (0.0, half)))
    return np.where(inside, 0.0, edges)


@frozen_dataclass
class Target:
    """One object a surface gripper may hold: a prop, or one option of a variant prop.

    Attributes:
        prop: The prop (its ``data.pose`` is the active option's pose).
        batch: The engine batch of this object.
        kind: Engine shape kind.
        dims: Engine shape dimensions.
        option: The option index of a variant prop (the object exists where it is active), ``None`` for a prop.
        name: The prop's name, for messages.
    """

    prop: Any
    batch: RigidBatch
    kind: str
    dims: tuple[float, ...]
    option: int | None
    name: str


def grip_targets(props: Sequence[Any]) -> list[Target]:
    """Every dynamic object of the attached ``props`` (``Prop`` and ``VariantProp``), in scene order."""
    targets = []
    for prop in props:
        batch = prop.data.batch
        if isinstance(batch, VariantBatch):
            for k, option in enumerate(prop.options):
                kind, dims = engine_geometry(option)
                targets.append(Target(prop, batch.batches[k], kind, dims, k, str(prop.name)))
        else:
            kind, dims = engine_geometry(prop.shape)
            targets.append(Target(prop, batch, kind, dims, None, str(prop.name)))
    return [t for t in targets if (t.batch.masses() > 0).all()]


def nearest(targets: Sequence[Target], points: np.ndarray, env_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nearest target of each environment of ``env_ids`` to its point (len(env_ids), 3), world frame.

    Returns:
        ``(index, distance)``, each (len(env_ids),): the index into ``targets`` (-1 where there is none) and
        the distance to that target's surface, m (``inf`` where there is none).
    """
    best = np.full(len(env_ids), -1, dtype=np.int64)
    dist = np.full(len(env_ids), np.inf)
    for k, target in enumerate(targets):
        pose = np.asarray(target.prop.data.pose, dtype=np.float64)[env_ids]
        d = surface_distance(target.kind, target.dims, quat_rotate_inverse(pose[:, 3:], points - pose[:, :3]))
        if target.option is not None:
            d = np.where(target.prop.data.batch.active[env_ids] == target.option, d, np.inf)
        closer = d < dist
        best[closer], dist[closer] = k, d[closer]
    return best, dist
