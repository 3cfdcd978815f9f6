"""The VizStream channel table and its protobuf schemas, as simulo-viz 0.1.0 defines them.

The schemas are written here as ``.proto`` sources (``proto/``: the ``simulo.vizstream.v1`` messages and
the Foxglove messages they use, field for field as simulo-viz 0.1.0 defines them) and compiled by
``scripts/build_vizstream.py`` into ``vizstream.binpb``, byte for byte the descriptor set simulo-viz
publishes. It is loaded into a private descriptor pool so that no other copy of ``foxglove/*.proto`` in
the process can clash with it. A channel registers, as its schema, the serialized ``FileDescriptorSet``
of the file defining its message and every file that file imports, dependencies first (MCAP's protobuf
profile), so a recording made here carries the same topic, schema name and schema bytes as one made by
the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from simulo._optional import require

PACKAGE = "simulo.vizstream.v1"
SCENE = f"{PACKAGE}.Scene"
POSE_FRAME = f"{PACKAGE}.PoseFrame"
STEP_FRAME = f"{PACKAGE}.StepFrame"
EVENT = f"{PACKAGE}.Event"
FOXGLOVE_FRAME_TRANSFORMS = "foxglove.FrameTransforms"

PROTOBUF = "protobuf"


@dataclass(frozen=True)
class Channel:
    """One channel of the table: its topic and the message it carries.

    Attributes:
        topic: The MCAP (and Foxglove WebSocket) topic.
        schema_name: Full protobuf name of the message.
        latest: Each message is complete and replaces the last (a live viewer may skip to the newest).
    """

    topic: str
    schema_name: str
    latest: bool


SCENE_TOPIC = "/vizstream/scene"
POSES_TOPIC = "/vizstream/poses"
STEP_TOPIC = "/vizstream/step"
EVENTS_TOPIC = "/vizstream/events"
FOXGLOVE_TF_TOPIC = "/vizstream/foxglove/tf"

#: The VizStream channels a local recording writes (simulo-viz's table holds more: overlays, markers,
#: deformables and Foxglove scene updates, which nothing here produces).
CHANNELS: tuple[Channel, ...] = (
    Channel(SCENE_TOPIC, SCENE, latest=False),
    Channel(POSES_TOPIC, POSE_FRAME, latest=True),
    Channel(STEP_TOPIC, STEP_FRAME, latest=True),
    Channel(EVENTS_TOPIC, EVENT, latest=False),
    Channel(FOXGLOVE_TF_TOPIC, FOXGLOVE_FRAME_TRANSFORMS, latest=True),
)
BY_TOPIC = {channel.topic: channel for channel in CHANNELS}


@cache
def _descriptor_set() -> Any:
    descriptor_pb2 = require("google.protobuf.descriptor_pb2", "writing recordings")
    files = descriptor_pb2.FileDescriptorSet()
    files.ParseFromString(resources.files(__package__).joinpath("vizstream.binpb").read_bytes())
    return files


@cache
def _pool() -> Any:
    descriptor_pool = require("google.protobuf.descriptor_pool", "writing recordings")
    pool = descriptor_pool.DescriptorPool()
    for file in _descriptor_set().file:
        pool.Add(file)
    return pool


@cache
def message_class(full_name: str) -> Any:
    """The generated protobuf class of ``full_name`` (a VizStream or Foxglove message)."""
    message_factory = require("google.protobuf.message_factory", "writing recordings")
    return message_factory.GetMessageClass(_pool().FindMessageTypeByName(full_name))


def new(full_name: str, **fields: Any) -> Any:
    """A new ``full_name`` message with ``fields`` set."""
    return message_class(full_name)(**fields)


def encode(message: Any) -> bytes:
    """The message's bytes, deterministic (equal messages give equal bytes)."""
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def decode(full_name: str, data: bytes) -> Any:
    """Parse ``data`` as a ``full_name`` message."""
    message = message_class(full_name)()
    message.ParseFromString(data)
    return message


@cache
def schema_data(full_name: str) -> bytes:
    """The schema bytes a channel carrying ``full_name`` registers: its file and their imports, dependencies first."""
    files = {file.name: file for file in _descriptor_set().file}
    ordered: list[str] = []

    def visit(name: str) -> None:
        if name not in ordered:
            for dependency in files[name].dependency:
                visit(dependency)
            ordered.append(name)

    visit(_pool().FindMessageTypeByName(full_name).file.name)
    closure = type(_descriptor_set())()
    closure.file.extend(files[name] for name in ordered)
    return encode(closure)
