"""Gymnasium adapters over :class:`~simulo.LearningEnv`, so other RL libraries can train on simulo tasks.

* :class:`GymVectorEnv` is a ``gymnasium.vector.VectorEnv`` over all ``num_envs`` environments, with
  ``AutoresetMode.SAME_STEP``: a finished environment is reset inside the same ``step``, and its last
  observation is in ``info["final_obs"]`` (masked by ``info["_final_obs"]``).
* :class:`GymEnv` is the single-environment ``gymnasium.Env`` form (``num_envs == 1``, no autoreset),
  which passes ``gymnasium.utils.env_checker.check_env``.

Observations and actions are float32 numpy arrays; actions live in ``[-1, 1]``. Needs ``gymnasium``
(``pip install simulo-local[gym]``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simulo._optional import missing_dependency

try:
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise missing_dependency("gymnasium", "the Gymnasium adapters (simulo.GymEnv, simulo.GymVectorEnv)") from exc

from simulo.rl.env import LearningEnv
from simulo.rl.task import Task
from simulo.sim.tensors import to_numpy


def _spaces(env: LearningEnv) -> tuple[gym.spaces.Box, gym.spaces.Box]:
    obs = gym.spaces.Box(-np.inf, np.inf, shape=(env.observation_dim,), dtype=np.float32)
    act = gym.spaces.Box(-1.0, 1.0, shape=(env.action_dim,), dtype=np.float32)
    return obs, act


def _np(value: Any, dtype: Any) -> np.ndarray:
    return np.asarray(to_numpy(value, "value"), dtype=dtype)


class GymVectorEnv(VectorEnv):
    """A Gymnasium vector environment over a :class:`LearningEnv` (numpy in and out).

    Args:
        env: The learning environment; its ``num_envs`` is the vector size.
    """

    # Gymnasium declares ``metadata`` as a plain (instance-typed) class attribute; a ClassVar would not match it.
    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(self, env: LearningEnv) -> None:
        self.env = env
        self.env.return_final_observation = True
        self.num_envs = env.num_envs
        self.single_observation_space, self.single_action_space = _spaces(env)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every environment."""
        obs, info = self.env.reset(seed=seed, options=options)
        return _np(obs, np.float32), info

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every environment; finished ones are reset in the same call."""
        obs, rew, term, trunc, info = self.env.step(np.asarray(actions, dtype=np.float64))
        out: dict[str, Any] = {}
        if "final_observation" in info:
            ids = info["final_env_ids"]
            final = np.empty(self.num_envs, dtype=object)
            mask = np.zeros(self.num_envs, dtype=bool)
            for row, i in enumerate(ids):
                final[i] = _np(info["final_observation"], np.float32)[row]
                mask[i] = True
            out["final_obs"], out["_final_obs"] = final, mask
        return _np(obs, np.float32), _np(rew, np.float32), _np(term, bool), _np(trunc, bool), out

    def close_extras(self, **kwargs: Any) -> None:
        """Shut the simulation down."""
        self.env.close()


class GymEnv(gym.Env):
    """A single simulo environment as a ``gymnasium.Env`` (no autoreset: call ``reset`` after an episode ends).

    Args:
        task_factory: Callable returning a fresh task instance (or a task instance).
        **env_kwargs: Passed to :class:`LearningEnv` (``num_envs`` is fixed to 1).
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 - as gymnasium.Env declares it

    def __init__(self, task_factory: Callable[[], Task] | Task, **env_kwargs: Any) -> None:
        task = task_factory() if callable(task_factory) and not isinstance(task_factory, Task) else task_factory
        env_kwargs["num_envs"] = 1
        self.env = LearningEnv(task, **env_kwargs)
        self.env.return_final_observation = True
        self.observation_space, self.action_space = _spaces(self.env)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode."""
        super().reset(seed=seed)
        obs, info = self.env.reset(seed=seed, options=options)
        return _np(obs, np.float32)[0], info

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Advance one step; on the last step of an episode the final observation is returned."""
        obs, rew, term, trunc, info = self.env.step(np.asarray(action, dtype=np.float64).reshape(1, -1))
        final = info["final_observation"] if "final_observation" in info else obs
        observation = _np(final, np.float32)[0]
        return observation, float(_np(rew, np.float64)[0]), bool(_np(term, bool)[0]), bool(_np(trunc, bool)[0]), {}

    def close(self) -> None:
        """Shut the simulation down."""
        self.env.close()
