"""Record single episodes of environment 0 after the fact: an evaluation's failures, a preview's random moves.

:func:`record_episode` resets the environment (episode ``number`` starts from ``env.seeded_reset(0,
number)``, the numbered start evaluations use), runs ``act`` until environment 0's episode ends and writes
``<name>.mcap`` and ``<name>.mp4`` into ``folder``. With the policy's mean action the episode replays the
one the evaluation judged: the same start, the same actions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from simulo.authoring.contract import RecordConfig
from simulo.rl.recordings.config import RecordingPlan
from simulo.rl.recordings.layout import numpy_rows
from simulo.rl.recordings.rollout import RolloutRecorder

#: Most failed episodes an evaluation records (the SDK's ``MAX_RECORDED_EPISODES``).
MAX_RECORDED_EPISODES = 10


def episode_plan(folder: Path, name: str, step_dt: float, video: bool = True) -> RecordingPlan:
    """The plan of one episode of environment 0: ``folder/<name>.mcap`` (and ``.mp4``), standard profile."""
    from simulo.interfaces.authoring.record import resolve_includes  # noqa: PLC0415 - simulo-interfaces

    mcap = folder / f"{name}.mcap"
    includes = resolve_includes(RecordConfig(include_video=video))
    return RecordingPlan(mcap, mcap.with_suffix(".mp4") if video else None, None, (0,), 1,
                         min(1.0 / step_dt, 120.0), includes)


def record_episode(env: Any, act: Callable[[Any], Any], folder: Path, name: str, number: int | None = None,
                   max_steps: int | None = None, video: bool = True) -> list[Path]:
    """Run one episode of environment 0 with ``act`` (observations -> actions) and record it.

    Args:
        env: A :class:`~simulo.rl.local_env.LocalEnv` (or a :class:`simulo.LearningEnv`).
        act: The policy, batched.
        folder: Where the files go.
        name: Their name, without suffix (``episode-64``).
        number: Start environment 0 from episode ``number``'s numbered start, or from a plain reset.
        max_steps: Stop after this many steps if the episode has not ended (default: its length limit + 1).
        video: Also write the MP4.

    Returns:
        The files: the MCAP, then the MP4.
    """
    plan = episode_plan(folder, name, float(env.dt), video)
    recorder = RolloutRecorder(env, plan, scene_id=name)
    try:
        env.reset()
        if number is not None:
            env.seeded_reset(0, number)
        obs = env.observations()
        recorder.begin()
        limit = int(env.max_episode_length) + 1 if max_steps is None else max_steps
        for _ in range(limit):
            actions = act(obs)
            obs, rewards, terminated, truncated, _ = env.step(actions)
            recorder.step(actions, rewards, terminated, truncated)
            if numpy_rows(terminated).reshape(-1)[0] or numpy_rows(truncated).reshape(-1)[0]:
                break
    finally:
        files = recorder.close()
    return files


def random_actions(action_dim: int, num_envs: int, seed: int) -> Callable[[Any], np.ndarray]:
    """A policy of uniform actions in [-1, 1], seeded."""
    rng = np.random.default_rng([seed, 3])

    def act(obs: Any) -> np.ndarray:
        return rng.uniform(-1.0, 1.0, (num_envs, action_dim))

    return act
