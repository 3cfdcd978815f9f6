"""Run records, checkpoints and recordings are written to a temporary file and renamed (issue 28, item 2).

A full disk is simulated by a file whose ``write`` stores part of the data, then raises ``ENOSPC``.
"""

from __future__ import annotations

import errno
import io
import json
from pathlib import Path
from typing import Any

import pytest

from simulo import _files
from simulo._files import partial_path, write_atomically
from simulo.errors import RecordWriteError, SimuloError
from simulo.platform.policy_registry import read_record, write_record
from simulo.platform.runner import write_json


class _FullDisk(io.FileIO):
    """A file that stores the first 100 bytes written to it, then reports that the disk is full (mid-write)."""

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        room = 100 - self.tell()
        if len(chunk) > room:
            super().write(chunk[:room])
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(chunk)


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_files, "open", lambda path, mode: _FullDisk(path, mode), raising=False)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_write_replaces_the_whole_file_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    write_atomically(target, "old\n", "run record")
    assert write_atomically(target, b"new\n", "run record") == target
    assert target.read_text() == "new\n" and _leftovers(tmp_path) == []
    assert partial_path(target).parent == tmp_path and partial_path(target).name.startswith(".run.json.")


@pytest.mark.usefixtures("full_disk")
def test_a_full_disk_is_a_clear_error_that_keeps_the_previous_record(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    target.write_text('{"status": "running"}\n')
    with pytest.raises(RecordWriteError) as caught:
        write_json(target, {"status": "completed", "padding": "x" * 1000})
    assert isinstance(caught.value, SimuloError) and isinstance(caught.value, OSError)
    assert str(target) in str(caught.value) and "no space left on device" in str(caught.value)
    assert json.loads(target.read_text()) == {"status": "running"} and _leftovers(tmp_path) == []


def test_a_full_disk_keeps_the_previous_policy_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_record(tmp_path, {"policy_id": "policy_a", "status": "running"})
    monkeypatch.setattr(_files, "open", lambda path, mode: _FullDisk(path, mode), raising=False)
    with pytest.raises(RecordWriteError, match="policy.json.*no space left on device"):
        write_record(tmp_path, {"policy_id": "policy_a", "status": "completed", "notes": "x" * 1000})
    assert read_record(tmp_path) == {"policy_id": "policy_a", "status": "running"}


def test_a_full_disk_during_a_checkpoint_keeps_the_previous_checkpoint_loadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    from simulo.rl.training.checkpoints import read_checkpoint, write_checkpoint

    target = tmp_path / "checkpoints" / "latest.pt"
    write_checkpoint(target, {"iteration": 10})
    monkeypatch.setattr(_files, "open", lambda path, mode: _FullDisk(path, mode), raising=False)
    with pytest.raises(RecordWriteError) as caught:
        write_checkpoint(target, {"iteration": 20})
    assert str(caught.value).startswith(f"cannot write the checkpoint {str(target)!r}: no space left on device")
    assert read_checkpoint(target)["iteration"] == 10 and _leftovers(target.parent) == []


def test_a_copy_that_fills_the_disk_leaves_no_torn_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "source.pt"
    source.write_bytes(b"x" * 1000)

    def copy(src: Path, dst: Path) -> None:  # shutil's copy, writing through a file that fills the disk
        with open(src, "rb") as data, _FullDisk(dst, "wb") as out:
            out.write(data.read())

    monkeypatch.setattr(_files.shutil, "copy2", copy)
    target = tmp_path / "latest.pt"
    with pytest.raises(RecordWriteError, match="latest.pt.*no space left on device"):
        _files.copy_atomically(source, target, "checkpoint")
    assert not target.exists() and _leftovers(tmp_path) == []
