"""evaluate(..., run_dir=) records its worst failed episodes (at most 10) and names them in the report and CSV."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from recording_tasks import CubeCartpole

from simulo.rl.evaluation import evaluate

pytest.importorskip("mcap")


def _push(obs):
    return np.full((len(obs), 1), 0.5)


def test_failed_episodes_are_recorded_and_named(tmp_path: Path) -> None:
    def every_episode_fails(task):
        return np.zeros(task.num_envs, bool)

    report = evaluate(CubeCartpole(), _push, episodes=3, num_envs=2, success=every_episode_fails,
                      run_dir=tmp_path)
    assert report["recorded"] == 3
    assert sorted(e["recording"] for e in report["listed_episodes"]) == ["episode-0", "episode-1", "episode-2"]
    for number in range(3):
        assert (tmp_path / "recordings" / f"episode-{number}.mcap").stat().st_size > 0
        assert (tmp_path / "recordings" / f"episode-{number}.mp4").stat().st_size > 0
    with open(tmp_path / "episodes.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["recording"] for row in rows] == ["episode-0", "episode-1", "episode-2"]


def test_successful_episodes_are_not_recorded(tmp_path: Path) -> None:
    report = evaluate(CubeCartpole(), _push, episodes=2, num_envs=2,
                      success=lambda task: np.ones(task.num_envs, bool), run_dir=tmp_path)
    assert report["recorded"] == 0 and not (tmp_path / "recordings").exists()


def test_without_a_run_folder_nothing_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    report = evaluate(CubeCartpole(), _push, episodes=2, num_envs=2, success=lambda task: np.zeros(task.num_envs, bool))
    assert report["recorded"] == 0 and list(tmp_path.iterdir()) == []
