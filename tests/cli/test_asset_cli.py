"""``simulo asset list | check``, and ``simulo run FILE --list`` on an app whose organisation asset is missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from simulo.authoring import catalog
from simulo.authoring.catalog import ASSET_PATH_ENV
from simulo.cli import asset as asset_cli
from simulo.cli import run as run_cli
from simulo.cli.main import main as simulo_main

ARM = """<robot name="tiny_arm">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
  </inertial></link>
  <link name="arm"><inertial><mass value="0.2"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>
  </inertial></link>
  <joint name="shoulder_pan" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
</robot>
"""
APP = '''"""An app whose organisation asset does not exist on this machine."""
import simulo

arm = simulo.Asset.from_registry("robot/not-published-here:v1")
app = simulo.App("org asset app")


@app.job(type="train", system=simulo.SystemType.TIER_1, timeout=60)
def train(num_envs: int = 2) -> dict:
    """Would build a robot from the asset."""
    return {"joints": len(arm.model.movable_joints)}
'''


@pytest.fixture(autouse=True)
def no_asset_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ASSET_PATH_ENV, raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = simulo_main(["asset", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_reference_with_joints_and_description(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "list")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["REFERENCE", "JOINTS", "DESCRIPTION"]
    rows = {line.split()[0]: line.split()[1] for line in lines[1:]}
    assert rows == {entry.ref: str(entry.joints) for entry in catalog.entries()}
    assert rows["simulo/robot/humanoid:v1"] == "21" and rows["simulo/robot/jetbot:v1"] == "2"
    assert any("x_axis, y_axis, z_axis" in line for line in lines)


def test_check_catalog_references(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "simulo/robot/jetbot:v1", "simulo/robot/anymal-c:v1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("simulo/robot/jetbot:v1: OK (robot jetbot, 4 links, 3 joints, 2 movable) ")
    assert lines[0].endswith("jetbot.urdf")
    assert lines[1].startswith("simulo/robot/anymal-c:v1: OK (robot anymal_c, 17 links, 16 joints, 12 movable)")


def test_check_organisation_reference_from_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "assets" / "robot" / "tiny-arm"
    folder.mkdir(parents=True)
    (folder / "robot.urdf").write_text(ARM)
    (tmp_path / "assets" / "robot" / "broken").mkdir()
    (tmp_path / "assets" / "robot" / "broken" / "robot.urdf").write_text('<robot name="b"><link name="a"/>'
                                                                        '<link name="a"/></robot>')
    monkeypatch.chdir(tmp_path / "assets")  # found from the working folder upward
    code, out, _ = run(capsys, "check", "robot/tiny-arm:v1")
    assert code == 0 and out.startswith("robot/tiny-arm:v1: OK (robot tiny_arm, 2 links, 1 joints, 1 movable)")
    code, out, _ = run(capsys, "check", "robot/broken:v1", "robot/tiny-arm:v1", "robot/gone:v1")
    assert code == 1
    assert "robot/broken:v1: " in out and "duplicate link name 'a'" in out
    assert "robot/tiny-arm:v1: OK" in out
    assert "robot/gone:v1: organisation asset 'robot/gone:v1' not found" in out
    assert f"  - {tmp_path / 'assets' / 'robot' / 'gone'}" in out


@pytest.mark.parametrize("argv, fragment", [
    ((), "simulo asset: no subcommand given; expected 'list' or 'check'"),
    (("publish",), "simulo asset: unknown subcommand 'publish'; expected 'list' or 'check'"),
    (("list", "extra"), "simulo asset list: unexpected argument 'extra'"),
    (("check",), "simulo asset check: no reference given; expected REF [REF ...]"),
    (("check", "simulo/robot/jetbot:v1", "jetbot"), "simulo asset check: bad registry reference 'jetbot'"),
    (("check", "simulo/robot/spot:v1"), "simulo asset check: unknown registry reference 'simulo/robot/spot:v1'"),
])
def test_usage_errors_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...],
                                           fragment: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""  # nothing half-reported
    assert err.startswith(fragment) and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert asset_cli.main(["--help"]) == 0
    assert "simulo asset check REF [REF ...]" in capsys.readouterr().out
    assert asset_cli.main(["check", "-h"]) == 0
    assert simulo_main(["--help"]) == 0
    assert "asset" in capsys.readouterr().out


def test_run_list_resolves_no_asset(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    script = (
        "import sys\n"
        "from simulo.cli import run\n"
        f"code = run.main([{str(app)!r}, '--list'])\n"
        "print('CODE', code, 'PYBULLET', 'pybullet' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "CODE 0 PYBULLET False" in done.stdout
    assert "train" in done.stdout and "--num-envs INT" in done.stdout
    assert "not-published-here" not in done.stdout + done.stderr


def test_running_the_job_reports_the_missing_asset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    code = run_cli.main([str(app), "--job", "train", "--runs-dir", str(tmp_path / "runs")])
    _, err = capsys.readouterr()
    assert code == 1
    assert "organisation asset 'robot/not-published-here:v1' not found" in err
    assert f"  - {tmp_path / 'assets' / 'robot' / 'not-published-here'}" in err
