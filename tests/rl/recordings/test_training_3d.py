"""``simulo run --record-3d COPIES``: a training job's first copies recorded to the run's MCAP, read back with mcap."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from recording_tasks import CubeCartpole

import simulo
from simulo.errors import SimuloValueError
from simulo.rl.env import env_backend
from simulo.rl.recordings import schemas
from simulo.rl.recordings.config import RUN_DIR_ENV
from simulo.rl.recordings.training_3d import EVERY_N_STEPS, recording_backend
from simulo.rl.recordings.training_3d_settings import COPIES_VARIABLE, environ, parse_copies, requested_copies

mcap_reader = pytest.importorskip("mcap.reader")

SAMPLE = Path(__file__).parents[3] / "samples" / "cartpole"


def _decoded(path: Path) -> dict[str, list[object]]:
    with open(path, "rb") as stream:
        messages = list(mcap_reader.make_reader(stream).iter_messages(log_time_order=True))
    decoded: dict[str, list[object]] = {}
    for schema, channel, message in messages:
        decoded.setdefault(channel.topic, []).append(schemas.decode(schema.name, message.data))
    return decoded


def test_the_first_copies_poses_go_to_the_runs_recordings_every_n_steps(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path))
    steps = 3 * EVERY_N_STEPS + 1
    with env_backend(recording_backend(3)):
        env = simulo.LearningEnv(CubeCartpole(), num_envs=4, tensor_library="numpy")
    try:
        env.reset()
        for k in range(steps):
            env.step(np.full((4, 1), np.sin(k / 3.0)))
    finally:
        env.close()
    (path,) = (tmp_path / "recordings").glob("*.mcap")
    assert path.name == "train-3d-0001.mcap"
    decoded = _decoded(path)
    (scene,) = decoded[schemas.SCENE_TOPIC]
    assert scene.scene_id == "train-3d" and scene.copies_per_rank == 4
    poses = decoded[schemas.POSES_TOPIC]
    assert len(poses) == 1 + steps // EVERY_N_STEPS  # the reset, then every EVERY_N_STEPS-th step
    assert [frame.global_step for frame in poses] == [k * EVERY_N_STEPS for k in range(len(poses))]
    assert all([c.copy_id for c in frame.focused] == [0, 1, 2] for frame in poses)
    assert all(len(c.link_poses) == 3 * 7 and len(c.body_poses) == 7 for frame in poses for c in frame.focused)
    kinds = Counter((e.copy_id, e.WhichOneof("kind")) for e in decoded[schemas.EVENTS_TOPIC])
    assert kinds[(0, "episode_start")] >= 1 and kinds[(2, "episode_end")] >= 1  # 5-step episodes end meanwhile
    assert {e.copy_id for e in decoded[schemas.EVENTS_TOPIC]} == {0, 1, 2}


def test_more_copies_than_environments_records_them_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path))
    with env_backend(recording_backend(64)):
        env = simulo.LearningEnv(CubeCartpole(), num_envs=2, tensor_library="numpy")
    try:
        env.reset()
        env.step(np.zeros((2, 1)))
    finally:
        env.close()
    poses = _decoded(tmp_path / "recordings" / "train-3d-0001.mcap")[schemas.POSES_TOPIC]
    assert [c.copy_id for c in poses[0].focused] == [0, 1]


def test_the_setting_is_checked_and_handed_to_the_job(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_copies("64") == 64 and environ(3) == ((COPIES_VARIABLE, "3"),) and environ(None) == ()
    for bad in ("0", "65", "two", "-1", ""):
        with pytest.raises(SimuloValueError, match=f"--record-3d needs a number of copies from 1 to 64, got {bad!r}"):
            parse_copies(bad)
    monkeypatch.delenv(COPIES_VARIABLE, raising=False)
    assert requested_copies() is None
    monkeypatch.setenv(COPIES_VARIABLE, "5")
    assert requested_copies() == 5


def test_simulo_run_record_3d_records_the_training_environments(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    runs = tmp_path / "runs"
    done = subprocess.run([sys.executable, "-m", "simulo.cli.main", "run", str(SAMPLE / "train.py"), "--num-envs", "8",
                           "--max-iterations", "1", "--record-3d", "2", "--runs-dir", str(runs)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    files = sorted((runs / "cartpole" / "train" / "0001" / "recordings").glob("train-3d-*.mcap"))
    assert files, done.stderr
    poses = _decoded(files[0])[schemas.POSES_TOPIC]
    assert len(poses) > 1 and all([c.copy_id for c in frame.focused] == [0, 1] for frame in poses)
