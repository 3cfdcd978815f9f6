"""Whatever ``simulo check-urdf`` calls OK loads and steps; whatever it refuses, the loader refuses the same way.

Each case is a folder of files this test writes: a URDF and the meshes it names. Refused cases must give the
same message from ``check-urdf`` and from ``Asset.from_urdf_file``; accepted cases are loaded into PyBullet in
a child process (a crash there cannot take the test run with it) and every collision link must get a shape.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import simulo
from simulo.authoring.limits import MAX_LINE_BYTES
from simulo.cli.check_urdf import main as check_urdf_main
from simulo.errors import UrdfError

from .files import ascii_stl, binary_stl, chain, collada, link, mesh_link, revolute, robot, tetra_obj

_BOX = '<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>'
_LAUGHS = ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
           '<robot name="&b;"><link name="a"/></robot>')
_EXTERNAL = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><robot name="&x;"/>'


def _inertia(values: str) -> str:
    ixx, ixy, ixz, iyy, iyz, izz = values.split()
    return robot(f'<link name="a"><inertial><mass value="1"/><inertia ixx="{ixx}" ixy="{ixy}" ixz="{ixz}" '
                 f'iyy="{iyy}" iyz="{iyz}" izz="{izz}"/></inertial>{_BOX}</link>')


def _at_limit() -> str:
    """A line exactly MAX_LINE_BYTES long, with no whitespace where PyBullet's pieces could end."""
    short = link("a", _BOX)
    return short[:-len("</link>")] + "<!--" + "b" * (MAX_LINE_BYTES - len(short) - 7) + "-->" + "</link>"


