"""Frames to an MP4 or GIF through imageio-ffmpeg, streamed as they come, with exact frame timing.

ffmpeg writes every frame it is given (a GIF through Pillow merges identical consecutive frames) and spreads
the GIF's centisecond delays so that frame ``k`` starts at ``k / fps`` seconds (at 30 fps: 30, 40, 30 ms, ...).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from simulo._files import partial_path, publish
from simulo._optional import require
from simulo.checks import check_real
from simulo.errors import ShapeError, SimuloValueError

SUFFIXES = (".gif", ".mp4")
# a GIF gets one palette fitted to all its frames (ffmpeg's default palette is a fixed 256-colour cube)
_GIF_PALETTE = ["-filter_complex", "split[frames][copy];[copy]palettegen=stats_mode=diff[palette];"
                "[frames][palette]paletteuse"]


def check_video_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a Path, if its suffix is ``.gif`` or ``.mp4``.

    Raises:
        SimuloValueError: Another suffix.
    """
    resolved = Path(path)
    if resolved.suffix.lower() not in SUFFIXES:
        raise SimuloValueError(f"video file must end in .gif or .mp4, got {str(path)!r}")
    return resolved


class FrameStream:
    """An open video file: :meth:`send` RGB frames of one size, then :meth:`close`.

    ffmpeg writes to a hidden temporary file beside ``path`` (:func:`simulo._files.partial_path`), which
    :meth:`close` renames to ``path``: a recording killed half-way leaves no torn video.

    Args:
        path: ``.mp4`` (H.264, yuv420p) or ``.gif``.
        fps: Frames per second, in (0, 120].

    Raises:
        SimuloValueError: Bad suffix or fps.
        MissingDependencyError: imageio-ffmpeg (the ``video`` extra) is not installed.
    """

    def __init__(self, path: str | Path, fps: float) -> None:
        self.path = check_video_path(path)
        self.fps = check_real(fps, "fps", low=0, high=120, low_open=True)
        self._ffmpeg: Any = require("imageio_ffmpeg", "writing video")
        self._writer: Any = None
        self._size: tuple[int, int] | None = None
        self.frame_count = 0

    def send(self, frame: Any) -> None:
        """Write one RGB frame (height, width, 3) uint8; every frame must have the first one's size.

        Raises:
            ShapeError: A frame of another shape or type.
        """
        rows = np.ascontiguousarray(np.asarray(frame))
        if rows.ndim != 3 or rows.shape[2] != 3 or rows.dtype != np.uint8:
            raise ShapeError(f"a video frame must be (height, width, 3) uint8, got {rows.shape} {rows.dtype}")
        height, width = int(rows.shape[0]), int(rows.shape[1])
        if self._size is None:
            self._open(width, height)
        elif self._size != (width, height):
            raise ShapeError(f"video frame {self.frame_count} is {width}x{height}; the video is "
                             f"{self._size[0]}x{self._size[1]}")
        self._writer.send(rows)
        self.frame_count += 1

    def _open(self, width: int, height: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        gif = self.path.suffix.lower() == ".gif"
        even = width % 2 == 0 and height % 2 == 0
        # the temporary file's name does not say the container, so ffmpeg is told (-f)
        options: dict[str, Any] = (
            {"codec": "gif", "pix_fmt_out": "pal8", "output_params": [*_GIF_PALETTE, "-f", "gif"]} if gif else
            {"codec": "libx264", "pix_fmt_out": "yuv420p" if even else "yuv444p", "quality": 7,
             "output_params": ["-f", "mp4"]})
        self._writer = self._ffmpeg.write_frames(str(partial_path(self.path)), (width, height), fps=self.fps,
                                                 macro_block_size=1, pix_fmt_in="rgb24", ffmpeg_log_level="error",
                                                 **options)
        self._writer.send(None)  # start ffmpeg
        self._size = (width, height)

    def close(self) -> Path:
        """Finish the file and return its path.

        Raises:
            SimuloValueError: No frame was sent.
            RecordWriteError: The finished file cannot be given its name.
        """
        if self._writer is None:
            raise SimuloValueError(f"no frames were recorded for {self.path}")
        self._writer.close()
        return publish(partial_path(self.path), self.path, "video")
