"""The one place that converts and validates tensors.

The tensor library is chosen once, when the simulation is built, and never changes. Inputs may be numpy
arrays, torch tensors, lists or scalars in any simulation; inside the runtime every command is a float64
numpy array. A numpy simulation (the default) returns numpy arrays. A simulation built with
``use_torch=True`` (as a ``LearningEnv`` is for a task that works in torch) returns float32 torch tensors,
as the SDK does: its state buffers are float32 numpy arrays that the tensors share (zero copy), so live
state views stay live, and every other output is converted to float32. Handing a torch tensor to a numpy
simulation does not make its outputs torch tensors, and torch is imported only by a torch simulation.

Finite inputs beyond :data:`MAX_MAGNITUDE` are refused, since the engine's float math would overflow to NaN
with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simulo.errors import EnvIdError, NonFiniteError, ShapeError, SimuloValueError
from simulo.math.batched import normalize_quat

#: Largest magnitude a float input may have (metres, radians, kilograms, newtons, seconds, ...). 1e300 is
#: finite, but a quaternion norm or a velocity squared overflows to inf, and the engine stores NaN poses.
#: 1e12 leaves squares (1e24) and products far from float64's 1.8e308 and is beyond any physical input.
MAX_MAGNITUDE = 1e12

#: Up to this many values a range check in Python beats numpy's per-call overhead.
_SMALL = 32


def is_torch(value: Any) -> bool:
    """True for a torch tensor (checked without importing torch)."""
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def to_numpy(value: Any, name: str) -> np.ndarray:
    """Convert a tensor-like value to a numpy array (a copy for torch tensors)."""
    if is_torch(value):
        return value.detach().cpu().numpy()
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged lists
        raise SimuloValueError(f"{name} must be a numeric array, got {value!r}") from exc


class Tensors:
    """Converter bound to one simulation: the tensor library its outputs are in, chosen at build.

    Args:
        use_torch: Return float32 torch tensors (imports torch); otherwise numpy arrays.
    """

    def __init__(self, use_torch: bool = False) -> None:
        self._torch: Any = None
        if use_torch:
            import torch

            self._torch = torch

    @property
    def state_dtype(self) -> type[np.floating[Any]]:
        """dtype of the live state buffers: float32 for a torch simulation (the SDK's), else float64."""
        return np.float64 if self._torch is None else np.float32

    @property
    def uses_torch(self) -> bool:
        """Whether outputs are torch tensors."""
        return self._torch is not None

    def out(self, array: np.ndarray) -> Any:
        """Return ``array`` in the simulation's library (a torch tensor shares its memory; float64 becomes a
        float32 copy)."""
        if self._torch is None:
            return array
        tensor = self._torch.from_numpy(array)
        if tensor.dtype == self._torch.float64:
            return tensor.float()
        return tensor

    def floats(self, value: Any, shape: Sequence[int], name: str, finite: bool = True) -> np.ndarray:
        """Validate a float batch of exactly ``shape`` and return a float64 copy.

        Raises:
            ShapeError: The shape differs from ``shape``.
            NonFiniteError: ``finite`` and a value is NaN or infinite.
        """
        if fits(value, tuple(shape)):  # the common case: one copy
            return value.astype(np.float64)
        arr = to_numpy(value, name)
        if arr.dtype == object or np.issubdtype(arr.dtype, np.complexfloating) \
                or not np.issubdtype(arr.dtype, np.number):  # bools are not numbers
            raise SimuloValueError(f"{name} must be numeric, got dtype {arr.dtype}: {value!r}")
        if tuple(arr.shape) != tuple(shape):
            raise ShapeError(f"{name} must have shape {tuple(shape)}, got {tuple(arr.shape)}")
        out = np.array(arr, dtype=np.float64)
        if finite and not np.isfinite(out).all():
            bad = np.argwhere(~np.isfinite(out))[0].tolist()
            raise NonFiniteError(f"{name} contains a non-finite value {out[tuple(bad)]} at index {bad}")
        huge = np.isfinite(out) & (np.abs(out) > MAX_MAGNITUDE)
        if huge.any():
            bad = np.argwhere(huge)[0].tolist()
            raise SimuloValueError(f"{name} contains {out[tuple(bad)]!r} at index {bad}; values beyond "
                                   f"±{MAX_MAGNITUDE:g} would overflow the engine's arithmetic")
        return out

    def env_ids(self, value: Any, num_envs: int) -> np.ndarray:
        """Validate environment indices: any subset, any order, no repeats. ``None`` means all."""
        return index_array(value, num_envs, "env_ids", "environment")


def fits(value: Any, shape: tuple[int, ...]) -> bool:
    """Whether ``value`` is a plain float ndarray of exactly ``shape`` whose values are all finite and within
    ±:data:`MAX_MAGNITUDE`: the common input, which :meth:`Tensors.floats` would accept as it is.

    A False answer only says "take the checked path" (which gives the reason, or accepts what this quick
    test leaves to it): small arrays are tested by the sum of their magnitudes, which is NaN or infinite if
    any value is and beyond the bound if any value is.
    """
    if type(value) is not np.ndarray or value.shape != shape or value.dtype.kind != "f":
        return False
    if value.size <= _SMALL:  # a C-level sum of Python floats beats numpy's per-call overhead
        return sum(map(abs, value.ravel().tolist())) <= MAX_MAGNITUDE
    return bool((np.abs(value) <= MAX_MAGNITUDE).all())


def readonly(buffer: np.ndarray) -> np.ndarray:
    """A read-only view of ``buffer``: it shows every in-place change of the buffer and refuses writes."""
    view = buffer.view()
    view.flags.writeable = False
    return view


def plural(noun: str) -> str:
    """``body`` -> ``bodies``, ``joint`` -> ``joints``."""
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"


def index_array(value: Any, size: int, name: str, what: str) -> np.ndarray:
    """Validate a 1-D list of distinct integer indices into ``range(size)``; ``None`` gives all of them.

    Raises:
        EnvIdError: for ``env_ids``; SimuloValueError for other index lists.
    """
    err = EnvIdError if name == "env_ids" else SimuloValueError
    if value is None:
        return np.arange(size)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = [value]
    arr = to_numpy(value, name)
    if arr.ndim != 1:
        raise err(f"{name} must be a 1-D list of {what} indices, got shape {tuple(arr.shape)}: {value!r}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise err(f"{name} must hold integers, got dtype {arr.dtype}: {arr.tolist()}")
    outside = (arr < 0) | (arr >= size)  # before the cast to int64, which would wrap a uint64 above its maximum
    if outside.any():
        raise err(f"{name} {arr[outside].tolist()} out of range: there are {size} {plural(what)} (0..{size - 1})")
    arr = arr.astype(np.int64)
    uniq, counts = np.unique(arr, return_counts=True)
    if (counts > 1).any():
        raise err(f"{name} repeats {uniq[counts > 1].tolist()}; each {what} may appear once")
    return arr


def unit_poses(poses: np.ndarray) -> np.ndarray:
    """A copy of poses (N, 7) ``[x, y, z, qw, qx, qy, qz]`` with unit quaternions.

    Raises:
        SimuloValueError: A quaternion has zero length (the message names the first such row).
    """
    zero = np.linalg.norm(poses[:, 3:], axis=1) < 1e-9
    if zero.any():
        bad = int(np.argmax(zero))
        raise SimuloValueError(f"pose row {bad} has a zero quaternion {poses[bad, 3:].tolist()}; expected "
                               "[qw, qx, qy, qz] of unit length")
    out = poses.copy()
    out[:, 3:] = normalize_quat(poses[:, 3:])
    return out
