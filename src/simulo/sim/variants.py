"""Per-copy object variants: ``scene.add(shape, at=..., variants=ObjectVariants(...))``.

How the runtime builds them (the same on every engine): every option is built in every copy; in each copy one
option is *active* (dynamic, at the prop's pose) and the others are *parked*: switched off (static, so they
touch nothing static and stay put) at ``parking_origin`` (relative to the copy's spawn pose; 20 m below it by
default), ``parking_spacing`` apart along x. ``groups`` gives option ``k`` to the contiguous copies
``i`` with ``i * len(options) // num_envs == k`` and never changes; ``pool`` starts every copy on option 0 and
:meth:`VariantProp.set_variant` switches copies (the new option appears at the spawn pose, at rest).
Reads, writes and property changes reach the active option of each copy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np

from simulo._sdk_protocols import VariantPropBase
from simulo.authoring.pose import Pose
from simulo.engine.base import EnvIds, RigidBatch
from simulo.errors import SceneError, SimuloValueError
from simulo.frozen import frozen_dataclass
from simulo.sim.geometry import PRIMITIVES, Primitive, half_extent
from simulo.sim.prop import Prop

#: Default parking place, relative to each copy's spawn pose.
DEFAULT_PARKING = Pose.from_xyz(0.0, 0.0, -20.0)


@frozen_dataclass
class ObjectVariants:
    """The objects one authored prop can be across copies (the SDK's ``ObjectVariants``).

    Attributes:
        options: 2 to 8 primitive shapes (asset options are refused on this engine).
        mode: ``"groups"`` (fixed contiguous groups) or ``"pool"`` (switchable with ``set_variant``).
        parking_origin: Where parked options wait, relative to each copy's spawn pose (pool only).
        parking_spacing: Distance between parked options in m (pool only); at least the options' largest
            diameter, checked when the simulation is built.
    """

    options: Sequence[Any]
    mode: Literal["groups", "pool"] = "groups"
    parking_origin: Pose | None = None
    parking_spacing: float | None = None

    def __post_init__(self) -> None:
        if isinstance(self.options, (str, bytes)) or not isinstance(self.options, Iterable):
            raise SimuloValueError(f"ObjectVariants.options must be a list of 2 to 8 primitive shapes, got "
                                   f"{self.options!r}")
        options = tuple(self.options)
        if not 2 <= len(options) <= 8:
            raise SimuloValueError(f"ObjectVariants.options must hold 2 to 8 options, got {len(options)}")
        if self.mode not in ("groups", "pool"):
            raise SimuloValueError(f"ObjectVariants.mode must be 'groups' or 'pool', got {self.mode!r}")
        if self.mode != "pool" and (self.parking_origin is not None or self.parking_spacing is not None):
            raise SimuloValueError("parking_origin and parking_spacing are supported only for pool variants")
        if self.parking_spacing is not None and (isinstance(self.parking_spacing, bool)
                                                 or not isinstance(self.parking_spacing, (int, float))
                                                 or not math.isfinite(self.parking_spacing)
                                                 or self.parking_spacing <= 0):
            raise SimuloValueError(f"parking_spacing must be a finite number > 0 m, got {self.parking_spacing!r}")
        object.__setattr__(self, "options", options)


def check_variants(variants: Any) -> tuple[list[Primitive], str, Pose, float | None]:
    """``(options, mode, parking_origin, parking_spacing)`` of an ``ObjectVariants`` (this module's or the SDK's).

    Raises:
        SceneError: Not variants, or an option is not a primitive shape.
    """
    try:
        options, mode = list(variants.options), variants.mode
        origin, spacing = variants.parking_origin, variants.parking_spacing
    except AttributeError as exc:
        raise SceneError(f"variants must be simulo.ObjectVariants, got {variants!r}") from exc
    bad = [o for o in options if not isinstance(o, PRIMITIVES)]
    if bad:
        raise SceneError(f"variant options {bad!r} are not primitive shapes; the runtime builds variants of "
                         "Cuboid, Sphere, Cylinder and Cone only (asset variants are not available)")
    if origin is not None and not isinstance(origin, Pose):
        origin = Pose(origin.xyz if hasattr(origin, "xyz") else origin.position,
                      getattr(origin, "quat_wxyz", None) or origin.orientation)
    return options, mode, origin or DEFAULT_PARKING, spacing


class VariantBatch:
    """A :class:`~simulo.engine.base.RigidBatch` over one batch per option: each copy reaches its active one."""

    def __init__(self, batches: list[RigidBatch], active: np.ndarray) -> None:
        self.batches = batches
        self.active = active

    @property
    def num_envs(self) -> int:
        """Number of copies."""
        return len(self.active)

    def _rows(self, env_ids: EnvIds) -> list[tuple[int, list[int], list[int]]]:
        """``(option, rows of env_ids, env ids)`` for every option active in some of ``env_ids``."""
        ids = np.asarray(list(env_ids), dtype=np.int64)
        out = []
        for k in range(len(self.batches)):
            rows = np.flatnonzero(self.active[ids] == k)
            if rows.size:
                out.append((k, rows.tolist(), ids[rows].tolist()))
        return out

    def read(self, pose: np.ndarray, lin_vel: np.ndarray, ang_vel: np.ndarray) -> None:
        """Write each copy's active pose and velocities into the arrays in place."""
        p, v, w = pose.copy(), lin_vel.copy(), ang_vel.copy()
        for k, batch in enumerate(self.batches):
            batch.read(p, v, w)
            mine = self.active == k
            pose[mine], lin_vel[mine], ang_vel[mine] = p[mine], v[mine], w[mine]

    def write_pose(self, env_ids: EnvIds, poses: np.ndarray) -> None:
        """Teleport the active options of ``env_ids``."""
        for k, rows, ids in self._rows(env_ids):
            self.batches[k].write_pose(ids, poses[rows])

    def write_velocity(self, env_ids: EnvIds, velocities: np.ndarray) -> None:
        """Set the velocities of the active options of ``env_ids``."""
        for k, rows, ids in self._rows(env_ids):
            self.batches[k].write_velocity(ids, velocities[rows])

    def set_friction(self, friction: float) -> None:
        """Set the friction of every option in every copy."""
        for batch in self.batches:
            batch.set_friction(friction)

    def masses(self) -> np.ndarray:
        """Mass of each copy's active option."""
        all_masses = np.stack([b.masses() for b in self.batches])
        return all_masses[self.active, np.arange(self.num_envs)]

    def set_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the masses of the active options of ``env_ids``."""
        for k, rows, ids in self._rows(env_ids):
            self.batches[k].set_masses(ids, masses[rows])

    def set_surface(self, env_ids: EnvIds, friction: np.ndarray | None, restitution: np.ndarray | None) -> None:
        """Set the surfaces of the active options of ``env_ids``."""
        for k, rows, ids in self._rows(env_ids):
            self.batches[k].set_surface(ids, None if friction is None else friction[rows],
                                        None if restitution is None else restitution[rows])

    def set_center_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        """Move the centres of mass of the active options of ``env_ids`` (if the engine can)."""
        for k, rows, ids in self._rows(env_ids):
            self.batches[k].set_center_of_mass(ids, offsets[rows])

    def set_scale(self, env_ids: EnvIds, scales: np.ndarray) -> None:
        """Rescale the active options of ``env_ids`` (if the engine can)."""
        for k, rows, ids in self._rows(env_ids):
            self.batches[k].set_scale(ids, scales[rows])

    def apply_force(self, env_ids: EnvIds, forces: np.ndarray, torques: np.ndarray) -> None:
        """Push the active options of ``env_ids``."""
        for k, rows, ids in self._rows(env_ids):
            self.batches[k].apply_force(ids, forces[rows], torques[rows])

    def set_enabled(self, env_ids: EnvIds, enabled: bool) -> None:
        """Switch the active options of ``env_ids`` on or off."""
        for k, _, ids in self._rows(env_ids):
            self.batches[k].set_enabled(ids, enabled)


class VariantProp(Prop, VariantPropBase):
    """A prop whose object differs between copies (the SDK's ``VariantPropProtocol``).

    Args:
        shape: The authored shape: its name, pose and physics (an option without physics takes its mass).
        options: The option shapes.
        mode: ``"groups"`` or ``"pool"``.
        parking_origin: Parking place relative to each copy's spawn pose.
        parking_spacing: Distance between parked options, m; ``None``: the largest diameter plus 0.1 m.
    """

    def __init__(self, shape: Primitive, options: list[Primitive], mode: str, parking_origin: Pose,
                 parking_spacing: float | None) -> None:
        super().__init__(shape)
        self.options = options
        self.mode = mode
        self.parking_origin = parking_origin
        widest = 2 * max(half_extent(o) for o in options)
        if parking_spacing is not None and parking_spacing < widest:
            raise SceneError(f"parking_spacing {parking_spacing} m is less than the widest variant option "
                             f"({widest:.3f} m across); parked options would overlap")
        self.parking_spacing = parking_spacing if parking_spacing is not None else widest + 0.1
        self._variants: VariantBatch | None = None

    def initial_variants(self, num_envs: int) -> np.ndarray:
        """The option of each copy when the simulation is built (runtime hook)."""
        if self.mode == "groups":
            return np.arange(num_envs) * len(self.options) // num_envs
        return np.zeros(num_envs, dtype=np.int64)

    def runtime_attach_variants(self, batch: VariantBatch, tensors: Any, default_pose: np.ndarray) -> None:
        """Bind to the option batches and park every inactive option (runtime hook: the simulation calls it)."""
        self._variants = batch
        for k, option in enumerate(batch.batches):
            parked = np.flatnonzero(batch.active != k)
            if parked.size:
                option.set_enabled(parked, False)
                option.write_pose(parked, self._parking(default_pose[parked], k))
        self.runtime_attach(batch, tensors, default_pose)

    def _parking(self, spawn: np.ndarray, option: int) -> np.ndarray:
        out = np.tile(np.array(self.parking_origin.to_list()), (len(spawn), 1))
        out[:, :3] += spawn[:, :3]
        out[:, 0] += option * self.parking_spacing
        return out

    @property
    def variant_index(self) -> Any:
        """Active option of every copy (num_envs,), int64; a copy."""
        data = self._require("variant_index")
        assert self._variants is not None
        return data.tensors.out(self._variants.active.copy())

    def set_variant(self, index: Any, env_ids: Any = None) -> None:
        """Make option ``index`` (len(env_ids),) active in ``env_ids``: it appears at the spawn pose, at rest, and
        the old one is parked. Pool variants only.

        Raises:
            SimuloValueError: Group variants, or an index outside ``0 .. len(options) - 1``.
        """
        data = self._require("set_variant")
        batch = self._variants
        assert batch is not None
        if self.mode != "pool":
            raise SimuloValueError(f"prop {self.name!r} has 'groups' variants, fixed when the simulation is built; "
                                   "use ObjectVariants(mode='pool') to switch options")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        raw = data.tensors.floats(index, (len(ids),), "variant index")
        count = len(self.options)
        if not (raw == np.round(raw)).all() or (raw < 0).any() or (raw >= count).any():
            raise SimuloValueError(f"variant index must hold option numbers 0..{count - 1} of prop {self.name!r}, "
                                   f"got {raw.tolist()}")
        new = raw.astype(np.int64)
        for k, option in enumerate(batch.batches):
            leaving = ids[(batch.active[ids] == k) & (new != k)]
            if leaving.size:
                option.set_enabled(leaving, False)
                option.write_pose(leaving, self._parking(data.default_pose[leaving], k))
        batch.active[ids] = new
        for k, option in enumerate(batch.batches):
            arriving = ids[new == k]
            if arriving.size:
                option.set_enabled(arriving, True)
                option.write_pose(arriving, data.default_pose[arriving])
                option.write_velocity(arriving, np.zeros((len(arriving), 6)))
        self.update(0.0)
