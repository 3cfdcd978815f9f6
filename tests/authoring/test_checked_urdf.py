"""Checked URDF summaries kept between runs: reused only for the same text and checker, never for a failure."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import simulo
from simulo.authoring import checked_urdf, urdf
from simulo.authoring.catalog import lookup
from simulo.errors import UrdfError

ARM_TEXT = lookup("simulo/robot/pick_arm:v1").file.read_text(encoding="utf-8")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh temporary root for the summaries; returns the folder they go to."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    return root / f"simulo-checked-{os.getuid()}"


def _no_checker(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the checker record each call (and still check), so a test can tell a stored summary from a check."""
    calls: list[str] = []
    check = urdf.check_urdf

    def counted(text: str, source: str = "<string>", base_dir: Any = None) -> Any:
        calls.append(source)
        return check(text, source, base_dir)

    monkeypatch.setattr(urdf, "check_urdf", counted)
    return calls


def test_a_checked_file_is_not_checked_again(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_TEXT, encoding="utf-8")
    calls = _no_checker(monkeypatch)
    first = simulo.Asset.from_urdf_file(path).model
    second = simulo.Asset.from_urdf_file(path).model
    assert calls == [str(path.resolve())]
    assert second == first == urdf.check_urdf(ARM_TEXT, source="x")
    assert second.joint_names[:2] == ("base_yaw", "shoulder") and second.joints[0].limits is not None
    assert [p.name for p in cache.iterdir()] == [f"{str(path.resolve()).replace('/', '_')}.checked"]
    assert cache.stat().st_mode & 0o777 == 0o700


def test_an_edited_file_is_checked_again_and_its_problems_raise(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_TEXT, encoding="utf-8")
    simulo.Asset.from_urdf_file(path).model
    path.write_text(ARM_TEXT.replace('<parent link="base_link"/>', '<parent link="no_such_link"/>'), encoding="utf-8")
    with pytest.raises(UrdfError, match="no_such_link"):
        simulo.Asset.from_urdf_file(path)
    with pytest.raises(UrdfError, match="no_such_link"):  # a failure is never stored
        simulo.Asset.from_urdf_file(path)
    path.write_text(ARM_TEXT.replace('name="pick_arm"', 'name="renamed_arm"'), encoding="utf-8")
    assert simulo.Asset.from_urdf_file(path).name == "renamed_arm"


def test_a_changed_checker_checks_again(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_TEXT, encoding="utf-8")
    calls = _no_checker(monkeypatch)
    simulo.Asset.from_urdf_file(path).model
    key = checked_urdf._checker_key()
    monkeypatch.setattr(checked_urdf, "_checker_key", lambda: (*key, ("urdf.py", 1, 2)))
    simulo.Asset.from_urdf_file(path).model
    assert len(calls) == 2


def test_documents_with_meshes_or_substitutions_are_never_stored(cache: Path, tmp_path: Path) -> None:
    mesh = tmp_path / "box.stl"
    mesh.write_bytes(b"\0" * 80 + (1).to_bytes(4, "little") + b"\0" * 12
                     + b"".join(v.to_bytes(4, "little") for v in (0, 0, 0, 0x3F800000, 0, 0, 0, 0x3F800000, 0))
                     + b"\0\0")
    with_mesh = ARM_TEXT.replace('<cylinder radius="0.05" length="0.1"/>', '<mesh filename="box.stl"/>', 1)
    substituted = ARM_TEXT.replace('name="pick_arm"', 'name="$(optenv ARM_NAME pick_arm)"')
    for k, text in enumerate((with_mesh, substituted)):
        assert text != ARM_TEXT
        path = tmp_path / f"model{k}.urdf"
        path.write_text(text, encoding="utf-8")
        simulo.Asset.from_urdf_file(path).model
    assert not cache.exists() or list(cache.iterdir()) == []


def test_a_damaged_summary_is_ignored(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_TEXT, encoding="utf-8")
    expected = simulo.Asset.from_urdf_file(path).model
    (stored,) = cache.iterdir()
    calls = _no_checker(monkeypatch)
    for damage in (b"", b"not marshal data", stored.read_bytes()[:100]):
        stored.write_bytes(damage)
        assert simulo.Asset.from_urdf_file(path).model == expected
    assert len(calls) == 3


def test_a_folder_others_can_write_is_not_used(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.mkdir(mode=0o700)
    cache.chmod(0o777)
    assert checked_urdf.cache_folder() is None
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_TEXT, encoding="utf-8")
    calls = _no_checker(monkeypatch)
    simulo.Asset.from_urdf_file(path).model
    simulo.Asset.from_urdf_file(path).model
    assert len(calls) == 2 and list(cache.iterdir()) == []


def test_a_file_checked_in_this_process_gives_its_model_while_its_text_is_unchanged(cache: Path,
                                                                                     tmp_path: Path) -> None:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_TEXT, encoding="utf-8")
    model = simulo.Asset.from_urdf_file(path).model
    assert checked_urdf.checked_model(path.resolve()) is model
    assert checked_urdf.checked_model(tmp_path / "other.urdf") is None  # never checked
    path.write_text(ARM_TEXT.replace('name="pick_arm"', 'name="renamed_arm"'), encoding="utf-8")
    assert checked_urdf.checked_model(path.resolve()) is None  # the file no longer holds the checked text
    path.unlink()
    assert checked_urdf.checked_model(path.resolve()) is None


def test_only_the_latest_checked_files_are_kept(cache: Path, tmp_path: Path) -> None:
    paths = []
    for k in range(checked_urdf._KEPT + 1):
        paths.append(tmp_path / f"arm{k}.urdf")
        paths[-1].write_text(ARM_TEXT, encoding="utf-8")
        simulo.Asset.from_urdf_file(paths[-1]).model
    assert len(checked_urdf._SEEN) <= checked_urdf._KEPT
    assert checked_urdf.checked_model(paths[0].resolve()) is None
    assert checked_urdf.checked_model(paths[-1].resolve()) is not None
