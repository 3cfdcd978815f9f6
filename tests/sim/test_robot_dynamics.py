"""Dynamics queries and physics-shaping construction fields of ``simulo.Robot``; fixed and floating bases;
determinism and isolation of environments."""

from __future__ import annotations

import numpy as np
import pytest

import simulo

FREE = simulo.ArticulationConfig(fix_root_link=False)
TILTED = simulo.Pose.from_xyz_rpy((0.3, -0.2, 0.4), (0.5, 0.3, 0.7))


def quat_conj(q: np.ndarray) -> np.ndarray:
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def finite_difference_jacobian(robot: simulo.Robot, body: str, q: np.ndarray, eps: float = 1e-3) -> np.ndarray:
    """(num_envs, 6, num_joints) from central differences of the body's world pose over each joint."""
    n_envs, n_joints = q.shape
    out = np.zeros((n_envs, 6, n_joints))
    for j in range(n_joints):
        plus, minus = q.copy(), q.copy()
        plus[:, j] += eps
        minus[:, j] -= eps
        robot.set_joint_state(plus)
        p_plus = np.array(robot.get_body_pose(body))
        robot.set_joint_state(minus)
        p_minus = np.array(robot.get_body_pose(body))
        out[:, :3, j] = (p_plus[:, :3] - p_minus[:, :3]) / (2 * eps)
        for i in range(n_envs):
            # angular velocity: the rotation taking the minus orientation to the plus one, per unit angle
            dq = quat_mul(p_plus[i, 3:], quat_conj(p_minus[i, 3:]))
            dq = dq if dq[0] >= 0 else -dq
            out[i, 3:, j] = 2.0 * dq[1:] / (2 * eps)
    robot.set_joint_state(q)
    return out


def test_jacobians_match_finite_differences_fixed_base(arm, make, arm_q) -> None:
    robot, _ = make(arm, num_envs=2, initial_pose=TILTED)
    q = np.stack([arm_q, arm_q * [-1.2, 0.6, 1.3, -0.5, 2.0, 1.0, 0.5]])
    robot.set_joint_state(q)
    bodies = robot.find_bodies("forearm|finger_left|tcp")
    jac = np.asarray(robot.get_jacobians(bodies))
    assert jac.shape == (2, 3, 6, 7)
    for k, body in enumerate(["forearm", "finger_left", "tcp"]):
        fd = finite_difference_jacobian(robot, body, q)
        np.testing.assert_allclose(jac[:, k], fd, atol=2e-4, err_msg=body)
    # the root body does not move with the joints
    np.testing.assert_array_equal(np.asarray(robot.get_jacobians([0])), np.zeros((2, 1, 6, 7)))
    # all bodies by default
    assert np.asarray(robot.get_jacobians()).shape == (2, 9, 6, 7)


def test_jacobians_match_finite_differences_floating_base(arm, make, arm_q) -> None:
    robot, _ = make(arm, num_envs=1, initial_pose=TILTED, articulation=FREE, sim={"gravity": (0.0, 0.0, 0.0)})
    assert robot.is_fixed_base is False
    q = arm_q[None]
    robot.set_joint_state(q)
    jac = np.asarray(robot.get_jacobians(robot.find_bodies("tcp")))
    assert jac.shape == (1, 1, 6, 7)  # joint columns only, the base's own six are not included
    np.testing.assert_allclose(jac[:, 0], finite_difference_jacobian(robot, "tcp", q), atol=2e-4)


def test_jacobian_maps_joint_velocities_to_body_velocity(arm, make, arm_q) -> None:
    robot, _ = make(arm, num_envs=1, initial_pose=TILTED)
    qd = np.array([[0.4, -0.3, 0.5, 0.2, -0.6, 0.01, -0.02]])
    robot.set_joint_state(arm_q[None], velocities=qd)
    tcp = robot.find_bodies("tcp")[0]
    twist = np.asarray(robot.get_jacobians([tcp]))[0, 0] @ qd[0]
    np.testing.assert_allclose(np.asarray(robot.get_body_velocity("tcp"))[0], twist, atol=1e-5)


