"""An MCAP file of VizStream channels (protobuf, simulo-viz's schemas) and camera images, written with ``mcap``.

A channel's schema and channel records are written the first time a message goes to its topic. Camera
images go to ``/sensors/camera/<name>/image`` as ``foxglove.CompressedImage`` (PNG, JSON encoded with
Foxglove's JSON schema), which Foxglove's Image panel shows.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from simulo._files import partial_path, publish, write_error
from simulo._optional import require
from simulo.rl.recordings import schemas

IMAGE_SCHEMA = "foxglove.CompressedImage"
_TIME = {"type": "object", "properties": {"sec": {"type": "integer", "minimum": 0},
                                          "nsec": {"type": "integer", "minimum": 0, "maximum": 999999999}}}
IMAGE_JSON_SCHEMA = json.dumps({
    "title": IMAGE_SCHEMA, "description": "A compressed image", "type": "object",
    "properties": {
        "timestamp": {**_TIME, "title": "time", "description": "Timestamp of image"},
        "frame_id": {"type": "string", "description": "Frame of reference for the image"},
        "data": {"type": "string", "contentEncoding": "base64", "description": "Compressed image data"},
        "format": {"type": "string", "description": "Image format: webp, jpeg or png"},
    },
}, separators=(",", ":")).encode()


def camera_topic(name: str) -> str:
    """The topic of camera ``name``'s images."""
    return f"/sensors/camera/{name}/image"


def image_payload(camera: str, rgb: np.ndarray, time_ns: int) -> bytes:
    """One RGB image (height, width, 3) uint8 as a ``foxglove.CompressedImage`` JSON message holding a PNG."""
    imageio: Any = require("imageio.v3", "recording camera images")
    buffer = io.BytesIO()
    imageio.imwrite(buffer, np.ascontiguousarray(rgb), extension=".png")
    sec, nsec = divmod(int(time_ns), 1_000_000_000)
    payload = {"timestamp": {"sec": sec, "nsec": nsec}, "frame_id": camera, "format": "png",
               "data": base64.b64encode(buffer.getvalue()).decode("ascii")}
    return json.dumps(payload, separators=(",", ":")).encode()


class McapFile:
    """An open MCAP file.

    The messages go to a hidden temporary file beside ``path`` (:func:`simulo._files.partial_path`), which
    :meth:`close` renames to ``path``: a recording killed half-way leaves no torn ``.mcap``.

    Args:
        path: The file (its folder is created).
        compression: ``"zstd"``, ``"lz4"`` or ``"none"``.
        metadata: Written as the file's ``simulo.recording`` metadata record (strings).

    Raises:
        MissingDependencyError: mcap or protobuf (the ``record`` extra) is not installed.
    """

    def __init__(self, path: Path, compression: str = "zstd", metadata: dict[str, str] | None = None) -> None:
        writer_module: Any = require("mcap.writer", "writing MCAP recordings")
        schemas.message_class(schemas.SCENE)  # protobuf present, schemas loadable, before a file is made
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._partial = partial_path(path)
        self._stream = open(self._partial, "wb")  # closed by close()
        kinds = {"zstd": writer_module.CompressionType.ZSTD, "lz4": writer_module.CompressionType.LZ4,
                 "none": writer_module.CompressionType.NONE}
        self._writer = writer_module.Writer(self._stream, compression=kinds[compression])
        self._writer.start(profile="", library="simulo-local")
        if metadata:
            self._writer.add_metadata("simulo.recording", metadata)
        self._schemas: dict[str, int] = {}
        self._channels: dict[str, int] = {}
        self.messages = 0

    def _channel(self, topic: str, schema: str, encoding: str, data: bytes, message_encoding: str) -> int:
        if topic not in self._channels:
            if schema not in self._schemas:
                self._schemas[schema] = self._writer.register_schema(name=schema, encoding=encoding, data=data)
            self._channels[topic] = self._writer.register_channel(topic=topic, message_encoding=message_encoding,
                                                                  schema_id=self._schemas[schema])
        return self._channels[topic]

    def _add(self, channel: int, time_ns: int, data: bytes) -> None:
        self._writer.add_message(channel_id=channel, log_time=time_ns, publish_time=time_ns, data=data,
                                 sequence=self.messages)
        self.messages += 1

    def write(self, topic: str, message: Any, time_ns: int) -> None:
        """Write a VizStream message to its channel-table topic at ``time_ns``."""
        spec = schemas.BY_TOPIC[topic]
        if message.DESCRIPTOR.full_name != spec.schema_name:
            raise TypeError(f"{topic} carries {spec.schema_name}, not {message.DESCRIPTOR.full_name}")
        channel = self._channel(topic, spec.schema_name, schemas.PROTOBUF, schemas.schema_data(spec.schema_name),
                                schemas.PROTOBUF)
        self._add(channel, time_ns, schemas.encode(message))

    def write_image(self, camera: str, rgb: np.ndarray, time_ns: int) -> None:
        """Write one RGB image (height, width, 3) uint8 of camera ``camera`` as a PNG at ``time_ns``."""
        channel = self._channel(camera_topic(camera), IMAGE_SCHEMA, "jsonschema", IMAGE_JSON_SCHEMA, "json")
        self._add(channel, time_ns, image_payload(camera, rgb, time_ns))

    def write_json(self, topic: str, schema_name: str, json_schema: bytes, payload: Any, time_ns: int) -> None:
        """Write ``payload`` as a JSON message on ``topic`` (schema ``schema_name``, a JSON Schema) at ``time_ns``."""
        channel = self._channel(topic, schema_name, "jsonschema", json_schema, "json")
        self._add(channel, time_ns, json.dumps(payload, separators=(",", ":")).encode())

    def copy(self, topic: str, schema: Any, message_encoding: str, data: bytes, time_ns: int) -> None:
        """Write a message read from another MCAP unchanged: its topic, its schema record (or ``None``) and bytes."""
        if topic not in self._channels and schema is None:
            self._channels[topic] = self._writer.register_channel(topic=topic, message_encoding=message_encoding,
                                                                  schema_id=0)
        name, encoding, schema_data = ("", "", b"") if schema is None else (schema.name, schema.encoding, schema.data)
        self._add(self._channel(topic, name, encoding, schema_data, message_encoding), time_ns, data)

    def close(self) -> Path:
        """Write the summary, close the file and give it its name; returns its path. Idempotent.

        Raises:
            RecordWriteError: The file cannot be finished (a full disk); no partial file is left.
        """
        if not self._stream.closed:
            try:
                self._writer.finish()
                self._stream.close()
            except OSError as exc:
                with contextlib.suppress(OSError):
                    self._stream.close()
                self._partial.unlink(missing_ok=True)
                raise write_error(self.path, "recording", exc) from exc
            publish(self._partial, self.path, "recording")
        return self.path
