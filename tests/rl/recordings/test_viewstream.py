"""``simulo run --viewstream``: the recordings' channels served live on a Foxglove WebSocket."""

from __future__ import annotations

import base64
import json
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulo.cli import run
from simulo.rl.recordings import schemas
from simulo.rl.recordings.mcap_file import IMAGE_SCHEMA, camera_topic

pytest.importorskip("foxglove")
pytest.importorskip("mcap")
client = pytest.importorskip("websockets.sync.client")

APP = Path(__file__).with_name("live_app.py")
SUBPROTOCOL = "foxglove.sdk.v1"  # foxglove-sdk 0.30's ws-protocol (the successor of foxglove.websocket.v1)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_listening(port: int, job: subprocess.Popen[str], within_s: float = 90.0) -> None:
    deadline = time.monotonic() + within_s
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert job.poll() is None, job.communicate()[1]
            assert time.monotonic() < deadline, "the live view never listened"
            time.sleep(0.2)


def _advertised(ws: object, topics: set[str], within_s: float = 60.0) -> dict[str, dict]:
    """Read the server's JSON messages until every topic in ``topics`` is advertised."""
    channels: dict[str, dict] = {}
    deadline = time.monotonic() + within_s
    while not topics <= set(channels):
        assert time.monotonic() < deadline, f"advertised only {sorted(channels)}"
        message = ws.recv(timeout=within_s)
        if isinstance(message, str):
            data = json.loads(message)
            if data["op"] == "advertise":
                channels.update({c["topic"]: c for c in data["channels"]})
    return channels


@pytest.mark.slow
def test_a_job_with_viewstream_serves_the_vizstream_channels_live(tmp_path: Path) -> None:
    port, stop = _free_port(), tmp_path / "stop"
    job = subprocess.Popen(
        [sys.executable, "-m", "simulo.cli.main", "run", str(APP), "--json", "--viewstream", "--viewstream-port",
         str(port), "--runs-dir", str(tmp_path / "runs"), "--stop-file", str(stop), "--seconds", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_listening(port, job)
        with client.connect(f"ws://127.0.0.1:{port}", subprotocols=[SUBPROTOCOL], open_timeout=60) as ws:
            assert ws.subprotocol == SUBPROTOCOL
            image_topic = camera_topic("side")
            wanted = {c.topic for c in schemas.CHANNELS} | {image_topic}
            channels = _advertised(ws, wanted)
            for channel in schemas.CHANNELS:
                advertised = channels[channel.topic]
                assert advertised["encoding"] == "protobuf" and advertised["schemaName"] == channel.schema_name
                assert advertised["schemaEncoding"] == "protobuf"
                assert base64.b64decode(advertised["schema"]) == schemas.schema_data(channel.schema_name)
            assert channels[image_topic]["schemaName"] == IMAGE_SCHEMA
            assert channels[image_topic]["encoding"] == "json"
            ids = {channels[t]["id"]: t for t in (schemas.SCENE_TOPIC, schemas.POSES_TOPIC, image_topic)}
            ws.send(json.dumps({"op": "subscribe", "subscriptions": [
                {"id": k, "channelId": channel_id} for k, channel_id in enumerate(ids)]}))
            by_subscription = dict(enumerate(ids.values()))
            got: dict[str, list[tuple[int, bytes]]] = {}
            deadline = time.monotonic() + 60
            while not all(len(got.get(t, [])) >= 3 for t in (schemas.POSES_TOPIC, image_topic)) \
                    or schemas.SCENE_TOPIC not in got:
                assert time.monotonic() < deadline, {t: len(v) for t, v in got.items()}
                message = ws.recv(timeout=60)
                if isinstance(message, bytes) and message[0] == 1:  # opcode 1: a message data frame
                    subscription, stamp = struct.unpack_from("<IQ", message, 1)
                    got.setdefault(by_subscription[subscription], []).append((stamp, message[13:]))
        scene = schemas.decode(schemas.SCENE, got[schemas.SCENE_TOPIC][0][1])  # sent again on subscribing
        assert [body.path for body in scene.bodies] == ["/World/Robot", "/World/Cube"]
        assert [camera.name for camera in scene.cameras] == ["side"]
        poses = [schemas.decode(schemas.POSE_FRAME, data) for _, data in got[schemas.POSES_TOPIC]]
        assert all([copy.copy_id for copy in frame.focused] == [0] for frame in poses)
        assert [frame.sequence for frame in poses] == sorted(frame.sequence for frame in poses)
        stamps = [stamp for stamp, _ in got[schemas.POSES_TOPIC]]
        assert stamps == sorted(stamps) and abs(stamps[-1] / 1e9 - time.time()) < 120  # wall-clock times
        image = json.loads(got[image_topic][0][1])
        assert image["format"] == "png" and base64.b64decode(image["data"]).startswith(b"\x89PNG")
        stop.touch()
        out, err = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
            job.communicate()
    assert job.returncode == 0, err
    assert f"live view on ws://127.0.0.1:{port}" in err
    assert json.loads(out)["steps"] > 0


def test_a_bad_viewstream_port_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for port in ("0", "65536", "http", "-1"):
        assert run.main([str(APP), "--viewstream", "--viewstream-port", port]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "--viewstream-port needs a port number from 1 to 65535" in err, err


def test_a_taken_viewstream_port_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert run.main([str(APP), "--viewstream", "--viewstream-port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"cannot listen on 127.0.0.1:{port}" in err and "--viewstream-port" in err and "\n" not in err


def test_viewstream_port_without_viewstream_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run.main([str(APP), "--viewstream-port", "9000"]) == 2
    assert "--viewstream-port needs --viewstream" in capsys.readouterr().err
    assert run.main([str(APP), "--viewstream", "--no-viewstream", "--viewstream-port", "9000"]) == 2


def test_every_learning_env_of_a_live_job_is_shown_the_newest_first() -> None:
    from recording_tasks import CubeCartpole  # noqa: PLC0415

    import simulo
    from simulo.rl.env import env_backend
    from simulo.rl.recordings import live

    stream = live.serve("127.0.0.1", 0)
    try:
        assert live.current() is stream and live.serve("127.0.0.1", 0) is stream  # one server per process
        with env_backend(live.live_backend(stream)):
            first = simulo.LearningEnv(CubeCartpole(), num_envs=2, tensor_library="numpy")
            second = simulo.LearningEnv(CubeCartpole(), num_envs=3, tensor_library="numpy")
        assert isinstance(first.backend, live.LiveBackend) and stream.active is second.backend
        first.return_final_observation = True  # set on the environment behind the live backend
        assert first.backend.inner.return_final_observation is True and first.sim is first.backend.inner.sim
        second.reset()
        _, rewards, _, _, _ = second.step([[0.5]] * 3)
        assert len(rewards) == 3 and second.backend._recorder.scene_message is not None
        second.close()
        assert stream.active is None
        first.close()
    finally:
        live.stop()
    assert live.current() is None