def test_mass_matrix_is_symmetric_positive_definite_and_scales_with_mass(arm, make, arm_q) -> None:
    robot, _ = make(arm, num_envs=2)
    heavy, _ = make(arm, num_envs=2, mass_scale=2.5)
    q = np.stack([arm_q, -arm_q * [1, 1, 1, 1, 1, -1, -1]])
    robot.set_joint_state(q)
    heavy.set_joint_state(q)
    m = np.asarray(robot.get_mass_matrix())
    assert m.shape == (2, 7, 7)
    np.testing.assert_allclose(m, np.swapaxes(m, 1, 2), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(m) > 0)
    assert not np.allclose(m[0], m[1])  # it depends on the configuration
    np.testing.assert_allclose(np.asarray(heavy.get_mass_matrix()), 2.5 * m, rtol=1e-9, atol=1e-15)
    ids = [4, 1, 2]
    np.testing.assert_allclose(np.asarray(robot.get_mass_matrix(ids)), m[:, ids][:, :, ids])
    # gravity torques scale with mass too
    np.testing.assert_allclose(np.asarray(heavy.get_gravity_compensation()),
                               2.5 * np.asarray(robot.get_gravity_compensation()), rtol=1e-9, atol=1e-12)


def test_mass_matrix_of_a_floating_base_is_the_joint_block(floater, make) -> None:
    robot, _ = make(floater, num_envs=1, articulation=FREE, sim={"gravity": (0.0, 0.0, 0.0)})
    m = np.asarray(robot.get_mass_matrix())
    # the arm (0.5 kg box 0.3 x 0.04 x 0.04 m, centre 0.15 m from the hinge) about the hinge: I + m r².
    # the link's inertia is the URDF's (izz 0.004), not PyBullet's recomputation from the collision box
    izz = 0.004
    np.testing.assert_allclose(m, [[[izz + 0.5 * 0.15**2]]], rtol=1e-6)


@pytest.mark.parametrize("pose", [simulo.Pose.identity(), TILTED], ids=["upright", "tilted"])
def test_gravity_compensation_holds_the_arm_still(pose, arm, make, arm_q) -> None:
    robot, sim = make(arm, num_envs=2, initial_pose=pose)
    q = np.stack([arm_q, arm_q * [0.5, -0.8, 1.2, 1.0, 1.0, 1.0, 1.0]])
    robot.set_joint_state(q)
    g = np.asarray(robot.get_gravity_compensation())
    assert g.shape == (2, 7) and np.abs(g[:, 1]).max() > 0.5  # the shoulder carries most of the arm
    np.testing.assert_allclose(np.asarray(robot.get_gravity_compensation([1, 2])), g[:, [1, 2]])
    for _ in range(240):  # 1 s
        robot.set_joint_effort_target(robot.get_gravity_compensation())
        sim.step()
    np.testing.assert_allclose(robot.state.joint_positions, q, atol=1e-6)
    # without it the same arm sags
    robot.set_joint_effort_target(np.zeros((2, 7)))
    sim.step(60)
    assert np.abs(np.asarray(robot.state.joint_positions) - q).max() > 0.05


def test_gravity_compensation_of_a_floating_base_equals_the_held_base(arm, make, arm_q) -> None:
    fixed, _ = make(arm, num_envs=1, initial_pose=TILTED)
    free, _ = make(arm, num_envs=1, initial_pose=TILTED, articulation=FREE)
    for r in (fixed, free):
        r.set_joint_state(arm_q[None])
    np.testing.assert_allclose(np.asarray(free.get_gravity_compensation()),
                               np.asarray(fixed.get_gravity_compensation()), rtol=1e-9, atol=1e-12)