#: name -> (URDF text, {mesh file: bytes}, a fragment of the refusal, or None when it must load)
CASES: dict[str, tuple[str, dict[str, bytes], str | None]] = {
    "obj_face_out_of_range": (robot(mesh_link("a", "m.obj")), {"m.obj": b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"},
                              "line 4: face index '9' is out of range; 3 vertices are defined before it"),
    "obj_normal_and_texture_indices_out_of_range_load": (
        robot(mesh_link("a", "m.obj")), {"m.obj": tetra_obj().replace(b"f 1 2 3", b"f 1/9/9 2//99 3/7")}, None),
    "obj_good": (robot(mesh_link("a", "m.obj")), {"m.obj": tetra_obj()}, None),
    "obj_nan_vertex": (robot(mesh_link("a", "m.obj")), {"m.obj": b"v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"},
                       "vertex 'v nan 0 0' needs 3 finite numbers"),
    "stl_ascii_converted": (robot(mesh_link("a", "m.stl")), {"m.stl": ascii_stl()}, None),
    "stl_binary": (robot(mesh_link("a", "m.stl")), {"m.stl": binary_stl(4)}, None),
    "stl_empty_file": (robot(mesh_link("a", "m.stl")), {"m.stl": b""}, "m.stl') is empty"),
    "stl_garbage": (robot(mesh_link("a", "m.stl")), {"m.stl": b"\x00\x01garbage" * 20},
                    "is neither a binary STL"),
    "stl_no_triangles_collision": (robot(mesh_link("a", "m.stl")), {"m.stl": binary_stl(0)},
                                   "as a collision shape PyBullet would collide with a point"),
    "dae_good": (robot(mesh_link("a", "m.dae")), {"m.dae": collada()}, None),
    "dae_garbage": (robot(mesh_link("a", "m.dae")), {"m.dae": b"garbage"}, "is not a COLLADA document (not XML"),
    "dae_index_out_of_range": (robot(mesh_link("a", "m.dae")), {"m.dae": collada(indices="0 1 7")},
                               "COLLADA document with 0 vertices and no triangle: as a collision shape"),
    "dae_no_scene_segfaults_pybullet": (robot(mesh_link("a", "m.dae")), {"m.dae": b"<COLLADA/>"},
                                        "is not a COLLADA mesh that can be read"),
    "dae_entity": (robot(mesh_link("a", "m.dae")),
                   {"m.dae": b'<!DOCTYPE c [<!ENTITY a "b">]><COLLADA>&a;</COLLADA>'}, "is hostile XML, refused"),
    "mesh_escapes_folder": (robot(mesh_link("a", "../m.obj")), {}, "leaves the asset's folder through '..'"),
    "mesh_absolute": (robot(mesh_link("a", "/etc/passwd")), {}, "is an absolute path"),
    "mesh_url": (robot(mesh_link("a", "https://example.com/m.obj")), {}, "URLs are never downloaded"),
    "nan_origin": (robot(link("a", _BOX), link("b", _BOX),
                         revolute("j", "a", "b").replace('xyz="0 0 0.1"', 'xyz="nan 0 0"')), {},
                   "<origin>: xyz='nan 0 0' must be 3 finite number(s)"),
    "inf_mass": (robot(link("a", _BOX).replace('mass value="1"', 'mass value="inf"')), {},
                 "mass value='inf' must be a number >= 0"),
    "negative_inertia": (_inertia("-1 0 0 1 0 1"), {}, "ixx < 0"),
    "inertia_not_positive_semidefinite": (_inertia("1 5 0 1 0 1"), {}, "is not positive semi-definite"),
    "huge_inertia": (_inertia("1e300 0 0 1e300 0 1e300"), {}, "has an entry beyond 1e+12 kg·m²"),
    "large_inertia_positive_definite": (_inertia("1e9 0 0 1e9 0 1e9"), {}, None),
    "huge_box": (robot(link("a", _BOX.replace("0.1 0.1 0.1", "1e100 1 1"))), {}, "has a length beyond 1e+06 m"),
    "tiny_collision_box": (robot(link("a", _BOX.replace("0.1 0.1 0.1", "1e-20 1 1"))), {}, "has a size below 1e-06"),
    "huge_mass": (robot(link("a", _BOX).replace('mass value="1"', 'mass value="1e200"')), {},
                  "mass 1e+200 kg is outside 1e-09 to 1e+09 kg (or 0)"),
    "huge_origin": (robot(link("a", _BOX), link("b", _BOX),
                          revolute("j", "a", "b").replace('xyz="0 0 0.1"', 'xyz="1e100 0 0"')), {},
                    "<origin> xyz has a length beyond 1e+06 m"),
    "huge_mesh_scale": (robot(mesh_link("a", "m.obj").replace('"m.obj"', '"m.obj" scale="1e100 1 1"')),
                        {"m.obj": tetra_obj()}, "<mesh> scale='1e100 1 1' has a length beyond"),
    "small_but_sound_sizes_and_masses": (robot(link("a", _BOX.replace("0.1 0.1 0.1", "1e-5 1e-5 1e-5"))
                                               .replace('mass value="1"', 'mass value="1e-6"')), {}, None),
    "joint_cycle": (robot(link("a", _BOX), link("b", _BOX), revolute("j1", "a", "b"), revolute("j2", "b", "a")),
                    {}, "no root link"),
    "entity_expansion": (_LAUGHS, {}, "a document type declaration (<!DOCTYPE ...>) is not allowed"),
    "external_entity": (_EXTERNAL, {}, "nothing was expanded"),
    "long_line": (robot(link("a", _BOX + " " * 9000)), {}, "more than the 8190 accepted"),
    "line_at_the_limit_with_a_tag_to_its_end": (robot(_at_limit()), {}, None),
    "link_name_that_crashes_pybullet": (robot(link("a" * 7990, _BOX)), {}, "has 7990 bytes, more than the 255"),
    "robot_name_too_long": (robot(link("a", _BOX), name="r" * 256), {}, "<robot> name 'rrrr"),
    "names_at_the_limit": (robot(link("a" * 255, _BOX), name="r" * 255), {}, None),
    "too_many_links": (chain(257), {}, "the robot has 257 links, more than the 256"),
    "chain_of_64": (chain(64), {}, None),
    "deep_nesting": ('<robot name="r">' + "<x>\n" * 70 + "</x>\n" * 70 + "</robot>", {}, "elements nest more"),
}


def _write(folder: Path, name: str) -> Path:
    text, meshes, _ = CASES[name]
    case = folder / name / "robot"
    case.mkdir(parents=True)
    for mesh, data in meshes.items():
        (case / mesh).write_bytes(data)
    (case / "r.urdf").write_text(text)
    return case / "r.urdf"


@pytest.mark.parametrize("name", [n for n, case in CASES.items() if case[2] is not None])
def test_check_urdf_and_the_loader_refuse_alike(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    file = _write(tmp_path, name)
    fragment = CASES[name][2]
    assert fragment is not None
    assert check_urdf_main([str(file)]) == 1
    printed = capsys.readouterr().out
    with pytest.raises(UrdfError) as info:
        simulo.Asset.from_urdf_file(file)
    assert str(info.value).strip() == printed.strip()
    assert fragment in printed


def test_what_check_urdf_accepts_loads_and_steps_with_every_collision_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [_write(tmp_path, name) for name, case in CASES.items() if case[2] is None]
    for file in files:
        assert check_urdf_main([str(file)]) == 0, capsys.readouterr().out
    script = Path(__file__).with_name("load_check.py")
    done = subprocess.run([sys.executable, str(script), *map(str, files)], capture_output=True, text=True,
                          timeout=120, check=False)
    results = [line for line in done.stdout.splitlines() if line.startswith(("OK ", "NOSHAPE ", "NONFINITE "))]
    assert done.returncode == 0, (done.returncode, results, done.stderr[-2000:])
    assert results == [f"OK {file}" for file in files]
