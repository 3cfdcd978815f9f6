"""``simulo recordings [RUN]``: the recordings of a run (newest by default), with an MCAP's messages and span."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from simulo.cli import main as cli_main
from simulo.cli import recordings

mcap_writer = pytest.importorskip("mcap.writer")


def _run(root: Path, run_id: str, started_ns: int) -> Path:
    folder = root / run_id
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"status": "completed"}), encoding="utf-8")
    (folder / "request.json").write_text("{}", encoding="utf-8")
    os.utime(folder / "request.json", ns=(started_ns, started_ns))
    return folder


def _mcap(path: Path, times_ns: list[int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as stream:
        writer = mcap_writer.Writer(stream)
        writer.start()
        schema = writer.register_schema(name="t", encoding="jsonschema", data=b"{}")
        poses = writer.register_channel(topic="/vizstream/poses", message_encoding="json", schema_id=schema)
        scene = writer.register_channel(topic="/vizstream/scene", message_encoding="json", schema_id=schema)
        writer.add_message(channel_id=scene, log_time=0, publish_time=0, data=b"{}")
        for t in times_ns:
            writer.add_message(channel_id=poses, log_time=t, publish_time=t, data=b"{}")
        writer.finish()


def test_lists_the_newest_runs_recordings_with_their_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    old = _run(tmp_path, "app/play/0001", 1_000_000_000)
    new = _run(tmp_path, "app/play/0002", 2_000_000_000)
    _mcap(old / "recordings" / "play-0001.mcap", [0])
    _mcap(new / "recordings" / "play-0001.mcap", [0, 500_000_000, 1_500_000_000])
    (new / "recordings" / "play-0001.mp4").write_bytes(b"\0" * 10)
    (new / "recordings" / "notes.txt").write_text("not a recording")
    assert cli_main.main(["recordings", "--runs-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("play-0001.mcap  [mcap]  ") and "4 messages on 2 topics, 1.50 s" in lines[0]
    assert lines[1] == f"play-0001.mp4  [mp4]  {new.resolve() / 'recordings' / 'play-0001.mp4'} (10 bytes)"
    assert recordings.main(["app/play/0001", f"--runs-dir={tmp_path}", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["topics"] == {"/vizstream/poses": 1, "/vizstream/scene": 1} and entry["seconds"] == 0.0


def test_a_run_without_recordings_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path, "app/train/0001", 1)
    assert recordings.main(["--runs-dir", str(tmp_path)]) == 0
    assert "wrote no recordings" in capsys.readouterr().err


def test_an_unfinished_mcap_is_listed_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _run(tmp_path, "app/play/0001", 1)
    (run / "recordings").mkdir()
    (run / "recordings" / "play-0001.mcap").write_bytes(b"\x89MCAP0\r\n")
    assert recordings.main(["--runs-dir", str(tmp_path), "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert "error" in entry and "messages" not in entry


@pytest.mark.parametrize("argv", [["--bogus"], ["a/b/0001", "extra"], ["--runs-dir"], ["no/such/run"]])
def test_usage_errors_exit_2_with_one_line(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]):
    _run(tmp_path, "app/play/0001", 1)
    assert recordings.main([*argv, f"--runs-dir={tmp_path}"] if argv != ["--runs-dir"] else argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("simulo recordings: error: ") and err.count("\n") == 1
