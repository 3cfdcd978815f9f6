"""Organisation references ``robot/<name>:v<N>``: local asset folders, found lazily from the app's folder upward
or on SIMULO_ASSET_PATH, with version folders and an optional simulo.asset.json."""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
from pathlib import Path

import pytest

import simulo
from simulo.authoring.catalog import ASSET_PATH_ENV, locate, parse_ref
from simulo.errors import AssetError, MissingDependencyError, UrdfError

#: A three-joint arm with the byo-urdf-arm sample's joint names, in primitive shapes (written here).
ARM_URDF = """<?xml version="1.0"?>
<robot name="{name}">
  <link name="base_link">
    <inertial><mass value="1.5"/><inertia ixx="0.002" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.002"/></inertial>
    <collision><geometry><cylinder radius="0.05" length="0.06"/></geometry></collision>
  </link>
  <link name="link1">
    <inertial><mass value="0.5"/><inertia ixx="0.0008" ixy="0" ixz="0" iyy="0.0008" iyz="0" izz="0.0003"/></inertial>
  </link>
  <link name="link2">
    <inertial><mass value="0.35"/><inertia ixx="0.0005" ixy="0" ixz="0" iyy="0.0005" iyz="0" izz="0.0002"/></inertial>
  </link>
  <link name="link3">
    <inertial><mass value="0.2"/><inertia ixx="0.0002" ixy="0" ixz="0" iyy="0.0002" iyz="0" izz="0.0001"/></inertial>
  </link>
  <joint name="shoulder_pan" type="revolute"><parent link="base_link"/><child link="link1"/>
    <origin xyz="0 0 0.06"/><axis xyz="0 0 1"/><limit lower="-2.6" upper="2.6" effort="30" velocity="3"/></joint>
  <joint name="shoulder_lift" type="revolute"><parent link="link1"/><child link="link2"/>
    <origin xyz="0 0 0.12"/><axis xyz="0 1 0"/><limit lower="-1.9" upper="1.9" effort="30" velocity="3"/></joint>
  <joint name="elbow" type="revolute"><parent link="link2"/><child link="link3"/>
    <origin xyz="0 0 0.12"/><axis xyz="0 1 0"/><limit lower="-2.2" upper="2.2" effort="30" velocity="3"/></joint>
</robot>
"""
TASK = 'import simulo\nbyo_arm = simulo.Asset.from_registry("robot/byo-urdf-arm:v1")\n'


@pytest.fixture(autouse=True)
def no_asset_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ASSET_PATH_ENV, raising=False)


def write_asset(folder: Path, name: str = "byo_urdf_arm", file: str = "robot.urdf") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file).write_text(ARM_URDF.format(name=name))
    return folder / file


def samples_repo(tmp_path: Path) -> Path:
    """The samples repository's layout: assets/robot/<name>/ at the top, the sample two folders down."""
    write_asset(tmp_path / "assets" / "robot" / "byo-urdf-arm")
    sample = tmp_path / "samples" / "byo-urdf-arm"
    sample.mkdir(parents=True)
    (sample / "task.py").write_text(TASK)
    return sample / "task.py"


