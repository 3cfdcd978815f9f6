"""Videos through imageio-ffmpeg: every frame kept, each shown for 1 / fps seconds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simulo.errors import ShapeError, SimuloValueError
from simulo.rl.recording import VideoWriter
from simulo.rl.recordings.video import FrameStream

imageio = pytest.importorskip("imageio")
pytest.importorskip("imageio_ffmpeg")


def _frames(count: int, repeat: int = 1) -> list[np.ndarray]:
    """``count`` 32x48 frames, each distinct picture shown ``repeat`` times in a row."""
    rng = np.random.default_rng(0)
    pictures = [rng.integers(0, 255, (32, 48, 3), dtype=np.uint8) for _ in range(-(-count // repeat))]
    return [pictures[k // repeat] for k in range(count)]


def _gif_delays_ms(path: Path) -> list[int]:
    from PIL import Image

    with Image.open(path) as gif:
        delays = []
        for k in range(gif.n_frames):
            gif.seek(k)
            delays.append(int(gif.info["duration"]))
    return delays


def test_gif_keeps_repeated_frames_and_their_delays_add_up_to_the_clock(tmp_path: Path) -> None:
    writer = VideoWriter(tmp_path / "run.gif", fps=30)
    for frame in _frames(21, repeat=3):  # a still robot: three identical frames in a row
        writer.add(frame)
    delays = _gif_delays_ms(writer.close())
    assert len(delays) == 21
    assert set(delays) == {30, 40}  # 1/30 s in whole centiseconds
    assert sum(delays) == 700  # frame k starts at k / 30 s


@pytest.mark.parametrize("fps", [10.0, 25.0])
def test_gif_delay_is_milliseconds_of_one_over_fps(tmp_path: Path, fps: float) -> None:
    writer = VideoWriter(tmp_path / "run.gif", fps=fps)
    for frame in _frames(5):
        writer.add(frame)
    assert _gif_delays_ms(writer.close()) == [int(1000 / fps)] * 5


def test_mp4_has_every_frame_at_its_fps(tmp_path: Path) -> None:
    stream = FrameStream(tmp_path / "run.mp4", fps=24)
    for frame in _frames(30, repeat=2):
        stream.send(frame)
    path = stream.close()
    reader = imageio.v2.get_reader(path, format="FFMPEG")
    try:
        assert reader.get_meta_data()["fps"] == pytest.approx(24)
        assert reader.count_frames() == 30 == stream.frame_count
        assert reader.get_data(0).shape == (32, 48, 3)
    finally:
        reader.close()


def test_odd_sized_mp4_frames_are_kept_whole(tmp_path: Path) -> None:
    stream = FrameStream(tmp_path / "odd.mp4", fps=30)
    stream.send(np.zeros((33, 47, 3), dtype=np.uint8))
    reader = imageio.v2.get_reader(stream.close(), format="FFMPEG")
    try:
        assert reader.get_data(0).shape == (33, 47, 3)
    finally:
        reader.close()


def test_a_frame_of_another_size_or_type_is_refused(tmp_path: Path) -> None:
    stream = FrameStream(tmp_path / "run.mp4", fps=30)
    stream.send(np.zeros((32, 48, 3), dtype=np.uint8))
    with pytest.raises(ShapeError, match="32x33"):
        stream.send(np.zeros((33, 32, 3), dtype=np.uint8))
    with pytest.raises(ShapeError, match="uint8"):
        stream.send(np.zeros((32, 48, 3), dtype=np.float32))
    stream.close()


def test_no_frames_and_bad_suffixes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match="no frames"):
        FrameStream(tmp_path / "run.mp4", fps=30).close()
    with pytest.raises(SimuloValueError, match=r"\.gif or \.mp4"):
        FrameStream(tmp_path / "run.webm", fps=30)
    with pytest.raises(SimuloValueError, match="fps"):
        FrameStream(tmp_path / "run.mp4", fps=0)