def test_disable_gravity_keeps_an_uncommanded_robot_in_place(arm, floater, make, arm_q) -> None:
    art = simulo.ArticulationConfig(default_joint_positions=tuple(arm_q))
    weightless, sim = make(arm, num_envs=1, articulation=art, disable_gravity=True)
    sim.step(240)
    np.testing.assert_allclose(weightless.state.joint_positions, arm_q[None], atol=1e-6)
    heavy, sim = make(arm, num_envs=1, articulation=art)
    sim.step(240)
    assert np.abs(np.asarray(heavy.state.joint_positions) - arm_q).max() > 0.1
    # a floating base stays in the air
    floating, sim = make(floater, num_envs=1, articulation=FREE, disable_gravity=True,
                         initial_pose=simulo.Pose.from_xyz(0, 0, 1.0))
    sim.step(240)
    np.testing.assert_allclose(np.asarray(floating.state.pose)[0, :3], [0, 0, 1.0], atol=1e-6)


def test_fixed_and_floating_bases(floater, make) -> None:
    spawn = simulo.Pose.from_xyz(0, 0, 0.5)
    fixed, sim_fixed = make(floater, num_envs=2, plane=True, initial_pose=spawn,
                            articulation=simulo.ArticulationConfig(fix_root_link=True))
    free, sim_free = make(floater, num_envs=2, plane=True, initial_pose=spawn, articulation=FREE)
    sim_fixed.step(240)
    sim_free.step(240)
    np.testing.assert_allclose(np.asarray(fixed.state.pose)[:, 2], [0.5, 0.5], atol=1e-9)
    np.testing.assert_array_equal(fixed.get_root_velocity(), np.zeros((2, 6)))
    # the free one fell and rests on its 0.1 m tall box (base frame at the box centre)
    np.testing.assert_allclose(np.asarray(free.state.pose)[:, 2], [0.05, 0.05], atol=2e-3)
    assert np.abs(np.asarray(free.get_root_velocity())).max() < 0.05


@pytest.mark.parametrize("enabled", [True, False])
def test_collision_enabled(enabled, floater, make) -> None:
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.1, 0.1, 0.1), pose=simulo.Pose.from_xyz(0, 0, 1.0),
                                     physics=simulo.RigidPhysics(mass=0.2)))
    bolted = simulo.ArticulationConfig(fix_root_link=True)
    # a bolted floater 0.5 m up with a cube dropped onto it from 1 m
    robot, sim = make(floater, num_envs=1, plane=True, initial_pose=simulo.Pose.from_xyz(0, 0, 0.5),
                      articulation=bolted, collision_enabled=enabled, extra=lambda sc: sc.add(cube, at="/World/Cube"))
    sim.step(240)
    cube_z = np.asarray(cube.state.pose)[0, 2]
    if enabled:
        np.testing.assert_allclose(cube_z, 0.5 + 0.05 + 0.05, atol=3e-3)  # resting on the robot's box
    else:
        np.testing.assert_allclose(cube_z, 0.05, atol=3e-3)  # fell through the robot onto the ground
    # and a free robot without collisions falls through the ground
    free, sim = make(floater, num_envs=1, plane=True, initial_pose=simulo.Pose.from_xyz(0, 0, 0.3),
                     articulation=FREE, collision_enabled=enabled)
    sim.step(240)
    z = np.asarray(free.state.pose)[0, 2]
    assert (abs(z - 0.05) < 3e-3) if enabled else (z < -1.0)


def test_visual_only_has_no_physics(floater, make) -> None:
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.1, 0.1, 0.1), pose=simulo.Pose.from_xyz(0, 0, 1.0),
                                     physics=simulo.RigidPhysics(mass=0.2)))
    robot, sim = make(floater, num_envs=1, plane=True, initial_pose=simulo.Pose.from_xyz(0, 0, 0.5),
                      articulation=FREE, visual_only=True, extra=lambda sc: sc.add(cube, at="/World/Cube"))
    assert robot.visual_only is True
    assert robot.is_fixed_base is True  # not simulated: it does not fall
    sim.step(240)
    np.testing.assert_allclose(np.asarray(robot.state.pose)[0, :3], [0, 0, 0.5], atol=1e-9)
    np.testing.assert_allclose(np.asarray(cube.state.pose)[0, 2], 0.05, atol=3e-3)  # passed through it


