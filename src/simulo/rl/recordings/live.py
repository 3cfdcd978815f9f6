"""``simulo run --viewstream``: the recordings' VizStream channels served live to Foxglove on a WebSocket.

The job process serves one Foxglove WebSocket (``foxglove-sdk``, the ``record`` extra; ws-protocol
subprotocol ``foxglove.websocket.v1``) on ``127.0.0.1:8765`` unless told otherwise, started by
:func:`serve` before the job runs. Every :class:`simulo.LearningEnv` the job then builds is stepped
through a :class:`LiveBackend`, which sends what a recording holds (:mod:`simulo.rl.recordings.rollout`)
for environment 0: the ``Scene``, its poses, joints, actions and rewards, episode events, the Foxglove
frame transforms and the scene cameras' images. The channels carry the recordings' topics and schemas
(the VizStream protobuf descriptor sets, the images as ``foxglove.CompressedImage`` JSON), so Foxglove
shows a live job as it shows its MCAP.

Live messages are stamped with the wall clock, and sent at most :data:`POSE_HZ` times a second (camera
images :data:`IMAGE_HZ`), whatever the step rate, so a training run is not slowed by its viewer. The
scene is sent again whenever a viewer subscribes to it. When the job builds several environments, the
newest one is shown. A preview's checks are shown too (:mod:`simulo.rl.preview.film`). Not shown: an
evaluation's environments (built apart from ``LearningEnv``), and under ``--workers`` the training
rollouts, which step inside the Ray workers (the job's own steps and resets still are).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from simulo._optional import require
from simulo.authoring.contract import RecordConfig
from simulo.errors import SimuloValueError
from simulo.rl.env import BackendFactory, EnvBackend
from simulo.rl.recordings import schemas
from simulo.rl.recordings.config import RecordingPlan
from simulo.rl.recordings.live_settings import ADDRESS_VARIABLE, DEFAULT_HOST, DEFAULT_PORT, ENABLED_VARIABLE
from simulo.rl.recordings.mcap_file import IMAGE_JSON_SCHEMA, IMAGE_SCHEMA, camera_topic, image_payload
from simulo.rl.recordings.rollout import RolloutRecorder
from simulo.rl.recordings.wrapped_backend import WrappedBackend, wrapping

POSE_HZ = 30.0
IMAGE_HZ = 5.0


class LiveStream:
    """A running Foxglove WebSocket server with the VizStream channels; a sink for :class:`RolloutRecorder`.

    Args:
        host: The interface to bind.
        port: The port (0: any free one; :attr:`port` tells which).

    Raises:
        MissingDependencyError: foxglove-sdk or protobuf is not installed.
        SimuloValueError: The server cannot listen there (the port is taken).
    """

    def __init__(self, host: str, port: int) -> None:
        self._foxglove: Any = require("foxglove", "serving simulo run --viewstream")
        self._context = self._foxglove.Context()
        self.scene_wanted = False
        self.active: Any = None  # the LiveBackend shown
        try:
            self._server = self._foxglove.start_server(name="simulo-local", host=host, port=port,
                                                       context=self._context, server_listener=_Listener(self))
        except RuntimeError as exc:
            raise SimuloValueError(f"--viewstream cannot listen on {host}:{port}: {exc}") from None
        self.host = host
        self._channels: dict[str, Any] = {}
        for channel in schemas.CHANNELS:
            schema = self._foxglove.Schema(name=channel.schema_name, encoding=schemas.PROTOBUF,
                                           data=schemas.schema_data(channel.schema_name))
            self._channels[channel.topic] = self._foxglove.Channel(
                channel.topic, schema=schema, message_encoding=schemas.PROTOBUF, context=self._context)

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._server.port)

    def write(self, topic: str, message: Any, time_ns: int) -> None:
        """Send a VizStream message on its channel-table topic."""
        self._channels[topic].log(schemas.encode(message), log_time=int(time_ns))

    def write_image(self, camera: str, rgb: np.ndarray, time_ns: int) -> None:
        """Send one RGB image of camera ``camera`` as a PNG ``foxglove.CompressedImage``."""
        topic = camera_topic(camera)
        channel = self._channels.get(topic)
        if channel is None:
            schema = self._foxglove.Schema(name=IMAGE_SCHEMA, encoding="jsonschema", data=IMAGE_JSON_SCHEMA)
            channel = self._channels[topic] = self._foxglove.Channel(topic, schema=schema, message_encoding="json",
                                                                     context=self._context)
        channel.log(image_payload(camera, rgb, time_ns), log_time=int(time_ns))

    def close(self) -> None:
        """Nothing: the server outlives the environments it shows (:func:`stop` ends it)."""

    def stop(self) -> None:
        """Stop the server."""
        self._server.stop()


class _Listener:
    """Asks for the scene again when a viewer subscribes to it (the foxglove-sdk ServerListener protocol).

    The server calls every ``on_*`` callback of the protocol; those not defined here do nothing.
    """

    def __init__(self, stream: LiveStream) -> None:
        self._stream = stream

    def on_subscribe(self, client: Any, channel: Any) -> None:
        if channel.topic == schemas.SCENE_TOPIC:
            self._stream.scene_wanted = True

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("on_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


_serving: list[LiveStream] = []


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> LiveStream:
    """Start this process's live stream (once; a second call returns the first stream)."""
    if not _serving:
        _serving.append(LiveStream(host, port))
    return _serving[0]


