"""URDF acceptance as urdfdom and PyBullet accept: massless links, fixed-joint axes, geometry extras,
xacro leftovers, trailing NULs; and the attribute rewriter that prepares the engine's copy."""

from __future__ import annotations

import pytest

from simulo.authoring.urdf import check_urdf
from simulo.authoring.urdf_xml import edit_attributes, parse
from simulo.errors import UrdfError

BOX = '<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>'
LIMIT = '<limit lower="-1" upper="1" effort="10" velocity="2"/>'


def link(name: str, mass: float = 1.0, extra: str = "") -> str:
    return (f'<link name="{name}"><inertial><mass value="{mass:g}"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" '
            f'iyz="0" izz="0.01"/></inertial>{extra}</link>')


def joint(name: str, parent: str, child: str, kind: str = "revolute", extra: str = LIMIT) -> str:
    return f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>{extra}</joint>'


def robot(*parts: str) -> str:
    return '<robot name="r">\n' + "\n".join(parts) + "\n</robot>"


def problems_of(text: str) -> list[str]:
    with pytest.raises(UrdfError) as info:
        check_urdf(text, source="r.urdf")
    return info.value.problems


# -- massless links ---------------------------------------------------------------------------------------


def test_massless_root_is_accepted_with_a_note() -> None:
    model = check_urdf(robot(link("base", 0, BOX), link("arm", 1, BOX), joint("j", "base", "arm")))
    assert model.notes == ("root link 'base' has mass 0: PyBullet makes the base static (fixed to the world) even "
                           "when the robot's base is free",)
    assert check_urdf(robot(link("base", 2), link("arm"), joint("j", "base", "arm"))).notes == ()


def test_massless_link_carrying_massive_links_is_accepted() -> None:
    """A universal joint made of two revolute joints around a massless link moves: the child carries mass."""
    text = robot(link("base"), link("cross", 0), link("arm", 1, BOX), joint("j1", "base", "cross"),
                 joint("j2", "cross", "arm"))
    assert check_urdf(text).notes == ()


def test_massless_link_on_a_fixed_joint_is_accepted() -> None:
    text = robot(link("base"), link("sensor", 0), joint("mount", "base", "sensor", "fixed", ""))
    assert check_urdf(text).links == ("base", "sensor")


def test_joint_moving_only_massless_links_is_refused() -> None:
    """PyBullet gives the joint's subtree no inertia: the joint never moves (measured on PyBullet 3.2.7)."""
    text = robot(link("base"), link("arm", 0, BOX), link("tip", 0), joint("j", "base", "arm"),
                 joint("t", "arm", "tip", "fixed", ""))
    assert problems_of(text) == [
        "line 5: joint 'j' (revolute) moves only massless links ('arm', 'tip'): PyBullet gives them no inertia, so "
        "the joint never moves; give link 'arm' a mass > 0, or make the joint fixed"]


def test_link_without_inertial_counts_as_massive() -> None:
    """PyBullet gives a link without <inertial> 1 kg, so it moves (the checker refuses it only with collision)."""
    text = robot(link("base", 0), '<link name="arm"/>', joint("j", "base", "arm"))
    assert check_urdf(text).root_link == "base"


# -- joints, geometry -------------------------------------------------------------------------------------


def test_axis_on_a_fixed_joint_is_ignored() -> None:
    """urdfdom does not read it; the model keeps a well-formed one as written, else the default (1, 0, 0)."""
    for xyz, axis in (("0 0 0", (0.0, 0.0, 0.0)), ("1 2", (1.0, 0.0, 0.0)), ("nan 0 1", (1.0, 0.0, 0.0)),
                      ("0 0 1", (0.0, 0.0, 1.0))):
        model = check_urdf(robot(link("a"), link("b"), joint("j", "a", "b", "fixed", f'<axis xyz="{xyz}"/>')))
        assert model.joints[0].axis == axis


def test_a_floating_joint_is_noted_because_pybullet_makes_it_fixed() -> None:
    """PyBullet 3.2.7 prints "joint unsupported, creating a fixed joint instead"; a scene refuses the robot."""
    model = check_urdf(robot(link("a"), link("b"), joint("j", "a", "b", "floating", '<axis xyz="0 0 0"/>')))
    assert model.notes == ("joint 'j' is floating: PyBullet would load it as fixed, so a scene refuses it "
                           "(SceneError); load the child as a robot of its own, or write type=\"fixed\"",)


def test_axis_on_a_moving_joint_is_still_checked() -> None:
    problems = problems_of(robot(link("a"), link("b"), joint("j", "a", "b", "revolute", LIMIT + '<axis xyz="0 0 0"/>')))
    assert problems == ["line 4: joint 'j': <axis xyz=\"0 0 0\"> has zero length; expected a direction such as "
                        "\"0 0 1\""]


def test_spherical_joint_is_pybullets_extension_and_accepted() -> None:
    model = check_urdf(robot(link("a"), link("b"), joint("ball", "a", "b", "spherical", "")))
    assert [j.type for j in model.movable_joints] == ["spherical"]


