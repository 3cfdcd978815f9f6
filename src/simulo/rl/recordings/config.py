"""Where and what a rollout records: the ``record=`` argument resolved against an environment.

``record`` is the SDK's: ``None`` (nothing), a path, or a :class:`simulo.RecordConfig` (simulo-interfaces'
own value type, with its ``include_*`` profiles). A path or ``output_path`` ending in ``.mcap`` names
the recording; any other path is a folder to write it in. Without one, recordings go to the run folder's
``recordings/`` (``$SIMULO_RUN_DIR``, set by ``simulo run``), else ``./recordings``, named
``<kind>-NNNN.mcap``. With ``include_video`` an MP4 of the same name sits beside the MCAP.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulo.authoring.contract import RecordConfig
from simulo.checks import is_int
from simulo.errors import SimuloValueError
from simulo.rl.recordings.video import check_video_path

RUN_DIR_ENV = "SIMULO_RUN_DIR"
RECORDINGS_DIR = "recordings"
SUFFIXES = (".mcap", ".mp4", ".gif")


def recordings_dir() -> Path:
    """The folder recordings go to by default: ``$SIMULO_RUN_DIR/recordings``, else ``./recordings``."""
    run_dir = os.environ.get(RUN_DIR_ENV)
    return (Path(run_dir) if run_dir else Path.cwd()) / RECORDINGS_DIR


def normalize_record(record: Any) -> RecordConfig | None:
    """``record=`` as a :class:`simulo.RecordConfig` (a path becomes ``RecordConfig(output_path=path)``).

    Raises:
        SimuloValueError: Another type.
    """
    if record is None or isinstance(record, RecordConfig):
        return record
    if isinstance(record, (str, os.PathLike)):
        return RecordConfig(output_path=record)
    raise SimuloValueError(f"record={record!r}: expected None, a path or a simulo.RecordConfig")


@dataclass(frozen=True)
class RecordingPlan:
    """A resolved recording.

    Attributes:
        mcap_path: The MCAP file, or ``None`` when only a video is recorded (``video_path=``).
        video_path: The MP4 (or GIF), or ``None``.
        video_frames: Most frames of the video (``None``: every recorded step).
        env_ids: Environments recorded (copies), ascending.
        every_n_steps: Record every n-th policy step.
        fps: Frames per second of the video.
        includes: The resolved ``include_*`` flags.
        compression: ``"zstd"``, ``"lz4"`` or ``"none"``.
        config: The RecordConfig it came from, or ``None``.
    """

    mcap_path: Path | None
    video_path: Path | None
    video_frames: int | None
    env_ids: tuple[int, ...]
    every_n_steps: int
    fps: float
    includes: dict[str, bool] = field(default_factory=dict)
    compression: str = "zstd"
    config: RecordConfig | None = None

    def wants(self, name: str) -> bool:
        """Whether ``include_<name>`` is on."""
        return bool(self.includes.get(f"include_{name}", False))


def plan_recording(record: Any, num_envs: int, step_dt: float, kind: str = "play",
                   video_path: str | os.PathLike[str] | None = None, video_length: int = 200) -> RecordingPlan | None:
    """Resolve ``record=`` (and the SDK's ``video_path``/``video_length``) for a batch of ``num_envs``.

    Args:
        record: ``None``, a path or a :class:`simulo.RecordConfig`.
        num_envs: Environments of the batch.
        step_dt: Simulated seconds per policy step.
        kind: Names default recordings (``play-0001.mcap``).
        video_path: An MP4 (or GIF) to film environment 0 into, as the SDK's ``RLPlayer.play``.
        video_length: Most frames of that video.

    Returns:
        The plan, or ``None`` when nothing is recorded.

    Raises:
        SimuloValueError: A bad type, path, environment index or video length; nothing is created.
    """
    from simulo.interfaces.authoring.record import resolve_includes  # noqa: PLC0415 - simulo-interfaces

    config = normalize_record(record)
    if config is None and video_path is None:
        return None
    explicit_video = None if video_path is None else check_video_path(video_path)
    if video_path is not None and not is_int(video_length, low=1):
        raise SimuloValueError(f"video_length={video_length!r}: expected an integer >= 1")
    if config is None:
        return RecordingPlan(None, explicit_video, video_length, (0,), 1, 1.0 / step_dt)
    env_ids = tuple(range(num_envs)) if config.record_all_envs else tuple(sorted(set(config.env_indices)))
    bad = [i for i in env_ids if i >= num_envs]
    if bad or not env_ids:
        raise SimuloValueError(f"RecordConfig.env_indices={config.env_indices!r}: expected environment indices "
                               f"from 0 to {num_envs - 1}")
    includes = resolve_includes(config)
    mcap_path = _mcap_path(config.output_path, kind)
    video = explicit_video
    if video is None and includes["include_video"]:
        video = mcap_path.with_suffix(".mp4")
    every = int(config.record_every_n_steps)
    fps = float(config.video_fps) if config.video_fps is not None else 1.0 / (step_dt * every)
    return RecordingPlan(mcap_path, video, video_length if explicit_video else None, env_ids, every,
                         min(fps, 120.0), includes, config.mcap_compression, config)


def _mcap_path(output: Any, kind: str) -> Path:
    if output is not None:
        path = Path(output)
        if path.suffix.lower() == ".mcap":
            return path
        if path.suffix and not path.is_dir():
            raise SimuloValueError(f"RecordConfig.output_path={str(output)!r}: expected a .mcap file or a folder")
        folder = path
    else:
        folder = recordings_dir()
    return next_free(folder, kind)


def next_free(folder: Path, kind: str) -> Path:
    """``folder/<kind>-NNNN.mcap`` with the first number no file of that name (any suffix) has."""
    taken = {p.stem for p in folder.glob(f"{kind}-*")} if folder.is_dir() else set()
    number = 1
    while f"{kind}-{number:04d}" in taken:
        number += 1
    return folder / f"{kind}-{number:04d}.mcap"
