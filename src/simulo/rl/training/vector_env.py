"""The batched environment interface the trainer and the player drive (importable without torch)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from simulo.checks import is_int
from simulo.errors import SimuloValueError


@runtime_checkable
class VectorEnvLike(Protocol):
    """A batch of ``num_envs`` environments stepped together, with automatic resets.

    ``reset()`` returns observations of shape ``(num_envs, observation_dim)`` (float32), or
    Gymnasium-style ``(observations, info)`` as ``simulo.LearningEnv`` does.
    ``step(actions)`` takes actions ``(num_envs, action_dim)`` in about ``[-1, 1]`` and returns
    ``(obs, rewards, terminated, truncated, info)`` with rewards ``(num_envs,)`` float32 and
    terminated/truncated ``(num_envs,)`` bool. An environment that finished is reset inside
    ``step``: its row of ``obs`` is the first observation of its next episode. When any episode
    finished, ``info["episode"]`` holds ``"return"`` and ``"length"`` of the finished episodes.
    ``simulo.LearningEnv`` is one such environment; tensors may be torch tensors or numpy arrays.
    """

    num_envs: int
    observation_dim: int
    action_dim: int
    device: Any

    def reset(self) -> Any:
        """Reset every environment and return the observations."""
        ...

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Apply actions, advance one control step, and return the transition."""
        ...


def check_vector_env(env: Any) -> tuple[int, int, int]:
    """Check that ``env`` has the :class:`VectorEnvLike` surface with sensible sizes.

    Args:
        env: The environment.

    Returns:
        ``(num_envs, observation_dim, action_dim)``.

    Raises:
        SimuloValueError: A member is missing or a size is not a positive integer.
    """
    if not isinstance(env, VectorEnvLike):
        wanted = ("num_envs", "observation_dim", "action_dim", "device", "reset", "step")
        missing = [name for name in wanted if not hasattr(env, name)]
        raise SimuloValueError(
            f"env={type(env).__name__!r} is not a batched environment: it lacks {missing} "
            "(expected e.g. simulo.LearningEnv)"
        )
    sizes = []
    for name in ("num_envs", "observation_dim", "action_dim"):
        value = getattr(env, name)
        if not is_int(value, low=1):
            raise SimuloValueError(f"env.{name}={value!r}: expected an integer >= 1")
        sizes.append(value)
    return sizes[0], sizes[1], sizes[2]


def reset_observations(result: Any) -> Any:
    """Return the observations of a ``reset()`` result, which may be ``obs`` or ``(obs, info)``."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], Mapping):
        return result[0]
    return result
