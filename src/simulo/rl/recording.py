"""Headless video: frames from :meth:`simulo.Simulation.render` written to a GIF or MP4 with imageio-ffmpeg."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simulo._optional import require
from simulo.checks import check_real
from simulo.rl.recordings.video import FrameStream, check_video_path


class VideoWriter:
    """Collects RGB frames and writes them to ``path`` (``.gif`` or ``.mp4``) on :meth:`close`.

    Every frame added is a frame of the file, shown for ``1 / fps`` seconds (a GIF's delays are whole
    centiseconds, spread so that frame ``k`` starts at ``k / fps``).

    Args:
        path: Output file; the suffix chooses the format.
        fps: Frames per second of the video.

    Raises:
        SimuloValueError: Unknown suffix or bad fps.
        MissingDependencyError: imageio or imageio-ffmpeg (the ``video`` extra) is not installed.
    """

    def __init__(self, path: str | Path, fps: float = 30.0) -> None:
        self.path = check_video_path(path)
        self.fps = check_real(fps, "fps", low=0, high=120, low_open=True)
        require("imageio.v2", "recording video (simulo.VideoWriter)")
        self._stream = FrameStream(self.path, self.fps)
        self.frames: list[Any] = []

    def add(self, frame: Any) -> None:
        """Append one RGB frame (height, width, 3) uint8."""
        self.frames.append(frame)

    def close(self) -> Path:
        """Write the file and return its path.

        Raises:
            SimuloValueError: No frame was added.
            ShapeError: The frames are not all (height, width, 3) uint8 of one size.
        """
        for frame in self.frames[self._stream.frame_count:]:
            self._stream.send(frame)
        return self._stream.close()
