"""Mesh rules: package:// resolution, mesh file content checks, and the ASCII STL conversion for the engine."""

from __future__ import annotations

import math
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.authoring.meshes import check_mesh_file, read_ascii_stl
from simulo.authoring.packages import PACKAGE_PATH_VARIABLE
from simulo.authoring.urdf import check_urdf
from simulo.errors import AssetError, UrdfError

from .hostile.files import collada

INERTIAL = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
TRIANGLE_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"
#: The 12 triangles of an axis-aligned cube of side 0.1 centred on the origin.
CUBE_CORNERS = [(x, y, z) for x in (-0.05, 0.05) for y in (-0.05, 0.05) for z in (-0.05, 0.05)]
CUBE_FACES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
              (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


def ascii_cube() -> str:
    lines = ["solid cube"]
    for face in CUBE_FACES:
        lines += ["  facet normal 0 0 0", "    outer loop"]
        lines += [f"      vertex {' '.join(f'{c:g}' for c in CUBE_CORNERS[i])}" for i in face]
        lines += ["    endloop", "  endfacet"]
    return "\n".join([*lines, "endsolid cube", ""])


def binary_stl(triangles: list[tuple[float, ...]], header: bytes = b"binary") -> bytes:
    body = b"".join(struct.pack("<12fH", *t, 0) for t in triangles)
    return header.ljust(80, b" ") + struct.pack("<I", len(triangles)) + body


def mesh_robot(filename: str, where: str = "collision") -> str:
    return (f'<robot name="m">\n<link name="a">{INERTIAL}<{where}><geometry><mesh filename="{filename}"/>'
            f"</geometry></{where}></link>\n</robot>")


def problems_of(text: str, base_dir: Path) -> list[str]:
    with pytest.raises(UrdfError) as info:
        check_urdf(text, source="m.urdf", base_dir=base_dir)
    return info.value.problems


# -- package:// -------------------------------------------------------------------------------------


def test_package_as_a_folder_next_to_the_urdf(tmp_path: Path) -> None:
    (tmp_path / "meshes" / "collision").mkdir(parents=True)
    (tmp_path / "meshes" / "collision" / "part.obj").write_text(TRIANGLE_OBJ)
    model = check_urdf(mesh_robot("package://meshes/collision/part.obj"), base_dir=tmp_path)
    assert [(m.path, m.package) for m in model.meshes] == [((tmp_path / "meshes/collision/part.obj").resolve(), True)]


def test_package_as_an_ancestor_folder_of_the_urdf(tmp_path: Path) -> None:
    package = tmp_path / "arm_description"
    (package / "urdf").mkdir(parents=True)
    (package / "meshes").mkdir()
    (package / "meshes" / "part.obj").write_text(TRIANGLE_OBJ)
    model = check_urdf(mesh_robot("package://arm_description/meshes/part.obj"), base_dir=package / "urdf")
    assert model.meshes[0].path == (package / "meshes" / "part.obj").resolve()


def test_package_found_through_ros_package_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ws" / "gripper" / "meshes").mkdir(parents=True)
    (tmp_path / "ws" / "gripper" / "meshes" / "finger.obj").write_text(TRIANGLE_OBJ)
    (tmp_path / "robot").mkdir()
    text = mesh_robot("package://gripper/meshes/finger.obj")
    problems = problems_of(text, tmp_path / "robot")
    assert problems == [f"line 2: link 'a' <collision>: mesh filename 'package://gripper/meshes/finger.obj': package "
                        f"'gripper' not found: no folder named 'gripper' at or above {str(tmp_path / 'robot')!r}, and "
                        f"none in {PACKAGE_PATH_VARIABLE}=''; put the package folder next to (or above) the URDF, or "
                        f"add its parent folder to {PACKAGE_PATH_VARIABLE}"]
    monkeypatch.setenv(PACKAGE_PATH_VARIABLE, os.pathsep.join([str(tmp_path / "elsewhere"), str(tmp_path / "ws")]))
    model = check_urdf(text, base_dir=tmp_path / "robot")
    assert model.meshes[0].path == (tmp_path / "ws" / "gripper" / "meshes" / "finger.obj").resolve()


@pytest.mark.parametrize("filename, fragment", [
    ("package://meshes/../../secret.obj", "leaves package 'meshes' through '..'"),
    ("package://meshes", "is not a package URI; expected package://PACKAGE/PATH/TO/MESH"),
    ("package:///etc/passwd", "is not a package URI"),
    ("package://../meshes/x.obj", "is not a package URI"),
    ("package://meshes/gone.obj", "mesh file 'package://meshes/gone.obj' not found in package 'meshes'"),
])
def test_bad_package_uris_are_refused(tmp_path: Path, filename: str, fragment: str) -> None:
    (tmp_path / "meshes").mkdir()
    (tmp_path / "secret.obj").write_text(TRIANGLE_OBJ)
    problems = problems_of(mesh_robot(filename), tmp_path)
    assert len(problems) == 1 and fragment in problems[0], problems


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_package_symlink_leaving_the_package_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.obj").write_text(TRIANGLE_OBJ)
    (tmp_path / "asset" / "meshes").mkdir(parents=True)
    (tmp_path / "asset" / "meshes" / "link").symlink_to(tmp_path / "outside", target_is_directory=True)
    problems = problems_of(mesh_robot("package://meshes/link/secret.obj"), tmp_path / "asset")
    assert len(problems) == 1 and "(through a symbolic link), outside package 'meshes'" in problems[0]


# -- mesh file content --------------------------------------------------------------------------------


NAN_TRIANGLE = (0.0, 0.0, 1.0, 0.0, 0.0, 0.0, math.nan, 0.0, 0.0, 0.0, 1.0, 0.0)
BAD_MESHES = [
    ("empty.stl", b"", "is empty"),
    ("garbage.stl", b"\x00\x01garbage" * 20, "is neither a binary STL (84-byte header + 50 bytes per triangle: the "
                                             "file has 180 bytes, its header says"),
    ("short.stl", b"abc", "is neither a binary STL"),
    ("no_triangles.stl", binary_stl([]), "is a binary STL with no triangles"),
    ("nan.stl", binary_stl([NAN_TRIANGLE]), "binary STL triangle 1 of 1 has a coordinate that is not a finite number"),
    ("bad_ascii.stl", b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0\n", "is not a valid ASCII STL: line 4: "
                                                                              "vertex needs 3 finite numbers"),
    ("empty_ascii.stl", b"solid x\nendsolid x\n", "is not a valid ASCII STL: no triangles"),
    ("short_facet.stl", b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nendloop\nendfacet\nendsolid\n",
     "the last facet has fewer than 3 vertices"),
    ("out_of_range.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
     "line 4: face index '4' is out of range; 3 vertices are defined before it"),
    ("zero_index.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "face index '0' is out of range"),
    ("negative.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", "face index '-4' is out of range"),
    ("forward.obj", b"v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n", "line 2: face index '2' is out of range; 1 vertices"),
    ("slashes.obj", b"v 0 0 0\nv 1 0 0\nvt 0 0\nf 1/1 2/1 7/1\n", "face index '7/1' is out of range"),
    ("nan_vertex.obj", b"v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "line 1: vertex 'v nan 0 0' needs 3 finite numbers"),
    ("points.obj", b"v 0 0 0\nv 1 0 0\nf 1 2\n", "has 2 vertices and no face of 3 or more vertices: as a "
                                                "collision shape PyBullet would collide with a point"),
    ("mesh.ply", b"ply\n", "has extension '.ply'; the engine loads .stl, .obj, .dae meshes only"),
]


@pytest.mark.parametrize("name, data, fragment", BAD_MESHES, ids=[m[0] for m in BAD_MESHES])
def test_unloadable_mesh_files_are_refused_naming_the_file(tmp_path: Path, name: str, data: bytes,
                                                           fragment: str) -> None:
    (tmp_path / name).write_bytes(data)
    problems = problems_of(mesh_robot(name), tmp_path)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"line 2: link 'a' <collision>: mesh file '{name}' ({str(tmp_path / name)!r}) ")
    assert fragment in problems[0], problems
    urdf = tmp_path / "m.urdf"
    urdf.write_text(mesh_robot(name))
    with pytest.raises(UrdfError, match="mesh file"):  # the asset is refused before any engine sees the file
        simulo.Asset.from_urdf_file(urdf)


@pytest.mark.parametrize("name, data", [("none.stl", binary_stl([])), ("point.obj", b"v 0 0 0\n"),
                                        ("comment.obj", b"# nothing\n")])
def test_empty_mesh_is_accepted_as_a_visual(tmp_path: Path, name: str, data: bytes) -> None:
    """It draws nothing, like a zero-radius visual sphere; as a collision shape it is refused (above)."""
    (tmp_path / name).write_bytes(data)
    assert check_mesh_file(tmp_path / name).empty is not None
    assert check_urdf(mesh_robot(name, where="visual"), base_dir=tmp_path).meshes[0].path == tmp_path / name
    assert "as a collision shape" in problems_of(mesh_robot(name), tmp_path)[0]


def test_good_meshes_pass(tmp_path: Path) -> None:
    cube = [(0.0, 0.0, 0.0, *CUBE_CORNERS[a], *CUBE_CORNERS[b], *CUBE_CORNERS[c]) for a, b, c in CUBE_FACES]
    files = {
        "a.stl": binary_stl(cube, header=b"solid, but binary"),
        "b.obj": b"# comment\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1//1 2//1 3//1\nf -1 -2 -3\nl 1 2\nf 1 2\n",
        "c.dae": collada(),
        "d.STL": ascii_cube().encode(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        checked = check_mesh_file(tmp_path / name)
        assert checked.problem is None, (name, checked)
        assert checked.ascii_stl is (name == "d.STL")


def test_ascii_stl_reader() -> None:
    triangles = read_ascii_stl(ascii_cube().encode())
    assert len(triangles) == 12
    assert triangles[0][3:6] == CUBE_CORNERS[0] and triangles[0][9:12] == CUBE_CORNERS[3]


# -- what the engine loads ------------------------------------------------------------------------------


def asset_with_ascii_cube(tmp_path: Path) -> simulo.Asset:
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "cube.stl").write_text(ascii_cube())
    urdf = tmp_path / "cube.urdf"
    urdf.write_text(mesh_robot("package://meshes/cube.stl"))
    return simulo.Asset.from_urdf_file(urdf)


def test_ascii_stl_reaches_the_engine_as_a_binary_copy(tmp_path: Path) -> None:
    asset = asset_with_ascii_cube(tmp_path)
    assert asset.model.meshes[0].ascii_stl
    path = asset.urdf_path()
    assert path != asset.source_path and path.parent != tmp_path  # a prepared copy, never in the asset's folder
    prepared = path.read_text(encoding="utf-8")
    assert prepared.count("filename=") == 1 and "package://" not in prepared
    binary = Path(prepared.split('filename="')[1].split('"')[0])
    assert binary.parent == path.parent and binary.suffix == ".stl"  # next to the prepared URDF
    assert not check_mesh_file(binary).ascii_stl
    data = binary.read_bytes()
    assert struct.unpack_from("<I", data, 80)[0] == 12 and len(data) == 84 + 50 * 12
    first = struct.unpack_from("<12f", data, 84)
    assert np.allclose(first[3:12], [c for i in CUBE_FACES[0] for c in CUBE_CORNERS[i]])
    assert asset.urdf_path() == path  # written once, content-addressed


def test_ascii_stl_cube_rests_on_the_plane(tmp_path: Path) -> None:
    """Empty geometry would fall through the plane; the binary copy stands on it, its centre 5 cm up."""
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Terrain.plane(), at="/World/ground", per_environment=False)
    robot = simulo.Robot(asset=asset_with_ascii_cube(tmp_path), initial_pose=simulo.Pose(position=(0, 0, 0.2)))
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene) as sim:
        sim.step(400)
        height = float(np.asarray(robot.state.pose)[0, 2])
    assert height == pytest.approx(0.05, abs=0.005)


def test_string_asset_with_a_mesh_but_no_folder_is_refused_before_loading() -> None:
    asset = simulo.Asset.from_urdf_string(mesh_robot("meshes/part.obj"))
    with pytest.raises(AssetError, match="names mesh 'meshes/part.obj' but has no folder to find it in"):
        asset.urdf_path()