def serve_requested() -> LiveStream | None:
    """Serve as ``simulo run --viewstream`` asked through the environment, or ``None`` when it did not.

    Prints where the stream listens on stderr.
    """
    if os.environ.get(ENABLED_VARIABLE) != "1":
        return None
    host, _, port = os.environ.get(ADDRESS_VARIABLE, f"{DEFAULT_HOST}:{DEFAULT_PORT}").rpartition(":")
    stream = serve(host or DEFAULT_HOST, int(port))
    print(f"simulo run: live view on ws://{stream.host}:{stream.port} (Foxglove: Open connection, "
          "Foxglove WebSocket)", file=sys.stderr, flush=True)
    return stream


def current() -> LiveStream | None:
    """This process's live stream, or ``None``."""
    return _serving[0] if _serving else None


def stop() -> None:
    """Stop this process's live stream, if any."""
    if _serving:
        _serving.pop().stop()


class LiveRecorder(RolloutRecorder):
    """A :class:`RolloutRecorder` into a :class:`LiveStream`: wall-clock times, at most :data:`POSE_HZ` frames/s."""

    def __init__(self, env: Any, stream: LiveStream) -> None:
        from simulo.interfaces.authoring.record import resolve_includes  # noqa: PLC0415 - simulo-interfaces

        includes = resolve_includes(RecordConfig(include_video=True, include_tf=True))
        super().__init__(env, RecordingPlan(None, None, None, (0,), 1, POSE_HZ, includes), "live", sink=stream)
        self.stream = stream
        self._next_frame = 0.0
        self._next_image = 0.0

    def _time_ns(self) -> int:
        return time.time_ns()

    def close(self) -> list[Path]:
        """Nothing to finish: the stream keeps serving."""
        return []

    def _frame(self, actions: np.ndarray | None, rewards: np.ndarray | None) -> None:
        now = time.monotonic()
        if now < self._next_frame:
            return
        self._next_frame = now + 1.0 / POSE_HZ
        images = now >= self._next_image
        if images:
            self._next_image = now + 1.0 / IMAGE_HZ
        if self.stream.scene_wanted and self.scene_message is not None:
            self.stream.scene_wanted = False
            self.stream.write(schemas.SCENE_TOPIC, self.scene_message, self._time_ns())
        self._write_frame(self._time_ns(), actions, rewards, with_images=images)


class LiveBackend(WrappedBackend):
    """An environment backend shown live: ``inner`` steps, and environment 0 goes to the stream.

    Every member but the running ones is ``inner``'s.
    """

    def __init__(self, inner: EnvBackend, stream: LiveStream) -> None:
        super().__init__(inner)
        self.stream = stream
        self._recorder = LiveRecorder(inner, stream)
        self._started = False
        stream.active = self

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the environments; the first reset sends the scene."""
        out = self.inner.reset(seed, options)
        if self.stream.active is self:
            if self._started:
                self._recorder._frame(None, None)
            else:
                self._recorder.begin()
                self._started = True
        return out

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the environments and show the step."""
        out = self.inner.step(actions)
        if self._started and self.stream.active is self:
            self._recorder.step(actions, out[1], out[2], out[3])
        return out

    def close(self) -> None:
        """Close the environments; the stream shows nothing until another one is built."""
        if self.stream.active is self:
            self.stream.active = None
        self.inner.close()


def live_backend(stream: LiveStream, inner: BackendFactory | None = None) -> BackendFactory:
    """A backend factory for :func:`simulo.rl.env.env_backend`: ``inner``'s backends (else local ones), shown live."""
    return wrapping(lambda backend: LiveBackend(backend, stream), inner)
