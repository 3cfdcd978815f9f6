"""URDF checking: every problem kind is found, all at once, with line numbers; hostile XML is refused."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from simulo.authoring.catalog import lookup
from simulo.authoring.urdf import JointLimits, UrdfJoint, UrdfModel, check_urdf
from simulo.errors import SimuloError, UrdfError

INERTIAL = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
BOX = '<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>'


def robot(body: str, name: str = "r") -> str:
    """A URDF document around ``body``; the <robot> tag is on line 1."""
    return f'<robot name="{name}">\n{body}\n</robot>'


def link(name: str, extra: str = "") -> str:
    return f'<link name="{name}">{INERTIAL}{extra}</link>'


def joint(name: str, parent: str, child: str, kind: str = "fixed", extra: str = "") -> str:
    return f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>{extra}</joint>'


LIMIT = '<limit lower="-1" upper="1" effort="10" velocity="2"/>'
GOOD = robot("\n".join([
    link("base", BOX),
    link("arm", BOX),
    link("tip"),
    joint("j1", "base", "arm", "revolute", f'<origin xyz="0 0 0.1" rpy="0 0 0.5"/><axis xyz="0 1 0"/>{LIMIT}'),
    joint("j2", "arm", "tip", "fixed"),
]), name="two_link")


def problems_of(text: str, **kwargs: object) -> list[str]:
    with pytest.raises(UrdfError) as info:
        check_urdf(text, **kwargs)  # type: ignore[arg-type]
    return info.value.problems


def test_good_document_gives_model_in_document_order() -> None:
    model = check_urdf(GOOD)
    assert model == UrdfModel(
        name="two_link",
        links=("base", "arm", "tip"),
        joints=(
            UrdfJoint("j1", "revolute", "base", "arm", (0.0, 1.0, 0.0), JointLimits(-1.0, 1.0, 10.0, 2.0),
                      (0.0, 0.0, 0.1), (0.0, 0.0, 0.5)),
            UrdfJoint("j2", "fixed", "arm", "tip", (1.0, 0.0, 0.0), None),
        ),
        root_link="base",
    )
    assert model.joint_names == ("j1", "j2")
    assert [j.name for j in model.movable_joints] == ["j1"]


def test_all_valid_joint_types_accepted() -> None:
    kinds = ["revolute", "continuous", "prismatic", "fixed", "floating", "planar"]
    links = [link("l0")] + [link(f"l{i + 1}") for i in range(len(kinds))]
    joints = [joint(f"j{i}", f"l{i}", f"l{i + 1}", k, LIMIT if k in ("revolute", "prismatic") else "")
              for i, k in enumerate(kinds)]
    model = check_urdf(robot("\n".join(links + joints)))
    assert [j.type for j in model.joints] == kinds
    assert [j.limits is not None for j in model.joints] == [True, False, True, False, False, False]


# (case id, document, a fragment the problem list must contain)
CASES = [
    ("not_xml", "this is not xml", "not XML"),
    ("unclosed", '<robot name="r"><link name="a">', "not XML"),
    ("wrong_root", '<sdf name="r"><link name="a"/></sdf>', "root element is <sdf>"),
    ("no_robot_name", '<robot>\n<link name="a"/>\n</robot>', "<robot> has no name"),
    ("empty_robot_name", '<robot name="  ">\n<link name="a"/>\n</robot>', "<robot> has no name"),
    ("no_links", robot(""), "defines no <link>"),
    ("unnamed_link", robot('<link name="a"/><link/>'), "<link> has no name"),
    ("duplicate_link", robot(link("a") + "\n" + link("a")), "duplicate link name 'a' (first defined on line 2)"),
    ("duplicate_joint", robot("\n".join([link("a"), link("b"), link("c"), joint("j", "a", "b"), joint("j", "a", "c")])),
     "duplicate joint name 'j'"),
    ("two_roots", robot(link("a") + link("b")), "2 root links: 'a' (line 2), 'b' (line 2)"),
    ("loop_no_root", robot("\n".join([link("a"), link("b"), joint("j1", "a", "b"), joint("j2", "b", "a")])),
     "no root link"),
    ("detached_loop", robot("\n".join([link("r"), link("a"), link("b"), joint("j0", "r", "a"), joint("j1", "a", "b"),
                                       link("c"), link("d"), joint("j2", "c", "d"), joint("j3", "d", "c")])),
     "links 'c', 'd' are not connected to the root link 'r'"),
    ("unknown_type", robot(link("a") + link("b") + joint("j", "a", "b", "hinge")), "unknown type 'hinge'"),
    ("missing_type", robot(link("a") + link("b") + '<joint name="j"><parent link="a"/><child link="b"/></joint>'),
     "joint 'j' has no type"),
    ("unnamed_joint", robot(link("a") + link("b") + '<joint type="fixed"><parent link="a"/><child link="b"/></joint>'),
     "<joint> has no name"),
    ("missing_parent", robot(link("a") + link("b") + '<joint name="j" type="fixed"><child link="b"/></joint>'),
     "joint 'j' has no parent link"),
    ("missing_child", robot(link("a") + '<joint name="j" type="fixed"><parent link="a"/></joint>'),
     "joint 'j' has no child link"),
    ("unknown_parent", robot(link("a") + link("b") + joint("j", "ghost", "b")),
     "parent link 'ghost' is not defined; defined links: a, b"),
    ("unknown_child", robot(link("a") + joint("j", "a", "ghost")), "child link 'ghost' is not defined"),
    ("self_joint", robot(link("a") + joint("j", "a", "a")), "connects link 'a' to itself"),
    ("two_parents", robot("\n".join([link("a"), link("b"), link("c"), joint("j1", "a", "c"), joint("j2", "b", "c")])),
     "link 'c' is the child of two joints: 'j1' (line 5) and 'j2' (line 6)"),
    ("revolute_no_limit", robot(link("a") + link("b") + joint("j", "a", "b", "revolute")),
     "joint 'j' (revolute) has no <limit>"),
    ("prismatic_no_limit", robot(link("a") + link("b") + joint("j", "a", "b", "prismatic")),
     "joint 'j' (prismatic) has no <limit>"),
    ("limit_missing_attrs", robot(link("a") + link("b") + joint("j", "a", "b", "revolute",
                                                                '<limit lower="0" upper="1"/>')),
     "<limit> is missing effort, velocity"),
    ("limit_missing_lower", robot(link("a") + link("b") + joint("j", "a", "b", "prismatic",
                                                                '<limit upper="1" effort="1" velocity="1"/>')),
     "<limit> is missing lower"),
    ("limit_lower_above_upper", robot(link("a") + link("b") + joint(
        "j", "a", "b", "revolute", '<limit lower="2" upper="1" effort="1" velocity="1"/>')),
     "lower=2 is above upper=1"),
    ("limit_not_number", robot(link("a") + link("b") + joint(
        "j", "a", "b", "revolute", '<limit lower="low" upper="1" effort="1" velocity="nan"/>')),
     "got lower='low', velocity='nan'"),
    ("limit_negative_effort", robot(link("a") + link("b") + joint(
        "j", "a", "b", "revolute", '<limit lower="0" upper="1" effort="-5" velocity="1"/>')),
     "effort=-5 must be >= 0"),
    ("zero_axis", robot(link("a") + link("b") + joint("j", "a", "b", "continuous", '<axis xyz="0 0 0"/>')),
     "has zero length"),
    ("bad_axis", robot(link("a") + link("b") + joint("j", "a", "b", "continuous", '<axis xyz="0 1"/>')),
     "xyz='0 1' must be 3 finite number(s)"),
    ("bad_origin", robot(link("a") + link("b") + joint("j", "a", "b", "fixed", '<origin xyz="0 0 x"/>')),
     "<origin>: xyz='0 0 x'"),
    ("collision_no_inertial", robot(f'<link name="a">{BOX}</link>'),
     "link 'a' has <collision> geometry but no <inertial>"),
    ("mass_negative", robot('<link name="a"><inertial><mass value="-1"/>'
                            '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'),
     "mass value='-1' must be a number >= 0 (kg)"),
    ("mass_nan", robot('<link name="a"><inertial><mass value="nan"/>'
                       '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'),
     "mass value='nan' must be a number >= 0 (kg)"),
    ("mass_not_number", robot('<link name="a"><inertial><mass value="heavy"/>'
                              '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'),
     "mass value='heavy' must be a number >= 0"),
    ("mass_missing", robot('<link name="a"><inertial>'
                           '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'),
     "<inertial> needs <mass"),
    ("inertia_missing", robot('<link name="a"><inertial><mass value="1"/></inertial></link>'),
     "<inertial> needs <inertia"),
    ("inertia_incomplete", robot('<link name="a"><inertial><mass value="1"/><inertia ixx="1"/></inertial></link>'),
     "<inertia> is missing ixy, ixz, iyy, iyz, izz"),
    ("collision_no_geometry", robot(link("a", "<collision/>")), "<collision> has no <geometry>"),
    ("unknown_shape", robot(link("a", "<visual><geometry><cone radius='1'/></geometry></visual>")),
     "<geometry> must start with one shape (box, cylinder, sphere, capsule, mesh), found <cone>"),
    ("box_bad_size", robot(link("a", '<collision><geometry><box size="1 1"/></geometry></collision>')),
     "size='1 1' must be 3 finite number(s)"),
    ("cylinder_negative",
     robot(link("a", '<collision><geometry><cylinder radius="-1" length="1"/></geometry></collision>')),
     "radius='-1' must be > 0"),
    ("sphere_no_radius", robot(link("a", "<collision><geometry><sphere/></geometry></collision>")),
     "<sphere> needs radius"),
    ("mesh_absolute", robot(link("a", '<visual><geometry><mesh filename="/etc/passwd"/></geometry></visual>')),
     "'/etc/passwd' is an absolute path, which leaves the asset's folder"),
    ("mesh_windows_absolute", robot(link("a", r'<visual><geometry><mesh filename="C:\m\x.stl"/></geometry></visual>')),
     "is an absolute path"),
    ("mesh_dotdot", robot(link("a", '<visual><geometry><mesh filename="meshes/../../x.stl"/></geometry></visual>')),
     "leaves the asset's folder through '..'"),
    ("mesh_package_without_folder",
     robot(link("a", '<visual><geometry><mesh filename="package://arm/x.stl"/></geometry></visual>')),
     "package 'arm' not found: no URDF folder to search from"),
    ("mesh_http", robot(link("a", '<visual><geometry><mesh filename="https://example.com/x.stl"/></geometry></visual>')),
     "https:// URLs are never downloaded"),
    ("mesh_file_url", robot(link("a", '<visual><geometry><mesh filename="file:///x.stl"/></geometry></visual>')),
     "file:// URL is an absolute path"),
    ("mesh_no_filename", robot(link("a", "<visual><geometry><mesh/></geometry></visual>")), "<mesh> has no filename"),
    ("dtd", '<?xml version="1.0"?>\n<!DOCTYPE robot>\n<robot name="r"><link name="a"/></robot>',
     "line 2: hostile or unsupported XML refused: a document type declaration"),
]


@pytest.mark.parametrize("text, fragment", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_problem_kind_is_reported(text: str, fragment: str) -> None:
    problems = problems_of(text, source="case.urdf")
    assert any(fragment in p for p in problems), problems
    assert all(p.startswith("line ") for p in problems), problems


def test_many_problems_listed_at_once_with_lines_in_order() -> None:
    text = "\n".join([
        "<robot>",                                                                   # 1: no name
        f'<link name="a">{BOX}</link>',                                              # 2: no inertial
        link("a"),                                                                   # 3: duplicate
        link("b"),                                                                   # 4
        joint("j", "a", "b", "slider"),                                              # 5: unknown type
        joint("k", "a", "b", "revolute"),                                            # 6: two parents, no limit
        '<link name="m"><visual><geometry><mesh filename="../m.stl"/></geometry></visual></link>',  # 7
        joint("n", "a", "m", "prismatic", '<limit lower="1" upper="0"/>'),           # 8
        "</robot>",
    ])
    with pytest.raises(UrdfError) as info:
        check_urdf(text, source="many.urdf")
    err = info.value
    assert err.source == "many.urdf"
    expected = [
        (1, "<robot> has no name"),
        (2, "link 'a' has <collision> geometry but no <inertial>"),
        (3, "duplicate link name 'a'"),
        (5, "unknown type 'slider'"),
        (6, "link 'b' is the child of two joints"),
        (6, "joint 'k' (revolute) has no <limit>"),
        (7, "leaves the asset's folder"),
        (8, "<limit> is missing effort, velocity"),
        (8, "lower=1 is above upper=0"),
    ]
    for line, fragment in expected:
        assert any(p.startswith(f"line {line}: ") and fragment in p for p in err.problems), (
            line, fragment, err.problems)
    assert len(err.problems) == len(expected)
    lines = [int(p.split(":")[0].split()[1]) for p in err.problems]
    assert lines == sorted(lines)
    message = str(err)
    assert message.startswith(f"many.urdf: {len(expected)} problem(s) in URDF:")
    assert all(p in message for p in err.problems)


def test_error_is_a_simulo_value_error() -> None:
    with pytest.raises(UrdfError) as info:
        check_urdf("<nope", source="x.urdf")
    assert isinstance(info.value, SimuloError) and isinstance(info.value, ValueError)
    assert info.value.problems == ["line 1, column 1: not XML: unclosed token"]


def test_non_text_input_is_refused() -> None:
    problems = problems_of(b"<robot/>")  # type: ignore[arg-type]
    assert problems == ["expected the URDF document as text (str), got bytes"]


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<robot name="&lol9;"><link name="a"/></robot>
"""