def test_uniform_scale_scales_the_model(arm, make) -> None:
    plain, _ = make(arm)
    double, _ = make(arm, scale=2.0)
    triple, _ = make(arm, scale=(3.0, 3.0, 3.0))
    assert double.scale == (2.0, 2.0, 2.0)
    z = np.asarray(plain.get_body_pose("tcp"))[0, 2]
    np.testing.assert_allclose(np.asarray(double.get_body_pose("tcp"))[0, 2], 2 * z, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(triple.get_body_pose("tcp"))[0, 2], 3 * z, rtol=1e-6)
    with pytest.raises(simulo.SimuloValueError, match=r"\(1\.0, 2\.0, 1\.0\) is not uniform"):
        simulo.Robot(arm, scale=(1.0, 2.0, 1.0))


def _run_for_determinism(floater: simulo.Asset, cartpole: simulo.Asset) -> bytes:
    scene = simulo.Scene(num_envs=3, env_spacing=1.5)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    free = simulo.Robot(floater, simulo.Pose.from_xyz_rpy((0, 0, 0.4), (0.3, 0.2, 0.1)), articulation=FREE)
    cp = simulo.Robot(cartpole, simulo.Pose.from_xyz(0, 0.6, 1.0))
    scene.add(free, at="/World/Floater")
    scene.add(cp, at="/World/Cartpole")
    rng = np.random.default_rng(7)
    out = []
    with simulo.Simulation(scene, envs_per_world=2) as sim:
        for _ in range(120):
            free.set_joint_effort_target(rng.uniform(-1, 1, (3, 1)))
            cp.set_joint_effort_target(rng.uniform(-20, 20, (3, 1)), joint_ids=[0])
            sim.step()
        for r in (free, cp):
            out += [np.asarray(getattr(r.state, m)).tobytes() for m in
                    ("pose", "linear_velocity", "angular_velocity", "joint_positions", "joint_velocities")]
    return b"".join(out)


def test_same_commands_give_the_same_bytes(floater, cartpole) -> None:
    first = _run_for_determinism(floater, cartpole)
    assert first == _run_for_determinism(floater, cartpole)


def test_envs_sharing_a_world_do_not_interact(floater, make) -> None:
    # env_spacing 0: four copies in the very same place, all in one world (envs_per_world=16)
    def drop(num_envs: int, first_effort: float) -> np.ndarray:
        robot, sim = make(floater, num_envs=num_envs, plane=True, initial_pose=simulo.Pose.from_xyz(0, 0, 0.3),
                          articulation=FREE, scene={"env_spacing": 0.0}, sim={"envs_per_world": 16})
        assert sim.worlds == 1
        efforts = np.full((num_envs, 1), 0.3)
        efforts[0] = first_effort
        for _ in range(240):
            robot.set_joint_effort_target(efforts)
            sim.step()
        return np.array(robot.state.pose)

    together = drop(4, 0.3)
    alone = drop(1, 0.3)
    # identical commands give identical results in every env, the same as a robot alone
    np.testing.assert_allclose(together, np.tile(alone, (4, 1)), atol=1e-9)
    np.testing.assert_allclose(together[:, 2], 0.05, atol=2e-3)  # each on the ground, none stacked
    # a different command in env 0 changes nothing in the others
    disturbed = drop(4, -1.0)
    assert not np.allclose(disturbed[0], together[0])
    np.testing.assert_allclose(disturbed[1:], together[1:], atol=1e-9)
