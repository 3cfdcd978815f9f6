"""``simulo recordings RUN NAME --format foxglove -o FILE``: a recording exported as a new MCAP for Foxglove.

The SDK converts a finished job's recording with simulo-viz into a new MCAP that Foxglove (or Lichtblick) opens,
leaving the original unchanged. Here the recording is already a local MCAP in the VizStream layout; the export
writes a new one through the same writer (:class:`~simulo.rl.recordings.mcap_file.McapFile`):

* every message of the recording, unchanged (same topics, schemas, bytes and log times), so Foxglove's panels
  read the VizStream channels and the camera images (``foxglove.CompressedImage``) as before;
* every link and body as a Foxglove frame on ``/vizstream/foxglove/tf`` (``foxglove.FrameTransforms``), which
  Foxglove's 3D panel draws: derived from ``/vizstream/scene`` and ``/vizstream/poses`` when the recording has
  no such channel (a ``RecordConfig`` without ``include_tf``), copied otherwise;
* the recording's ``simulo.recording`` metadata, with ``export_format=foxglove`` and ``exported_from``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simulo._optional import require
from simulo.errors import SimuloValueError
from simulo.rl.recordings import schemas
from simulo.rl.recordings.frames import frame_transforms
from simulo.rl.recordings.mcap_file import McapFile

_METADATA = "simulo.recording"


class RecordingExportError(SimuloValueError):
    """A recording cannot be exported: not an MCAP, unreadable, or the destination is taken."""


@dataclass(frozen=True)
class Export:
    """What an export wrote.

    Attributes:
        path: The new MCAP.
        messages: Messages copied from the recording.
        transforms: ``foxglove.FrameTransforms`` messages derived from its poses (0 when it had them).
    """

    path: Path
    messages: int
    transforms: int


def default_destination(source: Path) -> Path:
    """Where an export goes without ``-o``: ``<stem>.foxglove.mcap`` in the current folder, as the SDK's."""
    return Path.cwd() / f"{source.stem}.foxglove.mcap"


def export_foxglove(source: Path, destination: Path) -> Export:
    """Write ``source`` (a VizStream MCAP) to the new file ``destination`` for Foxglove.

    Raises:
        RecordingExportError: ``source`` is not a readable MCAP, or ``destination`` exists, is ``source`` or does
            not end in ``.mcap``.
        MissingDependencyError: mcap or protobuf (the ``record`` extra) is not installed.
    """
    if source.suffix.lower() != ".mcap" or not source.is_file():
        raise RecordingExportError(f"{str(source)!r} is not an MCAP recording; export one of the run's .mcap files")
    if destination.suffix.lower() != ".mcap":
        raise RecordingExportError(f"-o {str(destination)!r}: the export is an MCAP; name a new .mcap file")
    if destination.exists():
        raise RecordingExportError(f"-o {str(destination)!r} exists; choose a new file path (the export never "
                                   "overwrites a file)")
    reader_module: Any = require("mcap.reader", "exporting recordings")
    with open(source, "rb") as stream:
        try:
            reader = reader_module.make_reader(stream)
            metadata = next((dict(m.metadata) for m in reader.iter_metadata() if m.name == _METADATA), {})
            summary = reader.get_summary()
        except Exception as exc:  # noqa: BLE001 - mcap raises many kinds for a damaged file
            raise RecordingExportError(f"{str(source)!r} is not a readable MCAP: {exc}") from None
        has_tf = summary is not None and any(c.topic == schemas.FOXGLOVE_TF_TOPIC
                                             for c in summary.channels.values())
        out = McapFile(destination, metadata={**metadata, "export_format": "foxglove",
                                              "exported_from": source.name})
        try:
            return _copy(reader, out, derive_tf=not has_tf)
        except Exception:
            out.close()
            destination.unlink(missing_ok=True)
            raise


def _copy(reader: Any, out: McapFile, derive_tf: bool) -> Export:
    scene, messages, transforms = None, 0, 0
    for schema, channel, message in reader.iter_messages(log_time_order=True):
        out.copy(channel.topic, schema, channel.message_encoding, message.data, message.log_time)
        messages += 1
        if channel.topic == schemas.SCENE_TOPIC:
            scene = schemas.decode(schemas.SCENE, message.data)
        elif channel.topic == schemas.POSES_TOPIC and derive_tf and scene is not None:
            poses = schemas.decode(schemas.POSE_FRAME, message.data)
            origins = np.array(scene.copy_origins, dtype=float).reshape(-1, 3)
            paths = [*scene.pose_layout.link_paths, *scene.pose_layout.body_paths]
            out.write(schemas.FOXGLOVE_TF_TOPIC, frame_transforms(poses, origins, paths, message.log_time),
                      message.log_time)
            transforms += 1
    return Export(out.close(), messages, transforms)
