"""Single episodes of environment 0 recorded after the fact (an evaluation's failures, a preview)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from recording_tasks import CubeCartpole

from simulo.rl.local_env import LocalEnv
from simulo.rl.recordings import schemas
from simulo.rl.recordings.episodes import random_actions, record_episode, record_episodes

mcap_reader = pytest.importorskip("mcap.reader")
imageio = pytest.importorskip("imageio")


def _topics(path: Path) -> Counter[str]:
    with open(path, "rb") as stream:
        return Counter(channel.topic for _, channel, _ in mcap_reader.make_reader(stream).iter_messages())


def _first_step_joints(path: Path) -> list[float]:
    with open(path, "rb") as stream:
        for schema, _, message in mcap_reader.make_reader(stream).iter_messages(topics=[schemas.STEP_TOPIC]):
            return [j.position for j in schemas.decode(schema.name, message.data).copies[0].joints]
    raise AssertionError("no step frame")


def test_an_episode_is_recorded_to_its_end_from_its_numbered_start(tmp_path: Path) -> None:
    env = LocalEnv(CubeCartpole(), num_envs=3, seed=7)
    try:
        act = random_actions(env.action_dim, env.num_envs, seed=0)
        files = record_episode(env, act, tmp_path, "episode-4", number=4)
        again = record_episode(env, random_actions(env.action_dim, env.num_envs, seed=0), tmp_path / "b",
                               "episode-4", number=4)
    finally:
        env.close()
    assert files == [tmp_path / "episode-4.mcap", tmp_path / "episode-4.mp4"]
    counts = _topics(files[0])
    # the start and the 5 steps of the episode; its start, its end and the start of the next one
    assert counts[schemas.STEP_TOPIC] == 6 == counts[schemas.POSES_TOPIC] and counts[schemas.EVENTS_TOPIC] == 3
    assert _first_step_joints(files[0]) == _first_step_joints(again[0])  # the numbered start repeats
    reader = imageio.v2.get_reader(files[1], format="FFMPEG")
    try:
        assert reader.count_frames() == 6
    finally:
        reader.close()


def test_max_steps_cuts_a_long_episode_and_video_can_be_left_out(tmp_path: Path) -> None:
    env = LocalEnv(CubeCartpole(), num_envs=1)
    try:
        files = record_episode(env, lambda obs: np.zeros((1, 1)), tmp_path, "preview-0001", max_steps=2,
                               video=False)
    finally:
        env.close()
    assert files == [tmp_path / "preview-0001.mcap"]
    assert _topics(files[0])[schemas.STEP_TOPIC] == 3


def test_several_episodes_replay_side_by_side_one_file_each(tmp_path: Path) -> None:
    env = LocalEnv(CubeCartpole(), num_envs=2)
    try:
        steps_before = env.step_count
        files = record_episodes(env, lambda obs: np.zeros((2, 1)), [("episode-1", 1), ("episode-5", 5),
                                                                     ("episode-9", 9)], tmp_path, video=False)
        steps = env.step_count - steps_before
    finally:
        env.close()
    assert files == {name: [tmp_path / f"{name}.mcap"] for name in ("episode-1", "episode-5", "episode-9")}
    assert all(_topics(paths[0])[schemas.STEP_TOPIC] == 6 for paths in files.values())
    assert steps == 10  # two waves (2 environments) of one 5-step episode each
