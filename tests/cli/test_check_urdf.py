"""``simulo check-urdf``: output and exit status."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulo.authoring.catalog import lookup
from simulo.cli import check_urdf
from simulo.cli.main import main as simulo_main

CARTPOLE = lookup("simulo/robot/cartpole:v1").file
PICK_ARM = lookup("simulo/robot/pick_arm:v1").file


def test_good_files_print_ok_and_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    status = check_urdf.main([str(CARTPOLE), str(PICK_ARM)])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert out.splitlines() == [
        f"{CARTPOLE}: OK (robot cartpole, 3 links, 2 joints)",
        f"{PICK_ARM}: OK (robot pick_arm, 9 links, 8 joints)",
    ]


def test_bad_file_lists_every_problem_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.urdf"
    bad.write_text('<robot name="b">\n<link name="a"/>\n<link name="a"/>\n'
                   '<joint name="j" type="hinge"><parent link="a"/><child link="x"/></joint>\n</robot>\n')
    status = check_urdf.main([str(bad), str(CARTPOLE)])
    out, _ = capsys.readouterr()
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == f"{bad}: 3 problem(s) in URDF:"
    assert lines[1] == "  - line 3: duplicate link name 'a' (first defined on line 2)"
    assert lines[2].startswith("  - line 4: joint 'j' has unknown type 'hinge'")
    assert lines[3].startswith("  - line 4: joint 'j': child link 'x' is not defined")
    assert lines[4] == f"{CARTPOLE}: OK (robot cartpole, 3 links, 2 joints)"


def test_mesh_checked_against_the_files_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    urdf = tmp_path / "m.urdf"
    urdf.write_text('<robot name="m"><link name="a"><visual><geometry><mesh filename="part.obj"/></geometry>'
                    "</visual></link></robot>")
    assert check_urdf.main([str(urdf)]) == 1
    assert "mesh file 'part.obj' not found" in capsys.readouterr().out
    (tmp_path / "part.obj").write_text("v 0 0 0\n")
    assert check_urdf.main([str(urdf)]) == 0


def test_missing_file_exits_2_with_a_clear_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.urdf"
    status = check_urdf.main([str(missing), str(PICK_ARM)])
    out, err = capsys.readouterr()
    assert status == 2
    assert err.strip() == f"simulo check-urdf: {missing}: no such file"
    assert out.strip() == f"{PICK_ARM}: OK (robot pick_arm, 9 links, 8 joints)"
    assert check_urdf.main([str(tmp_path)]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err


def test_unreadable_text_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    latin = tmp_path / "latin.urdf"
    latin.write_bytes(b"<robot name='\xe9'/>")
    assert check_urdf.main([str(latin)]) == 2
    assert "latin.urdf: not UTF-8 text (invalid continuation byte at byte 13)" in capsys.readouterr().err


def test_no_arguments_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_urdf.main([]) == 2
    err = capsys.readouterr().err
    assert err == ("simulo check-urdf: error: the following arguments are required: FILE "
                   "(see 'simulo check-urdf --help')\n")


def test_through_the_simulo_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert simulo_main(["check-urdf", str(PICK_ARM)]) == 0
    assert capsys.readouterr().out.strip().endswith("OK (robot pick_arm, 9 links, 8 joints)")
