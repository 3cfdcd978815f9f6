"""An environment backend that wraps another: every member is the inner backend's unless the wrapper defines its own.

The job's live view (:mod:`simulo.rl.recordings.live`) and ``--record-3d`` (:mod:`simulo.rl.recordings.training_3d`)
wrap the backends of the job's ``LearningEnv`` this way, through :func:`wrapping`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulo.rl.env import BackendFactory, EnvBackend
from simulo.rl.local_env import LocalEnv


class WrappedBackend:
    """The members an environment backend shares with the ``inner`` one it wraps (a subclass adds the rest).

    Args:
        inner: The backend that steps.
    """

    def __init__(self, inner: EnvBackend) -> None:
        self.inner = inner

    @property
    def return_final_observation(self) -> bool:
        """``inner``'s flag."""
        return bool(self.inner.return_final_observation)

    @return_final_observation.setter
    def return_final_observation(self, flag: bool) -> None:
        self.inner.return_final_observation = flag

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet
            raise AttributeError(name)
        return getattr(self.inner, name)


def wrapping(wrap: Callable[[EnvBackend], EnvBackend], inner: BackendFactory | None) -> BackendFactory:
    """A backend factory for :func:`simulo.rl.env.env_backend`: ``inner``'s backends (else local ones), each
    handed to ``wrap``."""

    def build(task: Any, num_envs: int, **options: Any) -> EnvBackend:
        backend = inner(task, num_envs, **options) if inner is not None else LocalEnv(task, num_envs, **options)
        return wrap(backend)

    return build
