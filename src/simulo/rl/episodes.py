"""Episode bookkeeping of a batch of environments: each one's length and return, and how its last step ended.

The arrays are updated in place, so the views a task holds (``episode_length_buf``, ``reset_terminated``) stay
current.
"""

from __future__ import annotations

import numpy as np


class Episodes:
    """The running episodes of ``num_envs`` environments.

    Attributes:
        length: Env steps since each episode began (num_envs,), int64.
        returns: Each episode's summed reward so far (num_envs,).
        terminated: Which episodes an end condition finished at the last step (num_envs,), bool.
        time_limit: Which episodes are ending by the time limit with no end condition (num_envs,), bool: the
            SDK's "time limit" ending, true from step ``max_length - 1``.
    """

    def __init__(self, num_envs: int) -> None:
        self.length = np.zeros(num_envs, dtype=np.int64)
        self.returns = np.zeros(num_envs)
        self.terminated = np.zeros(num_envs, dtype=bool)
        self.time_limit = np.zeros(num_envs, dtype=bool)

    def count_step(self) -> None:
        """Count the env step just taken (before the task's end conditions read the lengths)."""
        self.length += 1

    def end_step(self, terminated: np.ndarray, truncated: np.ndarray, max_length: int) -> np.ndarray:
        """Record how the step ended; returns the truncation mask, which the time limit joins for an episode that
        reached ``max_length`` steps and did not terminate."""
        self.terminated[:] = terminated
        time_out = self.length >= max_length
        self.time_limit[:] = (self.length >= max_length - 1) & ~terminated
        return truncated | (time_out & ~terminated)

    def restart(self, ids: np.ndarray) -> None:
        """Begin new episodes in the environments ``ids``."""
        self.length[ids] = 0
        self.returns[ids] = 0.0
