"""benchmarks/recording.py runs in its ``--quick`` mode and prints a row per recording variant."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "recording.py"


def test_the_recording_benchmark_prints_its_table() -> None:
    pytest.importorskip("mcap")
    pytest.importorskip("imageio_ffmpeg")
    pytest.importorskip("foxglove")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split() for line in done.stdout.splitlines() if line.strip()]
    assert lines[0] == ["variant", "N", "plain/s", "recorded/s", "ratio", "ms/step", "kB/step"]
    assert [(r[0], r[1]) for r in lines[1:]] == [("mcap", "1"), ("mcap+mp4", "1"), ("camera", "1"), ("live", "1")]
    assert all(float(r[-1]) > 0 for r in lines[1:4])  # every file variant wrote its files
    assert float(lines[4][-1]) == 0  # the live view writes none
