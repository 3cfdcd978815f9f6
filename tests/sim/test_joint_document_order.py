"""Joint columns and bodies follow the URDF's document order on PyBullet, also for a branching tree, where
PyBullet's own link order (depth-first over the tree) differs: every column- and body-indexed read, command
and dynamics query agrees with ``get_joint_names()`` and ``get_body_names()``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo


def _link(name: str, mass: float, length: float) -> str:
    return f"""
  <link name="{name}">
    <inertial><origin xyz="0 0 0"/><mass value="{mass}"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.003"/></inertial>
    <collision><geometry><box size="{length} 0.04 0.04"/></geometry></collision>
  </link>"""


def _joint(name: str, kind: str, parent: str, child: str, xyz: str, axis: str = "0 0 1") -> str:
    limit = '<limit lower="-3" upper="3" effort="50" velocity="10"/>' if kind != "fixed" else ""
    return f"""
  <joint name="{name}" type="{kind}">
    <parent link="{parent}"/><child link="{child}"/><origin xyz="{xyz}" rpy="0.3 0.2 0.1"/>
    <axis xyz="{axis}"/>{limit}
  </joint>"""


LINKS = {"base": _link("base", 2.0, 0.2), "l1": _link("l1", 0.7, 0.2), "r1": _link("r1", 0.5, 0.2),
         "l2": _link("l2", 0.3, 0.1), "tip": _link("tip", 0.2, 0.05)}
JOINTS = {
    "j_l1": _joint("j_l1", "revolute", "base", "l1", "0.2 0 0"),
    "j_r1": _joint("j_r1", "revolute", "base", "r1", "-0.2 0 0", axis="0 1 0"),
    "fix_tip": _joint("fix_tip", "fixed", "r1", "tip", "-0.15 0 0"),
    "j_l2": _joint("j_l2", "prismatic", "l1", "l2", "0.2 0 0", axis="1 0 0"),
}
#: document order: j_l2 (child of l1) comes after the right branch; PyBullet numbers l1, l2, r1, tip
DOC_JOINTS = ["j_l1", "j_r1", "j_l2"]
DOC_BODIES = ["base", "l1", "r1", "l2", "tip"]
#: the same tree written in PyBullet's depth-first order, where nothing is permuted
DFS_JOINTS = ["j_l1", "j_l2", "j_r1"]
DFS_BODIES = ["base", "l1", "l2", "r1", "tip"]


def urdf(links: list[str], joints: list[str]) -> str:
    body = "".join(LINKS[n] for n in links) + "".join(JOINTS[n] for n in joints)
    return f'<?xml version="1.0"?>\n<robot name="branches">{body}\n</robot>\n'


BRANCHED = urdf(DOC_BODIES, ["j_l1", "j_r1", "fix_tip", "j_l2"])
DEPTH_FIRST = urdf(DFS_BODIES, ["j_l1", "j_l2", "j_r1", "fix_tip"])
Q = np.array([[0.4, -0.7, 0.05], [-0.9, 0.3, -0.08]])  # document-order columns: j_l1, j_r1, j_l2


def build(make: Any, text: str, num_envs: int = 2) -> simulo.Robot:
    robot, _ = make(simulo.Asset.from_urdf_string(text, fixed_base=True), num_envs=num_envs,
                    initial_pose=simulo.Pose.from_xyz_rpy((0.1, 0.2, 0.5), (0.2, -0.1, 0.4)),
                    sim={"gravity": (0.0, 0.0, -9.81)})
    return robot


def cols(robot: simulo.Robot, names: list[str]) -> list[int]:
    return [robot.find_joints(n)[0] for n in names]


def test_joint_and_body_names_follow_the_document_order(make) -> None:
    robot = build(make, BRANCHED)
    assert robot.get_joint_names() == DOC_JOINTS
    assert robot.get_body_names() == DOC_BODIES
    assert robot.find_joints("j_.*") == [0, 1, 2]
    assert robot.find_bodies("l2|r1") == [2, 3]  # results in the robot's own order
    assert robot.find_bodies("tip") == [4]
    dfs = build(make, DEPTH_FIRST)
    assert dfs.get_joint_names() == DFS_JOINTS and dfs.get_body_names() == DFS_BODIES


def test_set_joint_state_round_trips_per_column(make) -> None:
    robot = build(make, BRANCHED)
    qd = np.array([[0.1, 0.2, 0.3], [-0.3, -0.2, -0.1]])
    robot.set_joint_state(Q, velocities=qd)
    q_now, qd_now = robot.get_joint_state()
    np.testing.assert_allclose(np.asarray(q_now), Q, atol=1e-12)
    np.testing.assert_allclose(np.asarray(qd_now), qd, atol=1e-12)
    # the teleport moved the joints named by the columns: l2 slides along l1 by j_l2, r1 alone turns with j_r1
    dfs = build(make, DEPTH_FIRST)
    dfs.set_joint_state(Q[:, [0, 2, 1]], velocities=qd[:, [0, 2, 1]])
    for body in DOC_BODIES:
        np.testing.assert_allclose(np.asarray(robot.get_body_pose(body)), np.asarray(dfs.get_body_pose(body)),
                                   atol=1e-9, err_msg=body)
        np.testing.assert_allclose(np.asarray(robot.get_body_velocity(body)),
                                   np.asarray(dfs.get_body_velocity(body)), atol=1e-9, err_msg=body)


@pytest.mark.parametrize("joint", DOC_JOINTS)
def test_a_position_target_moves_exactly_that_joint(make, joint: str) -> None:
    robot, sim = make(simulo.Asset.from_urdf_string(BRANCHED, fixed_base=True), num_envs=1,
                      sim={"gravity": (0.0, 0.0, 0.0)})
    col = robot.find_joints(joint)[0]
    target = 0.05 if joint == "j_l2" else 0.6
    robot.set_joint_position_target(np.zeros((1, 3)))  # hold every joint (l2 would slide out as l1 turns)
    robot.set_joint_position_target(np.array([[target]]), joint_ids=[col])
    sim.step(240)
    q = np.asarray(robot.get_joint_state()[0])[0]
    assert q[col] == pytest.approx(target, abs=0.02)
    others = [c for c in range(3) if c != col]
    np.testing.assert_allclose(q[others], 0.0, atol=0.02)


def test_an_external_force_on_a_named_body_moves_its_branch_only(make) -> None:
    robot, sim = make(simulo.Asset.from_urdf_string(BRANCHED, fixed_base=True), num_envs=1,
                      sim={"gravity": (0.0, 0.0, 0.0)})
    forces = np.zeros((1, 5, 3))
    forces[0, robot.find_bodies("tip")[0]] = [0.0, 0.0, 3.0]
    robot.apply_external_force(forces, np.zeros((1, 5, 3)))
    sim.step(30)
    q = np.asarray(robot.get_joint_state()[0])[0]
    c_l1, c_r1, c_l2 = cols(robot, ["j_l1", "j_r1", "j_l2"])
    assert abs(q[c_r1]) > 0.01
    assert abs(q[c_l1]) < 1e-6 and abs(q[c_l2]) < 1e-6


def finite_difference_jacobian(robot: simulo.Robot, body: str, q: np.ndarray, eps: float = 1e-3) -> np.ndarray:
    out = np.zeros((q.shape[0], 3, q.shape[1]))
    for j in range(q.shape[1]):
        plus, minus = q.copy(), q.copy()
        plus[:, j] += eps
        minus[:, j] -= eps
        robot.set_joint_state(plus)
        p_plus = np.array(robot.get_body_pose(body))[:, :3]
        robot.set_joint_state(minus)
        p_minus = np.array(robot.get_body_pose(body))[:, :3]
        out[:, :, j] = (p_plus - p_minus) / (2 * eps)
    robot.set_joint_state(q)
    return out


def test_jacobian_columns_match_finite_differences_and_the_tree(make) -> None:
    robot = build(make, BRANCHED)
    robot.set_joint_state(Q)
    jac = np.asarray(robot.get_jacobians())
    assert jac.shape == (2, 5, 6, 3)
    for k, body in enumerate(DOC_BODIES):
        np.testing.assert_allclose(jac[:, k, :3], finite_difference_jacobian(robot, body, Q), atol=2e-4,
                                   err_msg=body)
    c_l1, c_r1, c_l2 = cols(robot, ["j_l1", "j_r1", "j_l2"])
    b = {name: robot.find_bodies(name)[0] for name in DOC_BODIES}
    downstream = {c_l1: {"l1", "l2"}, c_r1: {"r1", "tip"}, c_l2: {"l2"}}
    for col, moved in downstream.items():
        for name in DOC_BODIES:
            column = jac[:, b[name], :, col]
            if name in moved:
                assert np.abs(column).max() > 1e-3, (name, col)
            else:
                np.testing.assert_array_equal(column, 0.0, err_msg=f"{name} column {col}")
    # a prismatic joint moves without turning
    np.testing.assert_array_equal(jac[:, b["l2"], 3:, c_l2], 0.0)
    # equal to the same tree written in PyBullet's order, columns and bodies permuted by name
    dfs = build(make, DEPTH_FIRST)
    perm = [DFS_JOINTS.index(n) for n in DOC_JOINTS]
    dfs.set_joint_state(Q[:, np.argsort(perm)])
    ref = np.asarray(dfs.get_jacobians([DFS_BODIES.index(n) for n in DOC_BODIES]))[..., perm]
    np.testing.assert_allclose(jac, ref, atol=1e-12)


@pytest.mark.parametrize("mass_changed", [False, True])
def test_mass_matrix_and_gravity_torques_follow_the_columns(make, mass_changed: bool) -> None:
    robot, dfs = build(make, BRANCHED), build(make, DEPTH_FIRST)
    perm = [DFS_JOINTS.index(n) for n in DOC_JOINTS]  # document column k is depth-first column perm[k]
    robot.set_joint_state(Q)
    dfs.set_joint_state(Q[:, np.argsort(perm)])
    c_l1, c_r1, c_l2 = cols(robot, ["j_l1", "j_r1", "j_l2"])
    if mass_changed:  # after a dynamics query the matrix is summed from the links
        robot.get_mass_matrix()
        dfs.get_mass_matrix()
        masses = robot.data.batch.link_masses()  # per body, in body order
        np.testing.assert_allclose(masses[:, 1:], np.tile([0.7, 0.5, 0.3, 0.2], (2, 1)))
        masses[:, robot.find_bodies("l2")[0]] = 4.0
        robot.set_mass(masses)
        dfs.set_mass(masses[:, [DOC_BODIES.index(n) for n in DFS_BODIES]])
    mass = np.asarray(robot.get_mass_matrix())
    assert mass.shape == (2, 3, 3)
    np.testing.assert_allclose(mass, np.swapaxes(mass, 1, 2), atol=1e-9)
    # the branches do not couple; the prismatic joint carries l2's mass alone
    np.testing.assert_allclose(mass[:, c_r1, [c_l1, c_l2]], 0.0, atol=1e-12)
    assert np.abs(mass[:, c_l1, c_l2]).min() > 1e-3
    np.testing.assert_allclose(mass[:, c_l2, c_l2], 4.0 if mass_changed else 0.3, rtol=1e-9)
    ref = np.asarray(dfs.get_mass_matrix())[:, perm][:, :, perm]
    np.testing.assert_allclose(mass, ref, atol=1e-9)
    grav = np.asarray(robot.get_gravity_compensation())
    np.testing.assert_allclose(grav, np.asarray(dfs.get_gravity_compensation())[:, perm], atol=1e-9)
    assert np.abs(grav[:, c_r1]).min() > 1e-3  # the tilted base: every joint feels gravity
    # one named joint's entries by joint_ids
    np.testing.assert_allclose(np.asarray(robot.get_mass_matrix([c_l2]))[:, 0, 0], mass[:, c_l2, c_l2])
