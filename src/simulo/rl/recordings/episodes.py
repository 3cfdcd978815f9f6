"""Record single episodes after the fact: an evaluation's failed episodes, a preview's random moves.

:func:`record_episodes` replays numbered episodes side by side, one per environment (episode ``k`` starts
from ``env.seeded_reset(slot, k)``, the numbered start evaluations use), runs ``act`` until each has
ended and writes ``<name>.mcap`` and ``<name>.mp4`` for each into ``folder``. With the policy's mean
action an episode replays the one the evaluation judged: the same start, the same actions. Up to
``num_envs`` episodes cost one episode's worth of steps.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simulo.authoring.contract import RecordConfig
from simulo.errors import MissingDependencyError
from simulo.interfaces.platform.evaluation import MAX_RECORDED_EPISODES
from simulo.rl.recordings.config import RecordingPlan
from simulo.rl.recordings.layout import numpy_rows
from simulo.rl.recordings.rollout import RolloutRecorder


def episode_plan(folder: Path, name: str, env_id: int, step_dt: float, video: bool = True) -> RecordingPlan:
    """The plan of one episode in environment ``env_id``: ``folder/<name>.mcap`` (and ``.mp4``), standard profile."""
    from simulo.interfaces.authoring.record import resolve_includes  # noqa: PLC0415 - simulo-interfaces

    mcap = folder / f"{name}.mcap"
    includes = resolve_includes(RecordConfig(include_video=video))
    return RecordingPlan(mcap, mcap.with_suffix(".mp4") if video else None, None, (env_id,), 1,
                         min(1.0 / step_dt, 120.0), includes)


def record_episodes(env: Any, act: Callable[[Any], Any], episodes: Sequence[tuple[str, int | None]], folder: Path,
                    max_steps: int | None = None, video: bool = True) -> dict[str, list[Path]]:
    """Run episodes with ``act`` (batched observations -> actions) and record each one.

    Args:
        env: A :class:`~simulo.rl.local_env.LocalEnv` (or a :class:`simulo.LearningEnv`).
        act: The policy.
        episodes: ``(name, number)`` pairs: the files' name without suffix (``episode-64``), and the numbered
            start, or ``None`` for a plain reset.
        folder: Where the files go.
        max_steps: Stop an episode after this many steps if it has not ended (default: its length limit + 1).
        video: Also write the MP4s.

    Returns:
        Each name's files: the MCAP, then the MP4.
    """
    files: dict[str, list[Path]] = {}
    width = int(env.num_envs)
    for first in range(0, len(episodes), width):
        files.update(_wave(env, act, episodes[first:first + width], folder, max_steps, video))
    return files


def _wave(env: Any, act: Callable[[Any], Any], episodes: Sequence[tuple[str, int | None]], folder: Path,
          max_steps: int | None, video: bool) -> dict[str, list[Path]]:
    recorders = {slot: RolloutRecorder(env, episode_plan(folder, name, slot, float(env.dt), video), scene_id=name)
                 for slot, (name, _) in enumerate(episodes)}
    files: dict[str, list[Path]] = {}
    try:
        env.reset()
        for slot, (_, number) in enumerate(episodes):
            if number is not None:
                env.seeded_reset(slot, number)
        obs = env.observations()
        for recorder in recorders.values():
            recorder.begin()
        limit = int(env.max_episode_length) + 1 if max_steps is None else max_steps
        for _ in range(limit):
            actions = act(obs)
            obs, rewards, terminated, truncated, _ = env.step(actions)
            ended = (numpy_rows(terminated).reshape(-1) > 0) | (numpy_rows(truncated).reshape(-1) > 0)
            for slot, recorder in list(recorders.items()):
                recorder.step(actions, rewards, terminated, truncated)
                if ended[slot]:
                    files[episodes[slot][0]] = recorders.pop(slot).close()
            if not recorders:
                break
    finally:
        for slot, recorder in recorders.items():
            files[episodes[slot][0]] = recorder.close()
    return files


def record_episode(env: Any, act: Callable[[Any], Any], folder: Path, name: str, number: int | None = None,
                   max_steps: int | None = None, video: bool = True) -> list[Path]:
    """:func:`record_episodes` for one episode, in environment 0; returns its files."""
    return record_episodes(env, act, [(name, number)], folder, max_steps, video)[name]


def record_failures(env: Any, act: Callable[[Any], Any], records: Sequence[Any], folder: Path) -> None:
    """Record an evaluation's worst failed episodes (lowest total reward first, at most 10) as ``episode-<N>``.

    Each recorded record gets its ``recording`` name. ``records`` are
    :class:`~simulo.rl.evaluation_report.Episode` objects. Without the ``record`` extra the evaluation goes
    on unrecorded, with a warning.
    """
    failed = sorted((r for r in records if not r.success), key=lambda r: (r.total_reward, r.number))
    failed = failed[:MAX_RECORDED_EPISODES]
    if not failed:
        return
    try:
        record_episodes(env, act, [(f"episode-{r.number}", r.number) for r in failed], folder)
    except MissingDependencyError as exc:
        warnings.warn(f"evaluate: the failed episodes are not recorded: {exc}", stacklevel=2)
        return
    for r in failed:
        r.recording = f"episode-{r.number}"


def random_actions(action_dim: int, num_envs: int, seed: int) -> Callable[[Any], np.ndarray]:
    """A policy of uniform actions in [-1, 1], seeded."""
    rng = np.random.default_rng([seed, 3])

    def act(obs: Any) -> np.ndarray:
        return rng.uniform(-1.0, 1.0, (num_envs, action_dim))

    return act