def import_file(path: Path) -> object:
    spec = importlib.util.spec_from_file_location(f"app_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sample_layout_resolves_from_the_app_folder_upward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = samples_repo(tmp_path)
    monkeypatch.chdir("/")  # the working folder does not matter: the calling file's folder does
    asset = import_file(task).byo_arm  # type: ignore[attr-defined]
    assert isinstance(asset, simulo.Asset) and asset.ref == "robot/byo-urdf-arm:v1"
    assert asset.name == "byo_urdf_arm"
    assert [j.name for j in asset.model.movable_joints] == ["shoulder_pan", "shoulder_lift", "elbow"]
    assert asset.fixed_base is True and asset.spawn_pose is None
    assert asset.source_path == (tmp_path / "assets" / "robot" / "byo-urdf-arm" / "robot.urdf").resolve()


def test_org_asset_builds_a_robot_that_steps(tmp_path: Path) -> None:
    asset = import_file(samples_repo(tmp_path)).byo_arm  # type: ignore[attr-defined]
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(asset=asset, initial_pose=simulo.Pose.identity())
    scene.add(robot, at="/World/Arm")
    with simulo.Simulation(scene) as sim:
        sim.step(50)
        ids = robot.find_joints("shoulder_pan") + robot.find_joints("shoulder_lift") + robot.find_joints("elbow")
        assert ids == [0, 1, 2] and robot.is_fixed_base


def test_miss_is_lazy_and_lists_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = tmp_path / "shared-assets"
    monkeypatch.setenv(ASSET_PATH_ENV, os.pathsep.join([str(extra), ""]))
    task = tmp_path / "app" / "task.py"
    task.parent.mkdir()
    task.write_text('import simulo\narm = simulo.Asset.from_registry("robot/missing-arm:v3")\n')
    asset = import_file(task).arm  # type: ignore[attr-defined]  # no error yet: nothing was resolved
    assert repr(asset) == "Asset.from_registry('robot/missing-arm:v3')"
    with pytest.raises(AssetError) as info:
        asset.resolve()
    message = str(info.value)
    assert "organisation asset 'robot/missing-arm:v3' not found" in message
    assert f"  - {extra / 'robot' / 'missing-arm'}\n" in message
    assert f"  - {tmp_path / 'app' / 'assets' / 'robot' / 'missing-arm'}\n" in message
    assert f"  - {tmp_path / 'assets' / 'robot' / 'missing-arm'}" in message
    assert message.index(str(extra)) < message.index(str(tmp_path / "app" / "assets"))  # the variable comes first


def test_asset_path_roots_come_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_asset(tmp_path / "repo" / "assets" / "robot" / "arm", name="near")
    write_asset(tmp_path / "elsewhere" / "robot" / "arm", name="from_env")
    found = locate(parse_ref("robot/arm:v1"), tmp_path / "repo" / "app")
    assert found.entry.parent == tmp_path / "repo" / "assets" / "robot" / "arm"
    monkeypatch.setenv(ASSET_PATH_ENV, str(tmp_path / "elsewhere"))
    found = locate(parse_ref("robot/arm:v1"), tmp_path / "repo" / "app")
    assert found.entry == tmp_path / "elsewhere" / "robot" / "arm" / "robot.urdf"
    assert found.ref == "robot/arm:v1" and found.fixed_base is True


def test_version_folders_are_honoured(tmp_path: Path) -> None:
    folder = tmp_path / "assets" / "robot" / "arm"
    write_asset(folder / "v1", name="arm_one")
    write_asset(folder / "v2", name="arm_two")
    (folder / "v10").mkdir()
    assert locate(parse_ref("robot/arm:v2"), tmp_path).entry == folder / "v2" / "robot.urdf"
    with pytest.raises(AssetError, match=r"holds versions v1, v2, v10 but not v3; expected a folder .*v3'"):
        locate(parse_ref("robot/arm:v3"), tmp_path)
    flat = tmp_path / "assets" / "robot" / "flat"
    write_asset(flat)
    assert locate(parse_ref("robot/flat:v7"), tmp_path).folder == flat  # one version there is: every :vN


def test_sidecar_names_the_entry_and_the_base(tmp_path: Path) -> None:
    folder = tmp_path / "assets" / "robot" / "rover"
    write_asset(folder, file="a.urdf")
    write_asset(folder, file="b.urdf")
    with pytest.raises(AssetError, match=r"cannot choose the entry file .*entry files found: a.urdf, b.urdf"):
        locate(parse_ref("robot/rover:v1"), tmp_path)
    (folder / "simulo.asset.json").write_text(json.dumps({"entry": "b.urdf", "base": "floating"}))
    found = locate(parse_ref("robot/rover:v1"), tmp_path)
    assert (found.entry.name, found.fixed_base) == ("b.urdf", False)


@pytest.mark.parametrize("sidecar, fragment", [
    ("{not json", "cannot read"),
    (json.dumps(["entry"]), "must hold a JSON object"),
    (json.dumps({"entry": 3}), "must hold a JSON object"),
    (json.dumps({"base": "wobbly"}), "\"base\" is 'wobbly'; expected \"fixed\" or \"floating\""),
    (json.dumps({"entry": "../escape.urdf"}), "is not a file inside"),
    (json.dumps({"entry": "missing.urdf"}), "is not a file inside"),
    ("[" * 100_000, "cannot read .* as JSON: maximum recursion depth"),
    (" " * (1024 * 1024 + 1), "has 1048577 bytes, more than the 1048576 bytes"),
    (json.dumps(["x" * 10_000]), r"got \['x{198}$"),
])
def test_bad_sidecar_is_a_clear_error(tmp_path: Path, sidecar: str, fragment: str) -> None:
    folder = tmp_path / "assets" / "robot" / "rover"
    write_asset(folder)
    write_asset(tmp_path / "assets" / "robot", file="escape.urdf")
    (folder / "simulo.asset.json").write_text(sidecar)
    with pytest.raises(AssetError, match=fragment.replace("(", r"\(")):
        locate(parse_ref("robot/rover:v1"), tmp_path)


def test_usd_entry_and_bad_urdf_are_reported_on_use(tmp_path: Path) -> None:
    (tmp_path / "assets" / "robot" / "f1tenth").mkdir(parents=True)
    (tmp_path / "assets" / "robot" / "f1tenth" / "f1tenth.usd").write_text("#usda 1.0\n")
    (tmp_path / "assets" / "robot" / "broken").mkdir(parents=True)
    (tmp_path / "assets" / "robot" / "broken" / "robot.urdf").write_text("<robot/>")
    app = tmp_path / "app.py"
    app.write_text('import simulo\ncar = simulo.Asset.from_registry("robot/f1tenth:v1")\n'
                   'bad = simulo.Asset.from_registry("robot/broken:v1")\n')
    module = import_file(app)
    # an empty stage (no articulation) is refused naming the file; without usd-core, the extra that installs it
    with pytest.raises((AssetError, MissingDependencyError), match=r"f1tenth\.usd|simulo-local\[usd\]"):
        module.car.resolve()  # type: ignore[attr-defined]
    with pytest.raises(UrdfError, match="2 problem"):
        module.bad.model  # type: ignore[attr-defined]


def test_a_call_without_a_file_searches_from_the_working_folder(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    write_asset(tmp_path / "assets" / "robot" / "arm")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile('import simulo\narm = simulo.Asset.from_registry("robot/arm:v1")', "<stdin>", "exec"), namespace)
    asset = namespace["arm"]
    assert isinstance(asset, simulo.Asset) and asset.name == "byo_urdf_arm"


def test_registry_assets_pickle_before_and_after_resolving(tmp_path: Path) -> None:
    asset = import_file(samples_repo(tmp_path)).byo_arm  # type: ignore[attr-defined]
    copy = pickle.loads(pickle.dumps(asset))
    assert copy.model == asset.model
    catalog = simulo.Asset.from_registry("simulo/robot/jetbot:v1")
    assert pickle.loads(pickle.dumps(catalog)).name == "jetbot"


def test_registry_reference_does_not_read_files_until_used() -> None:
    asset = simulo.Asset.from_registry("simulo/robot/humanoid:v1")
    assert "_loaded" not in vars(asset)  # nothing read yet
    assert asset.name == "humanoid" and "_loaded" in vars(asset)


def test_the_sdks_constructor_resolves_from_the_calling_files_folder(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    task = samples_repo(tmp_path)
    task.write_text('import simulo\nbyo_arm = simulo.Asset("robot/byo-urdf-arm:v1", read_only=False)\n')
    monkeypatch.chdir("/")  # as from_registry: the calling file's folder, not the working folder
    asset = import_file(task).byo_arm  # type: ignore[attr-defined]
    assert asset.ref == "robot/byo-urdf-arm:v1" and not asset.is_read_only
    assert asset.name == "byo_urdf_arm"
