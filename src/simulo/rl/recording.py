"""Headless video: frames from :meth:`simulo.Simulation.render` written to a GIF or MP4 with imageio."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simulo._checks import check_real
from simulo._optional import require
from simulo.errors import SimuloValueError


class VideoWriter:
    """Collects RGB frames and writes them to ``path`` (``.gif`` or ``.mp4``) on :meth:`close`.

    Args:
        path: Output file; the suffix chooses the format.
        fps: Frames per second of the video.

    Raises:
        SimuloValueError: Unknown suffix or bad fps.
        MissingDependencyError: imageio (the ``video`` extra) is not installed.
    """

    def __init__(self, path: str | Path, fps: float = 30.0) -> None:
        self.path = Path(path)
        if self.path.suffix.lower() not in (".gif", ".mp4"):
            raise SimuloValueError(f"video file must end in .gif or .mp4, got {str(path)!r}")
        self.fps = check_real(fps, "fps", low=0, high=120, low_open=True)
        self._imageio: Any = require("imageio.v2", "recording video (simulo.VideoWriter)")
        self.frames: list[Any] = []

    def add(self, frame: Any) -> None:
        """Append one RGB frame (height, width, 3) uint8."""
        self.frames.append(frame)

    def close(self) -> Path:
        """Write the file and return its path."""
        if not self.frames:
            raise SimuloValueError(f"no frames were recorded for {self.path}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.suffix.lower() == ".gif":
            self._imageio.mimsave(self.path, self.frames, duration=1.0 / self.fps, loop=0)
        else:
            self._imageio.mimsave(self.path, self.frames, fps=self.fps, macro_block_size=1)
        return self.path
