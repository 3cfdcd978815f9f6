"""Seeding: one random stream per environment, keyed by its global index, so a batch split over processes draws
the same numbers as the whole batch in one.

A task draws from its environment's stream through ``task.random_uniform``; a seeded reset
(:meth:`EnvStreams.seed_episode`) gives one environment a stream keyed by an episode number instead, so that
numbered episodes start alike in any process.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import numpy as np

from simulo.checks import check_int
from simulo.errors import SimuloValueError

MAX_SEED = 2**63 - 1
"""The largest seed: seeds are integers from 0 to 2**63 - 1 (what numpy, torch and an int64 record all hold)."""
MAX_RANDOM_BOUND = 1e12
"""The largest magnitude of a ``random_uniform`` bound (the float-input limit of docs/limits.md)."""


class EnvStreams:
    """The random streams of ``num_envs`` environments, the first of which has global index ``first_env``.

    Attributes:
        seed: The seed the streams were last made from (None: fresh entropy).
    """

    def __init__(self, num_envs: int, first_env: int) -> None:
        self._num_envs = num_envs
        self._first_env = first_env
        self.seed: int | None = None
        self._rngs: list[np.random.Generator] = []

    def reseed(self, seed: int | None) -> None:
        """One generator per environment from ``(seed, global index)``; also seeds Python's and torch's (None: fresh
        entropy, and the global generators are left alone). The caller has checked ``seed``."""
        entropy: Any = np.random.SeedSequence().entropy if seed is None else seed
        self.seed = seed
        self._rngs = [np.random.default_rng([entropy, 0, self._first_env + k]) for k in range(self._num_envs)]
        if seed is None:
            return
        random.seed(seed)
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.manual_seed(seed)

    def seed_episode(self, env: int, episode_number: int) -> None:
        """Give environment ``env`` the stream of ``(seed, episode_number)``, and torch's global generator (where
        torch is loaded) its seed, so that episode ``episode_number`` starts alike wherever it runs.

        Raises:
            SimuloValueError: ``episode_number`` is not an integer from 0 to 2**63 - 1 (nothing is changed).
        """
        check_int(episode_number, "episode_number", 0, MAX_SEED)
        base = 0 if self.seed is None else self.seed
        self._rngs[env] = np.random.default_rng([base, 1, int(episode_number)])
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.manual_seed(int(np.random.SeedSequence([base, 2, int(episode_number)]).generate_state(1)[0]))

    def uniform(self, low: float, high: float, size: tuple[int, ...], ids: np.ndarray) -> np.ndarray:
        """Uniform draws ``(len(ids), *size)``, each environment's row from its own stream.

        Raises:
            SimuloValueError: ``low`` or ``high`` is not numbers of magnitude at most :data:`MAX_RANDOM_BOUND`
                (NaN, infinity, text); no stream is drawn from.
        """
        for name, bound in (("low", low), ("high", high)):
            try:
                inside = bool((np.abs(np.asarray(bound, dtype=float)) <= MAX_RANDOM_BOUND).all())
            except (TypeError, ValueError):
                inside = False
            if not inside:
                raise SimuloValueError(f"random_uniform {name} must be finite numbers of magnitude at most "
                                       f"{MAX_RANDOM_BOUND:g}, got {bound!r}")
        draw = np.empty((len(ids), *size))
        for row, i in enumerate(ids):
            draw[row] = self._rngs[i].uniform(low, high, size=size)
        return draw
