"""Per-copy properties on each engine, measured through the physics: mass, friction, restitution, gains, gravity.

Where MuJoCo's outcome differs, tests/engine_differences.py says so."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError

SUBSET = [5, 1, 3]
OTHERS = [0, 2, 4]

pytestmark = pytest.mark.usefixtures("engine")  # tests/sim/conftest.py


def box_on_ground(num_envs: int = 6, **sim_kw: object) -> tuple[simulo.Prop, simulo.Simulation]:
    scene = simulo.Scene(num_envs=num_envs)
    scene.add(simulo.Terrain.plane(name="ground", friction=1.0), at="/World", per_environment=False)
    box = simulo.Prop(simulo.Cuboid(name="box", size=(0.1,) * 3, pose=simulo.Pose.from_xyz(0, 0, 0.05),
                                    physics=simulo.RigidPhysics(mass=1.0)))
    scene.add(box, at="/World")
    return box, simulo.Simulation(scene, **sim_kw)  # type: ignore[arg-type]


def test_friction_decides_whether_a_pushed_box_slips() -> None:
    box, sim = box_on_ground()
    with sim:
        sim.step(24)
        box.set_friction(np.full((3, 1), 0.1), env_ids=SUBSET)  # mu m g = 0.98 N (PyBullet: mu_box * mu_ground)
        box.set_friction(np.full((3, 1), 0.8), env_ids=OTHERS)  # 7.8 N
        push = np.zeros((6, 1, 3))
        push[:, 0, 0] = 3.0
        start = np.asarray(box.state.pose)[:, 0].copy()
        box.apply_external_force(push, np.zeros((6, 1, 3)))
        sim.step(120)
        moved = np.asarray(box.state.pose)[:, 0] - start
        # slipping boxes accelerate by (F - mu m g) / m = 2.02 m/s²: about 0.25 m in 0.5 s
        np.testing.assert_allclose(moved[SUBSET], 0.5 * (3.0 - 0.1 * 9.81) * 0.5 ** 2, rtol=0.1)
        np.testing.assert_allclose(moved[OTHERS], 0.0, atol=1e-3)


def test_a_heavier_box_accelerates_less_under_the_same_force() -> None:
    box, sim = box_on_ground(gravity=(0, 0, 0))
    with sim:
        box.set_mass(np.array([[4.0], [2.0], [0.5]]), env_ids=SUBSET)
        push = np.zeros((6, 1, 3))
        push[:, 0, 1] = 1.0
        box.apply_external_force(push, np.zeros((6, 1, 3)))
        sim.step(48)
        vy = np.asarray(box.state.linear_velocity)[:, 1]
        np.testing.assert_allclose(vy, np.array([1.0, 0.5, 1.0, 2.0, 1.0, 0.25]) * 0.2, rtol=2e-2)


def test_restitution_makes_a_dropped_ball_bounce() -> None:
    scene = simulo.Scene(num_envs=2)
    scene.add(simulo.Terrain.plane(name="ground", restitution=1.0), at="/World", per_environment=False)
    ball = simulo.Prop(simulo.Sphere(name="ball", radius=0.05, pose=simulo.Pose.from_xyz(0, 0, 0.5),
                                     physics=simulo.RigidPhysics(mass=0.1)))
    scene.add(ball, at="/World")
    with simulo.Simulation(scene) as sim:
        ball.set_restitution(np.array([[0.9]]), env_ids=[1])
        peak = np.zeros(2)
        sim.step(80)  # about the moment of impact
        for _ in range(60):
            sim.step(2)
            peak = np.maximum(peak, np.asarray(ball.state.pose)[:, 2])
        assert peak[0] < 0.06  # restitution 0: it stays down
        assert peak[1] > 0.3  # 0.9: it comes back most of the way


def test_a_heavier_robot_accelerates_less_and_has_a_heavier_mass_matrix(cartpole) -> None:
    scene = simulo.Scene(num_envs=6)
    robot = simulo.Robot(cartpole)
    scene.add(robot, at="/World/Cartpole")
    with simulo.Simulation(scene) as sim:
        robot.set_joint_state(np.tile([0.0, 0.5], (6, 1)))
        before_g = np.asarray(robot.get_gravity_compensation())
        before_m = np.asarray(robot.get_mass_matrix())
        robot.set_mass(robot.data.batch.link_masses()[SUBSET] * 3.0, env_ids=SUBSET)
        after_g = np.asarray(robot.get_gravity_compensation())
        after_m = np.asarray(robot.get_mass_matrix())  # summed from the links: PyBullet's own one is stale
        np.testing.assert_allclose(after_m[SUBSET], before_m[SUBSET] * 3.0, rtol=1e-9)
        np.testing.assert_allclose(after_m[OTHERS], before_m[OTHERS], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(after_g[SUBSET, 1], before_g[SUBSET, 1] * 3.0, rtol=1e-9)
        np.testing.assert_array_equal(after_g[OTHERS], before_g[OTHERS])
        robot.set_joint_state(np.zeros((6, 2)))  # pole upright: gravity does not move the cart at first
        robot.set_joint_effort_target(np.full((6, 1), 10.0), joint_ids=[0])
        sim.step(12)
        v = np.asarray(robot.state.joint_velocities)[:, 0]
        np.testing.assert_allclose(v[SUBSET], v[OTHERS].mean() / 3.0, rtol=2e-2)


def test_joint_gains_stiffen_the_pd_drive_of_a_subset(cartpole) -> None:
    scene = simulo.Scene(num_envs=6)
    robot = simulo.Robot(cartpole, actuator_gains={"all_joints": simulo.ActuatorGainsConfig(stiffness=20.0,
                                                                                          damping=2.0)})
    scene.add(robot, at="/World/Cartpole")
    with simulo.Simulation(scene) as sim:
        robot.set_joint_gains(np.tile([400.0, 20.0], (3, 1)), np.tile([40.0, 2.0], (3, 1)), env_ids=SUBSET)
        robot.set_joint_position_target(np.full((6, 1), 0.5), joint_ids=[0])
        sim.step(120)
        error = np.abs(np.asarray(robot.state.joint_positions)[:, 0] - 0.5)
        assert error[SUBSET].max() < error[OTHERS].min() / 3


def test_gravity_per_environment_with_one_environment_per_world() -> None:
    scene = simulo.Scene(num_envs=4)
    ball = simulo.Prop(simulo.Sphere(name="ball", radius=0.05, pose=simulo.Pose.from_xyz(0, 0, 5.0),
                                     physics=simulo.RigidPhysics(mass=0.1)))
    scene.add(ball, at="/World")
    with simulo.Simulation(scene, envs_per_world=1) as sim:
        scene.set_gravity(np.array([[0.0, 0.0, -1.62], [0.0, 0.0, 0.0]]), env_ids=[3, 1])
        sim.step(120)
        vz = np.asarray(ball.state.linear_velocity)[:, 2]
        np.testing.assert_allclose(vz, np.array([-9.81, 0.0, -9.81, -1.62]) * 0.5, rtol=5e-2)  # PyBullet damps
        assert vz[1] == 0.0


def test_gravity_refused_when_it_would_split_a_world() -> None:
    box, sim = box_on_ground(num_envs=4, envs_per_world=2)
    with sim:
        with pytest.raises(SimuloValueError, match=r"one gravity per world, and environments 0\.\.1 share world 0"):
            sim.scene.set_gravity(np.array([[0.0, 0.0, -1.0]]), env_ids=[0])
        np.testing.assert_array_equal(sim.gravity, np.tile([0.0, 0.0, -9.81], (4, 1)))  # nothing half-applied
        sim.scene.set_gravity(np.tile([0.0, 0.0, -1.0], (2, 1)), env_ids=[1, 0])  # a whole world at once
        np.testing.assert_array_equal(sim.gravity, [[0, 0, -1.0], [0, 0, -1.0], [0, 0, -9.81], [0, 0, -9.81]])


def test_what_pybullet_cannot_change_is_refused(cartpole) -> None:
    box, sim = box_on_ground()
    scene = simulo.Scene()
    robot = simulo.Robot(cartpole)
    scene.add(robot, at="/World/Cartpole")
    with sim, simulo.Simulation(scene):
        with pytest.raises(SimuloValueError, match="cannot move a built body's centre of mass"):
            box.set_center_of_mass(np.zeros((1, 1, 3)), env_ids=[2])
        with pytest.raises(SimuloValueError, match="cannot move a loaded link's centre of mass"):
            robot.set_center_of_mass(np.zeros((1, 3, 3)))
        with pytest.raises(SimuloValueError, match="has no joint armature"):
            robot.set_joint_armature(np.zeros((1, 2)))


def test_the_summed_mass_matrix_equals_pybullets_own(arm) -> None:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(arm)
    scene.add(robot, at="/World/Arm")
    with simulo.Simulation(scene):
        robot.set_joint_state(np.random.default_rng(1).uniform(-0.5, 0.5, (2, robot.num_joints)))
        own = np.asarray(robot.get_mass_matrix())
        robot.set_mass(robot.data.batch.link_masses())  # the same masses: from now on the matrix is summed
        np.testing.assert_allclose(robot.get_mass_matrix(), own, rtol=1e-7, atol=1e-12)


def test_a_contact_sensor_sees_the_active_variant(arm) -> None:
    from simulo.sim.variants import ObjectVariants

    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(arm)
    scene.add(robot, at="/World/Arm")
    options = [simulo.Sphere(name="ball", radius=0.03), simulo.Cuboid(name="box", size=(0.05,) * 3)]
    scene.add(simulo.Sphere(name="thing", physics=simulo.RigidPhysics(mass=0.05)), at="/World",
              variants=ObjectVariants(options, mode="pool"))
    thing = scene.get_items()[-1]["item"]
    touch = simulo.ContactSensor(other=thing, name="touch")
    robot.add_sensor(touch, attach_to=".*")
    with simulo.Simulation(scene) as sim:
        thing.set_variant([1], env_ids=[1])
        above = np.asarray(thing.state.pose).copy()
        above[:, :3] = np.asarray(robot.get_body_pose("base_link"))[:, :3] + [0.0, 0.0, 0.3]
        thing.set_pose(above)  # dropped onto the arm's base
        most = np.zeros(2, dtype=np.int64)
        for _ in range(60):
            sim.step(2)
            most = np.maximum(most, np.asarray(touch.read()))
        assert most[0] >= 1 and most[1] > most[0]  # a ball touches at a point, a box's face at its corners


def test_scale_rebuilds_the_selected_boxes_at_their_new_size() -> None:
    box, sim = box_on_ground()
    with sim:
        sim.step(120)
        box.set_friction(np.full((6, 1), 0.3))
        box.set_scale(np.tile([1.0, 1.0, 3.0], (3, 1, 1)), env_ids=SUBSET)  # 0.3 m tall
        box.set_pose(np.asarray(box.default_pose)[SUBSET] + [0, 0, 0.2, 0, 0, 0, 0], env_ids=SUBSET)
        sim.step(240)
        z = np.asarray(box.state.pose)[:, 2]
        np.testing.assert_allclose(z[SUBSET], 0.15, atol=3e-3)
        np.testing.assert_allclose(z[OTHERS], 0.05, atol=3e-3)
        push = np.zeros((6, 1, 3))
        push[:, 0, 0] = 2.0  # mu m g = 0.3 * 1.0 * 9.81 = 2.9 N: the kept friction holds every box
        box.apply_external_force(push, np.zeros((6, 1, 3)))
        start = np.asarray(box.state.pose)[:, 0].copy()
        sim.step(60)
        np.testing.assert_allclose(np.asarray(box.state.pose)[:, 0], start, atol=2e-3)
        with pytest.raises(SimuloValueError, match="scales must be > 0.0"):
            box.set_scale(np.zeros((1, 1, 3)), env_ids=[0])


def test_a_sphere_scales_evenly_only() -> None:
    scene = simulo.Scene(num_envs=2)
    ball = simulo.Prop(simulo.Sphere(name="ball", radius=0.05, physics=simulo.RigidPhysics(mass=0.1)))
    scene.add(ball, at="/World")
    with simulo.Simulation(scene):
        with pytest.raises(SimuloValueError, match=r"a sphere keeps its shape when scaled: it needs all three "
                                                   r"factors equal, got \[1\.0, 1\.0, 2\.0\] at row 1"):
            ball.set_scale(np.array([[[2.0, 2.0, 2.0]], [[1.0, 1.0, 2.0]]]))
