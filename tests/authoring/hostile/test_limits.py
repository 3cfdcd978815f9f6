"""Bounds before work: sizes, line length, link count, nesting depth and file errors are refused up front."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import simulo
from simulo.authoring.limits import MAX_LINE_BYTES, MAX_LINKS, MAX_URDF_BYTES, MAX_XML_DEPTH, read_bounded
from simulo.authoring.meshes import check_mesh_file
from simulo.authoring.urdf import check_urdf
from simulo.cli.check_urdf import main as check_urdf_main
from simulo.errors import AssetError, SizeLimitError, UrdfError

from .files import chain, link, mesh_link, robot


def problems(text: str) -> list[str]:
    with pytest.raises(UrdfError) as info:
        check_urdf(text)
    return info.value.problems


def test_a_64_gib_urdf_file_is_refused_by_its_size_unread(tmp_path: Path) -> None:
    huge = tmp_path / "huge.urdf"
    with huge.open("wb") as file:
        file.truncate(64 * 1024**3)  # sparse: no disk used, and reading it whole would need 64 GiB of memory
    with pytest.raises(SizeLimitError, match=r"huge.urdf' has 68719476736 bytes, more than the 8388608 bytes"):
        simulo.Asset.from_urdf_file(huge)
    with pytest.raises(SizeLimitError, match="nothing was read"):
        read_bounded(huge, MAX_URDF_BYTES, "URDF file")


def test_check_urdf_refuses_a_huge_file_with_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = tmp_path / "huge.urdf"
    with huge.open("wb") as file:
        file.truncate(MAX_URDF_BYTES + 1)
    assert check_urdf_main([str(huge)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "8388609 bytes, more than the 8388608 bytes" in err


def test_a_huge_mesh_is_refused_by_its_size_unread(tmp_path: Path) -> None:
    with (tmp_path / "m.stl").open("wb") as file:
        file.truncate(64 * 1024**3)
    assert check_mesh_file(tmp_path / "m.stl").problem == (
        "has 68719476736 bytes, more than the 67108864 bytes (64 MiB) accepted for a mesh; nothing was read")
    assert "more than the 67108864 bytes" in problems_with_folder(robot(mesh_link("a", "m.stl")), tmp_path)[0]


def problems_with_folder(text: str, folder: Path) -> list[str]:
    with pytest.raises(UrdfError) as info:
        check_urdf(text, base_dir=folder)
    return info.value.problems


def test_a_string_over_the_size_limit_is_refused() -> None:
    text = robot(link("a")) + " " * MAX_URDF_BYTES
    assert problems(text) == [f"the document has {len(text)} bytes, more than the {MAX_URDF_BYTES} bytes accepted"]


def test_a_line_longer_than_pybullet_reads_whole_is_refused() -> None:
    line = link("a" * MAX_LINE_BYTES)
    assert problems(robot(line))[0] == (
        f"line 2: {len(line)} bytes long, more than the 8190 accepted (PyBullet reads a URDF in pieces of 8191 bytes "
        "and breaks tags that cross a piece's end); put line breaks between elements")


def test_a_line_at_the_limit_is_accepted() -> None:
    body = link("a")
    text = robot(body + " " * (MAX_LINE_BYTES - len(body)))
    assert check_urdf(text).links == ("a",)


@pytest.mark.parametrize("tag", ["link", "joint"])
def test_more_links_than_the_limit_are_refused(tag: str) -> None:
    text = chain(MAX_LINKS + 1) if tag == "link" else robot(link("a"), *(f'<joint name="j{i}"/>' for i in range(300)))
    count = MAX_LINKS + 1 if tag == "link" else 300
    assert problems(text) == [f"line 1: the robot has {count} {tag}s, more than the {MAX_LINKS} links accepted "
                              "(PyBullet's load time grows as the cube of the link count: 2.3 s for 250 links, 17 s "
                              "for 500)"]


def test_the_limit_itself_is_accepted() -> None:
    assert len(check_urdf(chain(MAX_LINKS)).links) == MAX_LINKS


@pytest.mark.parametrize("depth", [MAX_XML_DEPTH + 1, 100_000])
def test_deep_nesting_is_refused_without_recursion(depth: int) -> None:
    text = '<robot name="r">' + "<a>\n" * depth + "</a>\n" * depth + "</robot>"
    assert problems(text) == [f"line {MAX_XML_DEPTH}: elements nest more than {MAX_XML_DEPTH} deep; a URDF needs 5 "
                              "levels (robot, link, collision, geometry, mesh)"]


def test_a_lone_surrogate_is_refused_naming_the_line() -> None:
    assert problems(robot(link("a\udc80"))) == [
        "line 2: character '\\udc80' cannot be written as UTF-8 (a lone surrogate); expected Unicode text"]


def test_a_folder_or_unreadable_file_becomes_an_asset_error(tmp_path: Path) -> None:
    with pytest.raises(AssetError, match="cannot be read"):
        read_bounded(tmp_path, MAX_URDF_BYTES, "URDF file")
    loop = tmp_path / "loop.urdf"
    os.symlink(loop, loop)
    with pytest.raises(AssetError, match="loop.urdf"):
        simulo.Asset.from_urdf_file(loop)


def test_non_utf8_file_is_an_asset_error(tmp_path: Path) -> None:
    (tmp_path / "r.urdf").write_bytes(b'<robot name="\xff"/>')
    with pytest.raises(AssetError, match=r"r.urdf' is not UTF-8 text \(invalid start byte at byte 13\)"):
        simulo.Asset.from_urdf_file(tmp_path / "r.urdf")


def test_print_asset_shows_a_short_summary(tmp_path: Path) -> None:
    (tmp_path / "r.urdf").write_text(chain(40))
    asset = simulo.Asset.from_urdf_file(tmp_path / "r.urdf")
    assert str(asset) == f"Asset(name='r', 40 links, 39 joints, source_path={str(tmp_path / 'r.urdf')!r})"
    assert repr(simulo.Asset.from_urdf_string(chain(2))) == "Asset(name='r', 2 links, 1 joints, from a string)"
