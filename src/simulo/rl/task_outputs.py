"""Checking what a task's hooks return: shapes, dtypes, finiteness and done masks.

A malformed output raises a :class:`~simulo.errors.TaskError` naming the task, the method and the env step; a
NaN or infinity is a :class:`~simulo.errors.TaskNonFiniteError`, which a job's ``on_anomaly`` hears of. With
``check`` off (the evaluation and the preview, which report such outputs themselves) only what the runtime
needs to go on is checked: shapes, and that the values are arrays at all.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulo.errors import SimuloValueError, TaskError, TaskNonFiniteError
from simulo.sim.tensors import to_numpy


class TaskOutputs:
    """The output checks of one task over ``num_envs`` environments.

    Args:
        task_name: The task's class name, for messages.
        num_envs: The number of environments every output covers.
    """

    def __init__(self, task_name: str, num_envs: int) -> None:
        self._name = task_name
        self._num_envs = num_envs

    def array(self, value: Any, method: str, step: int) -> np.ndarray:
        """``value`` as a numpy array; a ``TaskError`` naming ``method`` and the step if it is none."""
        try:
            return to_numpy(value, method)
        except SimuloValueError as exc:
            raise TaskError(f"{self._name}.{method} returned {value!r} at env step {step}, not an array of "
                            "numbers") from exc

    def numbers(self, arr: np.ndarray, method: str, step: int) -> None:
        """Refuse a non-numeric dtype, then NaN and infinity (a ``TaskNonFiniteError``: ``on_anomaly`` hears)."""
        if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
            raise TaskError(f"{self._name}.{method} returned dtype {arr.dtype} at env step {step}; expected real "
                            "numbers")
        if np.issubdtype(arr.dtype, np.floating) and not np.isfinite(arr).all():
            bad = np.argwhere(~np.isfinite(arr))[0].tolist()
            raise TaskNonFiniteError(f"{self._name}.{method} returned a non-finite value {arr[tuple(bad)]} at index "
                                     f"{bad} at env step {step}")

    def observations(self, value: Any, observation_dim: int, step: int, check: bool) -> np.ndarray:
        """``get_observations()``'s value as an array of shape (num_envs, observation_dim)."""
        arr = self.array(value, "get_observations()", step)
        expected = (self._num_envs, observation_dim)
        if arr.shape != expected:
            raise TaskError(f"{self._name}.get_observations() returned shape {tuple(arr.shape)} at env step {step}; "
                            f"observation_dim={observation_dim} means {expected}")
        if check:
            self.numbers(arr, "get_observations()", step)
        return arr

    def vector(self, value: Any, method: str, dtype: type, step: int, check: bool) -> np.ndarray:
        """One value per environment, as ``dtype`` (``bool``: a done mask)."""
        arr = self.array(value, method, step)
        if arr.shape != (self._num_envs,):
            raise TaskError(f"{self._name}.{method} returned shape {tuple(arr.shape)} at env step {step}; expected "
                            f"({self._num_envs},)")
        if check and dtype is bool:
            self._mask(arr, method, step)
        elif check:
            self.numbers(arr, method, step)
        return arr.astype(dtype)

    def dones(self, value: Any, step: int, check: bool) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """``get_dones()``'s value as ``(terminated, truncated, named end conditions)``."""
        if not isinstance(value, tuple) or len(value) != 2:
            raise TaskError(f"{self._name}.get_dones() must return (terminated, truncated), got {value!r}")
        term, trunc = value
        named: dict[str, np.ndarray] = {}
        if isinstance(term, dict):  # named end conditions; an empty dict: the task never terminates
            for key, mask in term.items():
                named[str(key)] = self.vector(mask, f"get_dones()[0][{key!r}]", bool, step, check)
            terminated = (np.logical_or.reduce(list(named.values())) if named
                          else np.zeros(self._num_envs, dtype=bool))
        else:
            terminated = self.vector(term, "get_dones()[0] (terminated)", bool, step, check)
        return terminated, self.vector(trunc, "get_dones()[1] (truncated)", bool, step, check), named

    def _mask(self, arr: np.ndarray, method: str, step: int) -> None:
        """A done mask holds booleans, or integers 0 and 1: not strings, floats or NaN."""
        if arr.dtype == bool:
            return
        if np.issubdtype(arr.dtype, np.integer):
            bad = arr[(arr != 0) & (arr != 1)]
            if bad.size:
                raise TaskError(f"{self._name}.{method} returned a done mask with {bad[0].item()!r} at env step "
                                f"{step}; a mask holds True/False (or 0/1)")
            return
        raise TaskError(f"{self._name}.{method} returned a done mask of dtype {arr.dtype} at env step {step}; a "
                        "mask holds booleans (True/False)")
