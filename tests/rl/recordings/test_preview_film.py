"""preview(..., video=True) in a job films its checks: an MCAP and an MP4 on the preview's simulated clock."""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from recording_tasks import CubeCartpole

import simulo
from simulo.rl.preview.film import FINDINGS_TOPIC, NOT_IN_A_RUN
from simulo.rl.recordings import schemas
from simulo.rl.recordings.config import RUN_DIR_ENV

mcap_reader = pytest.importorskip("mcap.reader")
imageio = pytest.importorskip("imageio")
pytest.importorskip("imageio_ffmpeg")


class Pushed(CubeCartpole):
    """The cube cartpole with 20-step episodes."""

    episode_length_s = 20 * 2 / 120.0


class NanReward(Pushed):
    """Rewards turn NaN in environment 1 from the 3rd policy step of an episode."""

    def get_rewards(self):
        rewards = np.ones(self.num_envs)
        rewards[1] = np.nan if int(self.episode_length_buf[1]) >= 3 else 1.0
        return rewards


def _messages(path: Path) -> list[tuple[str, int, bytes]]:
    with open(path, "rb") as stream:
        return [(channel.topic, message.log_time, message.data)
                for _, channel, message in mcap_reader.make_reader(stream).iter_messages(log_time_order=True)]


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path))
    return tmp_path


def test_a_preview_in_a_job_films_every_check_at_its_simulated_speed(run_dir: Path) -> None:
    report = simulo.preview(Pushed(), num_envs=2, seed=1)
    facts = report["measurements"]["recording"]
    folder = run_dir / "recordings"
    assert facts["files"] == [str(folder / "preview-0001.mcap"), str(folder / "preview-0001.mp4")]
    assert report["measurements"]["video"] == str(folder / "preview-0001.mp4")
    assert facts["fps"] == 30.0 and facts["physics_dt"] == pytest.approx(1 / 120)
    # every check stepped the physics: settle 0.5 s, the sweep, the random moves, the training loop, the map
    assert facts["physics_steps"] * facts["physics_dt"] > 0.5 + 2 * 0.4 + 21 * 2 / 120
    expected = math.floor(facts["physics_steps"] * facts["physics_dt"] * 30.0 + 1e-9) + 1
    assert facts["frames"] == expected
    reader = imageio.v2.get_reader(folder / "preview-0001.mp4", format="FFMPEG")
    try:
        assert reader.count_frames() == expected
        assert reader.get_meta_data()["fps"] == pytest.approx(30.0)
        first, last = reader.get_data(0), reader.get_data(expected - 1)
    finally:
        reader.close()
    assert first.shape == (240, 320, 3) and first.std() > 5 and not np.array_equal(first, last)

    messages = _messages(folder / "preview-0001.mcap")
    counts = Counter(topic for topic, _, _ in messages)
    assert counts[schemas.SCENE_TOPIC] == 1 and counts[schemas.POSES_TOPIC] == expected
    assert counts[schemas.STEP_TOPIC] == expected
    warned = [row for stage in report["stages"] for row in stage["rows"] if row["status"] != "pass"]
    assert [row["title"] for row in warned] == ["Rewards vary"]  # the constant reward: a warning, not a failure
    findings = [(time, json.loads(data)) for topic, time, data in messages if topic == FINDINGS_TOPIC]
    assert [(time, row["title"]) for time, row in findings] == [(round(warned[0]["at_s"] * 1e9), "Rewards vary")]
    pose_times = [time for topic, time, _ in messages if topic == schemas.POSES_TOPIC]
    assert pose_times == [round(k / 30.0 * 1e9) for k in range(expected)]
    last_pose = schemas.decode(schemas.POSE_FRAME, [d for t, _, d in messages if t == schemas.POSES_TOPIC][-1])
    assert last_pose.sim_time_s == pytest.approx((expected - 1) / 30.0)
    assert [copy.copy_id for copy in last_pose.focused] == [0]
    assert report["verdict"] == "passed"


def test_a_failed_row_says_when_it_shows_and_the_finding_is_on_the_timeline(run_dir: Path) -> None:
    report = simulo.preview(NanReward(), num_envs=2, checks="training-loop", video=False)
    rows = [row for stage in report["stages"] for row in stage["rows"] if row["status"] == "fail"]
    nan_rows = [row for row in rows if "NaN" in (row["problem"] or "")]
    assert nan_rows and nan_rows[0]["env"] == 1
    # the 3rd policy step of the first episode: 3 * 2 physics steps of 1/120 s after the reset
    assert nan_rows[0]["at_s"] == pytest.approx(3 * 2 / 120)
    facts = report["measurements"]["recording"]
    assert facts["files"] == [str(run_dir / "recordings" / "preview-0001.mcap")]  # no MP4 without video
    assert report["measurements"]["video"] == "not requested"
    findings = [(time, json.loads(data)) for topic, time, data in _messages(Path(facts["files"][0]))
                if topic == FINDINGS_TOPIC]
    nan_findings = [(time, row) for time, row in findings if "NaN" in (row["problem"] or "")]
    assert nan_findings[0][0] == round(3 * 2 / 120 * 1e9)
    assert nan_findings[0][1]["stage"] == "training-loop" and nan_findings[0][1]["env"] == 1


def test_outside_a_job_a_preview_records_nothing_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.delenv(RUN_DIR_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    report = simulo.preview(Pushed(), num_envs=2, checks="settle")
    assert report["measurements"]["video"] == NOT_IN_A_RUN and "recording" not in report["measurements"]
    assert list(tmp_path.iterdir()) == []


def test_under_viewstream_the_checks_are_also_shown_live(run_dir: Path) -> None:
    client = pytest.importorskip("websockets.sync.client")
    pytest.importorskip("foxglove")
    from simulo.rl.recordings import live  # noqa: PLC0415

    stream = live.serve("127.0.0.1", 0)
    try:
        with client.connect(f"ws://127.0.0.1:{stream.port}", subprotocols=["foxglove.sdk.v1"]) as ws:
            channels: dict[str, int] = {}
            while schemas.POSES_TOPIC not in channels:
                message = ws.recv(timeout=30)
                if isinstance(message, str) and json.loads(message)["op"] == "advertise":
                    channels.update({c["topic"]: c["id"] for c in json.loads(message)["channels"]})
            ws.send(json.dumps({"op": "subscribe", "subscriptions": [
                {"id": 7, "channelId": channels[schemas.POSES_TOPIC]}]}))
            # the preview runs once the server has the subscription (a fixed sleep was a race on a loaded machine)
            poses = stream._channels[schemas.POSES_TOPIC]
            deadline = time.monotonic() + 60
            while not poses.has_sinks():
                assert time.monotonic() < deadline, "the server never took the subscription"
                time.sleep(0.01)
            report = simulo.preview(Pushed(), num_envs=2, checks="settle", video=False)
            message = ws.recv(timeout=30)
            while not (isinstance(message, bytes) and message[0] == 1):  # the first message data frame
                message = ws.recv(timeout=30)
            pose = schemas.decode(schemas.POSE_FRAME, message[13:])
    finally:
        live.stop()
    assert report["verdict"] == "passed"
    assert 0 <= pose.sim_time_s <= 0.5 + 1e-9 and [c.copy_id for c in pose.focused] == [0]  # settling, live