def test_billion_laughs_refused_without_expansion() -> None:
    problems = problems_of(BILLION_LAUGHS)
    assert len(problems) == 1
    assert problems[0].startswith("line 2: hostile or unsupported XML refused")
    assert "nothing was expanded" in problems[0]
    assert "lollol" not in problems[0]


@pytest.mark.parametrize("text", [
    '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
    '<robot name="&x;"><link name="a"/></robot>',
    '<?xml version="1.0"?>\n<!DOCTYPE robot SYSTEM "file:///etc/passwd">\n<robot name="r"><link name="a"/></robot>',
    '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]>\n<robot name="r"/>',
], ids=["external_entity", "external_dtd", "parameter_entity"])
def test_external_references_refused_without_loading(text: str) -> None:
    problems = problems_of(text)
    assert len(problems) == 1
    assert problems[0].startswith("line 2: hostile or unsupported XML refused")
    assert "root:" not in problems[0]


def test_mesh_inside_base_dir_passes_and_missing_mesh_is_reported(tmp_path: Path) -> None:
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "part.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    good = robot(link("a", '<visual><geometry><mesh filename="meshes/./part.obj" scale="1 1 1"/></geometry></visual>'))
    assert check_urdf(good, base_dir=tmp_path).links == ("a",)
    missing = robot(link("a", '<visual><geometry><mesh filename="meshes/gone.obj"/></geometry></visual>'))
    assert check_urdf(missing).links == ("a",)  # without base_dir only the path's text is checked
    problems = problems_of(missing, base_dir=tmp_path)
    folder = str(tmp_path.resolve())
    assert problems == [f"line 2: link 'a' <visual>: mesh file 'meshes/gone.obj' not found in the asset's folder "
                        f"{folder!r}"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_mesh_symlink_escaping_base_dir_is_reported(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    asset_dir = tmp_path / "asset"
    asset_dir.mkdir()
    (asset_dir / "meshes").symlink_to(outside, target_is_directory=True)
    text = robot(link("a", '<collision><geometry><mesh filename="meshes/secret.obj"/></geometry></collision>'))
    problems = problems_of(text, base_dir=asset_dir)
    assert len(problems) == 1 and "through a symbolic link), outside the asset's folder" in problems[0]


def test_catalog_urdfs_pass() -> None:
    for ref in ("simulo/robot/cartpole:v1", "simulo/robot/pick_arm:v1"):
        entry = lookup(ref)
        model = check_urdf(entry.file.read_text(encoding="utf-8"), source=str(entry.file), base_dir=entry.file.parent)
        assert model.name == ref.split("/")[-1].split(":")[0]


def test_cartpole_model() -> None:
    entry = lookup("simulo/robot/cartpole:v1")
    model = check_urdf(entry.file.read_text(encoding="utf-8"))
    assert model.root_link == "slider"
    slider, pole = model.joints
    assert (slider.name, slider.type, slider.axis) == ("slider_to_cart", "prismatic", (1.0, 0.0, 0.0))
    assert slider.limits == JointLimits(-4.0, 4.0, 400.0, 100.0)
    assert (pole.name, pole.parent, pole.child, pole.axis) == ("cart_to_pole", "cart", "pole", (0.0, 1.0, 0.0))
    assert pole.type == "continuous"  # an unlimited revolute joint: the pole swings freely


# The seed's arm (pick-and-place, seed 000): name, type, parent, child, origin z, axis,
# (lower, upper, effort, velocity).
SEED_ARM_JOINTS = [
    ("base_yaw", "revolute", "base_link", "turret", 0.1, (0, 0, 1), (-3.14, 3.14, 50, 2.0)),
    ("shoulder", "revolute", "turret", "upper_arm", 0.1, (0, 1, 0), (-1.6, 1.6, 50, 2.0)),
    ("elbow", "revolute", "upper_arm", "forearm", 0.3, (0, 1, 0), (-2.6, 2.6, 30, 2.0)),
    ("wrist_pitch", "revolute", "forearm", "wrist", 0.25, (0, 1, 0), (-2.6, 2.6, 10, 3.0)),
    ("wrist_roll", "revolute", "wrist", "hand", 0.04, (0, 0, 1), (-3.14, 3.14, 5, 3.0)),
    ("finger_left_joint", "prismatic", "hand", "finger_left", 0.02, (0, 1, 0), (0.0, 0.05, 20, 0.1)),
    ("finger_right_joint", "prismatic", "hand", "finger_right", 0.02, (0, -1, 0), (0.0, 0.05, 20, 0.1)),
    ("tcp_joint", "fixed", "hand", "tcp", 0.055, (1, 0, 0), None),
]


def test_pick_arm_matches_the_seed_arm() -> None:
    entry = lookup("simulo/robot/pick_arm:v1")
    model = check_urdf(entry.file.read_text(encoding="utf-8"))
    assert model.name == "pick_arm"
    assert model.root_link == "base_link"
    assert model.links == ("base_link", "turret", "upper_arm", "forearm", "wrist", "hand", "finger_left",
                           "finger_right", "tcp")
    assert len(model.joints) == len(SEED_ARM_JOINTS)
    for j, (name, kind, parent, child, z, axis, limits) in zip(model.joints, SEED_ARM_JOINTS):
        assert (j.name, j.type, j.parent, j.child) == (name, kind, parent, child)
        assert j.origin_xyz == (0.0, 0.0, z) and j.origin_rpy == (0.0, 0.0, 0.0)
        assert j.axis == tuple(float(a) for a in axis)
        assert j.limits == (JointLimits(*map(float, limits)) if limits else None)
    assert [j.name for j in model.movable_joints] == [row[0] for row in SEED_ARM_JOINTS[:7]]
    assert math.isclose(sum(j.origin_xyz[2] for j in model.joints[1:4]), 0.65)  # shoulder..wrist pitch axis
