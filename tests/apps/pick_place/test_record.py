"""``simulo pick-place --record``: a headless video of the run, with the run's numbers unchanged."""

from __future__ import annotations

import re

import pytest

from simulo.cli import pick_place

imageio = pytest.importorskip("imageio")


def gif_delays_ms(path) -> list[int]:
    """The delay of every frame of a GIF, ms (read with Pillow, which imageio depends on)."""
    from PIL import Image

    with Image.open(path) as gif:
        delays = []
        for k in range(gif.n_frames):
            gif.seek(k)
            delays.append(int(gif.info["duration"]))
    return delays


def test_record_writes_a_gif_and_keeps_the_golden_numbers(tmp_path, capsys):
    plain = pick_place.main([])
    plain_out = capsys.readouterr().out
    path = tmp_path / "run.gif"
    assert pick_place.main(["--record", str(path)]) == 0 == plain
    captured = capsys.readouterr()
    assert captured.out == plain_out  # drawing changes nothing in the physics
    frames = imageio.v2.mimread(path)
    assert len(frames) > 150 and frames[0].shape[:2] == (240, 320)
    logged = re.search(rf"recorded {re.escape(str(path))} \((\d+) frames\)", captured.err)
    assert logged is not None and len(frames) == int(logged.group(1))  # repeated frames are kept, not merged
    delays = gif_delays_ms(path)
    assert set(delays) <= {30, 40}  # 30 fps in whole centiseconds
    assert sum(delays) == pytest.approx(len(frames) * 1000 / 30, abs=10)  # frame k starts at k / 30 s


@pytest.mark.parametrize("argv", [["--record", "x.gif", "--trials", "2"], ["--record", "x.gif", "--friction-sweep"]])
def test_record_refuses_batched_modes(argv, capsys):
    assert pick_place.main(argv) == 2  # a usage error: one line, exit 2
    assert "--record films one run" in capsys.readouterr().err


def test_record_needs_a_video_suffix(tmp_path, capsys):
    assert pick_place.main(["--record", str(tmp_path / "run.avi")]) == 2
    assert ".gif or .mp4" in capsys.readouterr().err
