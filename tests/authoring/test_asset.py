"""Asset: constructors, fields, the catalog, urdf_path, and the errors for bad references and USD."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

import pytest

import simulo
from simulo.authoring import catalog
from simulo.authoring.asset import Asset
from simulo.authoring.catalog import lookup
from simulo.authoring.pose import Pose
from simulo.errors import AssetError, UrdfError

URDF = """<robot name="box_bot">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
  </link>
</robot>
"""
MESH_URDF = """<robot name="mesh_bot">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><mesh filename="meshes/cube.obj"/></geometry></collision>
  </link>
</robot>
"""
CUBE_OBJ = "".join(f"v {x} {y} {z}\n" for x in (-0.05, 0.05) for y in (-0.05, 0.05) for z in (-0.05, 0.05)) + (
    "f 1 2 4 3\nf 5 7 8 6\nf 1 5 6 2\nf 3 4 8 7\nf 1 3 7 5\nf 2 6 8 4\n"
)


def mesh_folder(tmp_path: Path) -> Path:
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "cube.obj").write_text(CUBE_OBJ)
    return tmp_path


def test_public_name_resolves() -> None:
    assert simulo.Asset is Asset


def test_from_urdf_string_fields() -> None:
    asset = Asset.from_urdf_string(URDF)
    assert asset.name == "box_bot"
    assert asset.urdf_text == URDF
    assert asset.base_dir is None and asset.fixed_base is None and asset.spawn_pose is None
    assert asset.source_path is None
    assert asset.model.links == ("base",) and asset.model.root_link == "base"
    named = Asset.from_urdf_string(URDF, name="mine", fixed_base=False)
    assert (named.name, named.fixed_base) == ("mine", False)


def test_from_urdf_string_validates_at_once() -> None:
    with pytest.raises(UrdfError) as info:
        Asset.from_urdf_string("<robot name='x'><link name='a'/><link name='a'/></robot>", name="dup")
    assert info.value.source == "dup"
    assert info.value.problems == ["line 1: duplicate link name 'a' (first defined on line 1)"]


@pytest.mark.parametrize("kwargs, fragment", [
    ({"fixed_base": "yes"}, "fixed_base must be True, False or None, got 'yes'"),
    ({"name": ""}, "asset name must be a non-empty string"),
    ({"base_dir": "/no/such/folder"}, "base_dir '/no/such/folder' is not an existing folder"),
])
def test_from_urdf_string_bad_arguments(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(AssetError, match=fragment):
        Asset.from_urdf_string(URDF, **kwargs)  # type: ignore[arg-type]


def test_asset_is_frozen() -> None:
    asset = Asset.from_urdf_string(URDF)
    with pytest.raises(dataclasses.FrozenInstanceError):
        asset.name = "other"  # type: ignore[misc]


def test_from_urdf_file_resolves_meshes_from_its_folder(tmp_path: Path) -> None:
    folder = mesh_folder(tmp_path)
    file = folder / "bot.urdf"
    file.write_text(MESH_URDF)
    asset = Asset.from_urdf_file(file, fixed_base=True)
    assert asset.name == "mesh_bot"
    assert asset.base_dir == folder.resolve()
    assert asset.source_path == file.resolve()
    assert asset.urdf_path() == file.resolve()
    assert asset.urdf_file() == str(file.resolve())  # what engines are given
    assert isinstance(asset.base_dir, Path) and isinstance(asset.source_path, Path)
    assert asset.fixed_base is True
    assert Asset.urdf(str(file)).model == asset.model
    (folder / "meshes" / "cube.obj").unlink()
    with pytest.raises(UrdfError, match="mesh file 'meshes/cube.obj' not found"):
        Asset.from_urdf_file(file)


def test_from_urdf_file_errors(tmp_path: Path) -> None:
    with pytest.raises(AssetError, match="URDF file '.*missing.urdf' not found"):
        Asset.from_urdf_file(tmp_path / "missing.urdf")
    latin = tmp_path / "latin.urdf"
    latin.write_bytes(b"<robot name='\xe9'/>")
    with pytest.raises(AssetError, match="is not UTF-8 text"):
        Asset.from_urdf_file(latin)
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot/>")
    with pytest.raises(UrdfError) as info:
        Asset.from_urdf_file(bad)
    assert info.value.source == str(bad)
    assert len(info.value.problems) == 2  # no name, no links


def test_urdf_path_of_string_is_written_once_content_addressed() -> None:
    asset = Asset.from_urdf_string(URDF)
    path = asset.urdf_path()
    assert path.is_file() and path.read_text(encoding="utf-8") == URDF
    assert asset.urdf_path() == path
    assert Asset.from_urdf_string(URDF, name="box_bot").urdf_path() == path
    other = Asset.from_urdf_string(URDF.replace("0.1 0.1 0.1", "0.2 0.2 0.2"))
    assert other.urdf_path() != path
    path.write_text("stale")  # a damaged cache file is rewritten
    assert asset.urdf_path() == path and path.read_text(encoding="utf-8") == URDF


def test_urdf_path_of_string_with_base_dir_lies_in_base_dir(tmp_path: Path) -> None:
    folder = mesh_folder(tmp_path)
    asset = Asset.from_urdf_string(MESH_URDF, base_dir=folder)
    path = asset.urdf_path()
    assert path.parent == folder.resolve()
    assert path.read_text(encoding="utf-8") == MESH_URDF
    assert [p.name for p in folder.iterdir() if p.suffix == ".partial"] == []


def test_urdf_path_write_failure_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = mesh_folder(tmp_path)
    asset = Asset.from_urdf_string(MESH_URDF, base_dir=folder)

    def read_only_folder(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", read_only_folder)
    with pytest.raises(AssetError, match="cannot write the URDF of asset 'mesh_bot' to .*Permission denied"):
        asset.urdf_path()
    assert sorted(p.name for p in folder.iterdir()) == ["meshes"]  # nothing half-written


def test_available_catalog() -> None:
    assert catalog.available() == [
        "simulo/robot/anymal-c:v1", "simulo/robot/cartpole:v1", "simulo/robot/franka-panda:v1",
        "simulo/robot/franka-panda:v2", "simulo/robot/humanoid:v1", "simulo/robot/jetbot:v1", "simulo/robot/jetbot:v2",
        "simulo/robot/pick-and-place:v1", "simulo/robot/pick_arm:v1", "simulo/robot/unitree-h1:v1",
    ]


def test_from_registry_cartpole() -> None:
    asset = Asset.from_registry("simulo/robot/cartpole:v1")
    assert asset.name == "cartpole"
    assert asset.fixed_base is True
    assert asset.spawn_pose == Pose.from_xyz(0.0, 0.0, 2.0)
    assert [(j.name, j.type) for j in asset.model.joints] == [("slider_to_cart", "prismatic"),
                                                               ("cart_to_pole", "continuous")]
    assert asset.urdf_path().is_file() and asset.urdf_path().name == "cartpole.urdf"
    assert asset.read_only() is asset


def test_from_registry_is_lazy_and_equal_by_reference() -> None:
    asset = Asset.from_registry(" simulo/robot/cartpole:v1 ")
    assert asset.ref == "simulo/robot/cartpole:v1" and "_loaded" not in vars(asset)
    assert repr(asset) == "Asset.from_registry('simulo/robot/cartpole:v1')"
    assert asset == Asset.from_registry("simulo/robot/cartpole:v1")
    assert asset.resolve() is asset and "_loaded" in vars(asset)
    assert Asset.from_urdf_string(URDF).ref is None


def test_from_registry_pick_arm() -> None:
    asset = Asset.from_registry("simulo/robot/pick_arm:v1")
    assert (asset.name, asset.fixed_base, asset.spawn_pose) == ("pick_arm", True, None)
    assert len(asset.model.joints) == 8 and len(asset.model.movable_joints) == 7
    assert asset.urdf_path().read_text(encoding="utf-8") == asset.urdf_text


@pytest.mark.parametrize("ref, fragments", [
    ("simulo/robot/cartpole", ["bad registry reference 'simulo/robot/cartpole'", "simulo/robot/<name>:v<N>",
                               "the version is required"]),
    ("cartpole:v1", ["bad registry reference 'cartpole:v1'", "simulo/robot/<name>:v<N>"]),
    ("simulo/robot/cartpole:1", ["bad registry reference", "simulo/robot/<name>:v<N>"]),
    ("simulo/robot/cartpole:v0", ["bad registry reference"]),
    ("", ["bad registry reference ''"]),
    ("simulo/robot/cartpole:v2", ["unknown registry reference 'simulo/robot/cartpole:v2'", "no such model or version",
                                  "available: simulo/robot/anymal-c:v1, simulo/robot/cartpole:v1, "]),
    ("simulo/robot/spot:v1", ["unknown registry reference", "simulo/robot/jetbot:v1, simulo/robot/jetbot:v2"]),
    ("acme/robot/cartpole:v1", ["only the 'simulo' publisher's robots are available locally",
                                "written without a publisher, e.g. 'robot/cartpole:v1'"]),
    ("simulo/vehicle/kart:v1", ["bad registry reference 'simulo/vehicle/kart:v1': unknown kind 'vehicle'",
                                "robot, world, prop"]),
    ("robot/arm", ["bad registry reference 'robot/arm'", "'robot/<name>:v<N>'", "the version is required"]),
])
def test_from_registry_errors(ref: str, fragments: list[str]) -> None:
    with pytest.raises(AssetError) as info:
        Asset.from_registry(ref)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_from_registry_non_string() -> None:
    with pytest.raises(AssetError, match="must be a string of the form 'simulo/robot/<name>:v<N>' or "
                                         "'robot/<name>:v<N>', got 42"):
        Asset.from_registry(42)  # type: ignore[arg-type]


@pytest.mark.parametrize("make", [Asset.usd, Asset.from_usd, Asset.from_usd_file])
def test_missing_usd_file_is_refused(make: object) -> None:
    with pytest.raises(AssetError) as info:
        make("robots/arm.usd")  # type: ignore[operator]
    message = str(info.value)
    assert "'robots/arm.usd' not found" in message and ".usda" in message  # loading USD: tests/authoring/usd


def test_usd_file_through_from_urdf_file_is_refused(tmp_path: Path) -> None:
    usd = tmp_path / "arm.usda"
    usd.write_text("#usda 1.0\n")
    with pytest.raises(AssetError, match="is a USD file, not a URDF file; load it with Asset.from_usd_file"):
        Asset.from_urdf_file(usd)


# -- the files load in PyBullet (tests may import pybullet; src/simulo/authoring never does) ---------------------

@pytest.fixture
def bullet():  # type: ignore[no-untyped-def]
    p = pytest.importorskip("pybullet")
    client = p.connect(p.DIRECT)
    yield p, client
    p.disconnect(client)


def test_pick_arm_loads_in_pybullet(bullet) -> None:  # type: ignore[no-untyped-def]
    p, client = bullet
    asset = Asset.from_registry("simulo/robot/pick_arm:v1")
    body = p.loadURDF(str(asset.urdf_path()), useFixedBase=True, physicsClientId=client)
    count = p.getNumJoints(body, physicsClientId=client)
    infos = [p.getJointInfo(body, j, physicsClientId=client) for j in range(count)]
    assert [i[1].decode() for i in infos] == ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll",
                                              "finger_left_joint", "finger_right_joint", "tcp_joint"]
    assert [i[12].decode() for i in infos] == ["turret", "upper_arm", "forearm", "wrist", "hand", "finger_left",
                                               "finger_right", "tcp"]
    assert [i[2] for i in infos] == [p.JOINT_REVOLUTE] * 5 + [p.JOINT_PRISMATIC] * 2 + [p.JOINT_FIXED]
    masses = [p.getDynamicsInfo(body, j, physicsClientId=client)[0] for j in range(8)]  # a fixed base reads 0 kg
    assert masses == pytest.approx([0.5, 0.5, 0.4, 0.1, 0.1, 0.02, 0.02, 0.001])
    box = p.getCollisionShapeData(body, 1, physicsClientId=client)[0]  # upper_arm (link index = joint index)
    assert box[2] == p.GEOM_BOX and box[3] == pytest.approx((0.04, 0.04, 0.3))
    com = p.getLinkState(body, 1, physicsClientId=client)[0]  # upper_arm centre of mass: shoulder at 0.2 + 0.15
    assert com == pytest.approx((0.0, 0.0, 0.35), abs=1e-6)  # PyBullet stores float32
    # the seed's tcp sits 0.095 m from the wrist pitch axis along the hand: 0.2 + 0.3 + 0.25 + 0.095 = 0.845 m up
    tcp = p.getLinkState(body, 7, computeForwardKinematics=True, physicsClientId=client)[4]
    assert tcp == pytest.approx((0.0, 0.0, 0.845), abs=1e-6)  # PyBullet stores float32
    assert asset.urdf_text.count("<visual>") == 1  # on base_link only, as in the seed


def test_cartpole_loads_in_pybullet_and_the_pole_swings(bullet) -> None:  # type: ignore[no-untyped-def]
    p, client = bullet
    asset = Asset.from_registry("simulo/robot/cartpole:v1")
    assert asset.spawn_pose is not None
    body = p.loadURDF(str(asset.urdf_path()), basePosition=asset.spawn_pose.xyz, useFixedBase=True,
                      physicsClientId=client)
    count = p.getNumJoints(body, physicsClientId=client)
    infos = [p.getJointInfo(body, j, physicsClientId=client) for j in range(count)]
    assert [(i[1].decode(), i[2]) for i in infos] == [("slider_to_cart", p.JOINT_PRISMATIC),
                                                      ("cart_to_pole", p.JOINT_REVOLUTE)]
    assert infos[0][8:11] == (-4.0, 4.0, 400.0)
    p.setGravity(0, 0, -9.81, physicsClientId=client)
    p.setJointMotorControlArray(body, [0, 1], p.VELOCITY_CONTROL, forces=[0, 0], physicsClientId=client)
    p.resetJointState(body, 1, 0.1, physicsClientId=client)
    for _ in range(240):
        p.stepSimulation(physicsClientId=client)
    assert p.getJointState(body, 1, physicsClientId=client)[0] > 1.0  # fell from 0.1 rad, past the horizontal
    assert len(p.getVisualShapeData(body, physicsClientId=client)) == 3


def test_string_asset_with_relative_mesh_loads_in_pybullet(tmp_path: Path, bullet) -> None:  # type: ignore[no-untyped-def]
    p, client = bullet
    asset = Asset.from_urdf_string(MESH_URDF, base_dir=mesh_folder(tmp_path))
    body = p.loadURDF(str(asset.urdf_path()), physicsClientId=client)
    lo, hi = p.getAABB(body, -1, physicsClientId=client)
    assert hi[0] - lo[0] == pytest.approx(0.1, abs=0.02)  # the 10 cm cube mesh was found and loaded


def test_a_catalog_file_is_an_absolute_path_and_a_path() -> None:
    entry = lookup("simulo/robot/pick_arm:v1")
    assert os.path.isabs(entry.file_path) and os.path.isfile(entry.file_path)
    assert entry.file == Path(entry.file_path)
    asset = Asset.from_registry("simulo/robot/pick_arm:v1")
    assert asset.urdf_file() == entry.file_path and asset.source_path == entry.file


def test_the_sdks_constructor_is_the_registry_handle() -> None:
    asset = Asset("simulo/robot/cartpole:v1")
    assert asset == Asset.from_registry("simulo/robot/cartpole:v1") and "_loaded" not in vars(asset)
    assert asset.is_read_only and asset.read_only() is asset
    assert asset.name == "cartpole"


def test_read_only_is_recorded_and_read_only_gives_a_read_only_view() -> None:
    writable = Asset("simulo/robot/cartpole:v1", read_only=False)
    assert not writable.is_read_only
    assert repr(writable) == "Asset.from_registry('simulo/robot/cartpole:v1', read_only=False)"
    assert writable != Asset("simulo/robot/cartpole:v1")
    view = writable.read_only()
    assert view.is_read_only and view == Asset("simulo/robot/cartpole:v1") and view.name == "cartpole"
    assert not Asset.from_registry("simulo/robot/cartpole:v1", read_only=False).is_read_only
    assert Asset.from_urdf_string(URDF).is_read_only


@pytest.mark.parametrize(("args", "kwargs", "error", "fragment"), [
    (("simulo/robot/no-such:v1",), {}, AssetError, "no-such"),
    (("not a ref",), {}, AssetError, "bad registry reference"),
    (("simulo/robot/cartpole:v1",), {"read_only": "yes"}, AssetError, "read_only must be True or False"),
    (("simulo/robot/cartpole:v1", False), {}, TypeError, "positional"),
    ((), {}, TypeError, "uri"),
])
def test_the_sdks_constructor_refuses(args: tuple[object, ...], kwargs: dict[str, object], error: type[Exception],
                                      fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        Asset(*args, **kwargs)  # type: ignore[arg-type]