def test_geometry_takes_its_first_element_and_ignores_a_stray_material() -> None:
    extra = '<visual><geometry><box size="1 1 1"/><material name="grey"/></geometry></visual>'
    assert check_urdf(robot(link("a", 1, extra))).links == ("a",)


@pytest.mark.parametrize("geometry, fragment", [
    ('<box size="1 1 1"/><sphere radius="1"/>', "<geometry> must hold exactly one shape"),
    ('<material name="grey"/><box size="1 1 1"/>', "<geometry> must start with one shape (box, cylinder, sphere, "
                                                   "capsule, mesh), found <material>"),
    ("", "found nothing"),
])
def test_geometry_shape_problems(geometry: str, fragment: str) -> None:
    problems = problems_of(robot(link("a", 1, f"<visual><geometry>{geometry}</geometry></visual>")))
    assert len(problems) == 1 and fragment in problems[0], problems


def test_zero_size_visual_is_accepted_but_zero_size_collision_is_refused() -> None:
    assert check_urdf(robot(link("a", 1, '<visual><geometry><sphere radius="0"/></geometry></visual>')))
    problems = problems_of(robot(link("a", 1, '<collision><geometry><sphere radius="0"/></geometry></collision>')))
    assert problems == ["line 2: link 'a' <collision>: <sphere> radius='0' must be > 0 (a collision shape needs a "
                        "size)"]
    problems = problems_of(robot(link("a", 1, '<visual><geometry><sphere radius="-1"/></geometry></visual>')))
    assert problems == ["line 2: link 'a' <visual>: <sphere> radius='-1' must be >= 0"]


# -- xacro leftovers, trailing NULs -------------------------------------------------------------------------


def test_optenv_reads_the_default_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIMULO_TEST_XYZ", raising=False)
    origin = '<origin xyz="$(optenv SIMULO_TEST_XYZ 0.19 0 0.149)" rpy="0 0 0"/>'
    text = robot(link("a"), link("b"), joint("j", "a", "b", "fixed", origin))
    model = check_urdf(text)
    assert model.joints[0].origin_xyz == (0.19, 0.0, 0.149)
    assert [(attr, value) for _, attr, value in model.substitutions] == [("xyz", "0.19 0 0.149")]
    monkeypatch.setenv("SIMULO_TEST_XYZ", "1 2 3")
    assert check_urdf(text).joints[0].origin_xyz == (1.0, 2.0, 3.0)


@pytest.mark.parametrize("value, fragment", [
    ("$(env SIMULO_SURELY_UNSET)", "environment variable SIMULO_SURELY_UNSET is not set"),
    ("${radius * 2}", "only $(optenv NAME DEFAULT) and $(env NAME) are expanded here: run xacro on the file first"),
    ("$(find arm)/x", "run xacro on the file first"),
])
def test_other_xacro_expressions_are_refused(value: str, fragment: str) -> None:
    problems = problems_of(robot(link("a"), link("b"), joint("j", "a", "b", "fixed", f'<origin xyz="{value}"/>')))
    assert any(p.startswith("line 4: <origin> xyz: unexpanded xacro") and fragment in p for p in problems), problems


def test_trailing_nul_is_ignored_but_an_inner_one_is_not_xml() -> None:
    assert check_urdf(robot(link("a")) + "\r\n\0\0").links == ("a",)
    assert problems_of(robot(link("a")).replace("\n", "\0\n", 1))[0].startswith("line 1, column 17: not XML")


# -- the attribute rewriter ----------------------------------------------------------------------------------


def test_edit_attributes_changes_only_the_named_values() -> None:
    text = ('<robot name="é">\n  <!-- <mesh filename="c.stl"/> -->\n  <link name="a"><visual><geometry>'
            "<mesh scale='1 1 1' filename='a.stl' /></geometry></visual></link>\n"
            '  <origin xyz="1 2 3" rpy="0 0 0"/>\n</robot>\n')
    root, _ = parse(text)
    assert root is not None
    mesh = next(n for n in root.iter() if n.tag == "mesh")
    origin = next(n for n in root.iter() if n.tag == "origin")
    out = edit_attributes(text, {(mesh.offset, "filename"): '/tmp/a "b" & c.stl', (origin.offset, "rpy"): "1 1 1",
                                 (origin.offset, "xyz"): "0 0 0"})
    assert out == text.replace("filename='a.stl'", "filename='/tmp/a \"b\" &amp; c.stl'").replace(
        'xyz="1 2 3" rpy="0 0 0"', 'xyz="0 0 0" rpy="1 1 1"')
    with pytest.raises(ValueError, match="no attribute 'size'"):
        edit_attributes(text, {(mesh.offset, "size"): "1"})


def test_mass_rules_terminate_on_a_joint_loop() -> None:
    """Joints that form a loop (reported) must not send the mass rules round it forever."""
    text = robot(link("base"), link("a", 0), link("b", 0), joint("j", "base", "a", "fixed", ""),
                 joint("k", "a", "b", "continuous", ""), joint("l", "b", "a", "continuous", ""))
    problems = problems_of(text)
    assert any("link 'a' is the child of two joints" in p for p in problems), problems
    assert any("joint 'k' (continuous) moves only massless links ('b', 'a')" in p for p in problems), problems
