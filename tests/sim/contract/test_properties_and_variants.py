"""Per-copy properties, external forces, gravity and object variants, on every engine, for env_ids subsets."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError
from simulo.sim.variants import ObjectVariants

from .conftest import not_on_warp

SUBSET = [5, 1, 3]
DT = 1 / 240


def floating_cube(engine: str, num_envs: int = 6, **sim_kw: object) -> tuple[simulo.Prop, simulo.Simulation]:
    scene = simulo.Scene(num_envs=num_envs)
    scene.add(simulo.Cuboid(name="cube", size=(0.1,) * 3, pose=simulo.Pose.from_xyz(0, 0, 1),
                            physics=simulo.RigidPhysics(mass=0.5)), at="/World")
    sim = simulo.Simulation(scene, dt=DT, gravity=(0, 0, 0), engine=engine, **sim_kw)  # type: ignore[arg-type]
    return scene.get_items()[0]["item"], sim


def test_external_force_accelerates_a_prop_by_f_over_m_for_a_subset(engine) -> None:
    prop, sim = floating_cube(engine)
    with sim:
        prop.set_mass(np.array([[2.0], [1.0], [0.25]]), env_ids=SUBSET)
        np.testing.assert_allclose(prop.data.batch.masses(), [0.5, 1.0, 0.5, 0.25, 0.5, 2.0])
        forces = np.zeros((3, 1, 3))
        forces[:, 0, 0] = [1.0, 2.0, 3.0]
        prop.apply_external_force(forces, np.zeros((3, 1, 3)), env_ids=SUBSET)
        sim.step(60)  # the force is kept at every step: 0.25 s
        vx = np.asarray(prop.state.linear_velocity)[:, 0]
        expected = np.array([0, 2.0 / 1.0, 0, 3.0 / 0.25, 0, 1.0 / 2.0]) * 60 * DT
        np.testing.assert_allclose(vx, expected, rtol=2e-2)  # PyBullet damps velocities by 0.04/s
        np.testing.assert_array_equal(vx[[0, 2, 4]], 0.0)  # the other environments felt nothing
        prop.apply_external_force(np.zeros((6, 1, 3)), np.zeros((6, 1, 3)))  # zeros stop the push
        before = np.asarray(prop.state.linear_velocity)[:, 0].copy()
        sim.step(10)
        np.testing.assert_allclose(np.asarray(prop.state.linear_velocity)[:, 0], before, rtol=1e-2)


def test_reset_clears_the_kept_force_of_those_environments_only(engine) -> None:
    prop, sim = floating_cube(engine)
    with sim:
        forces = np.zeros((6, 1, 3))
        forces[:, 0, 1] = 1.0
        prop.apply_external_force(forces, np.zeros((6, 1, 3)))
        prop.reset(env_ids=[4, 2])
        sim.step(24)
        vy = np.asarray(prop.state.linear_velocity)[:, 1]
        np.testing.assert_array_equal(vy[[2, 4]], 0.0)
        np.testing.assert_allclose(vy[[0, 1, 3, 5]], 1.0 / 0.5 * 24 * DT, rtol=2e-2)


def test_scene_gravity_per_environment_reads_back(engine) -> None:
    _, sim = floating_cube(engine, envs_per_world=1)
    with sim:
        gravity = np.array([[0.0, 0.0, -1.62], [0.0, 0.0, -3.71], [0.5, 0.0, -9.81]])
        sim.scene.set_gravity(gravity, env_ids=SUBSET)
        expected = np.zeros((6, 3))
        expected[SUBSET] = gravity
        np.testing.assert_array_equal(sim.gravity, expected)


def test_robot_properties_reach_every_selected_copy(engine, cartpole) -> None:
    scene = simulo.Scene(num_envs=6)
    robot = simulo.Robot(cartpole, actuator_gains={"all_joints": simulo.ActuatorGainsConfig(stiffness=10.0,
                                                                                          damping=1.0)})
    scene.add(robot, at="/World/Cartpole")
    with simulo.Simulation(scene, engine=engine):
        before = robot.data.batch.link_masses()
        masses = before[SUBSET] * 2.0
        robot.set_mass(masses, env_ids=SUBSET)
        after = robot.data.batch.link_masses()
        np.testing.assert_allclose(after[SUBSET], masses)
        np.testing.assert_array_equal(after[[0, 2, 4]], before[[0, 2, 4]])
        robot.set_friction(np.full((3, 3), 0.9), env_ids=SUBSET)
        robot.set_restitution(np.full((3, 3), 0.2), env_ids=SUBSET)
        robot.set_joint_gains(np.full((3, 2), 50.0), np.full((3, 2), 5.0), env_ids=SUBSET)
        pd = robot.data.drives[0]
        np.testing.assert_array_equal(pd.stiffness[:, 0], [10.0, 50.0, 10.0, 50.0, 10.0, 50.0])
        np.testing.assert_array_equal(pd.damping[:, 1], [1.0, 5.0, 1.0, 5.0, 1.0, 5.0])


def pool_scene(engine: str) -> tuple[simulo.Prop, simulo.Simulation]:
    scene = simulo.Scene(num_envs=6)
    scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
    options = [simulo.Cuboid(name="box", size=(0.1, 0.1, 0.1)), simulo.Sphere(name="ball", radius=0.05),
               simulo.Cylinder(name="can", radius=0.04, height=0.12)]
    scene.add(simulo.Cuboid(name="object", pose=simulo.Pose.from_xyz(0.3, 0.0, 0.2),
                            physics=simulo.RigidPhysics(mass=0.2)),
              at="/World", variants=ObjectVariants(options, mode="pool"))
    return scene.get_items()[-1]["item"], simulo.Simulation(scene, engine=engine)


def test_pool_variants_switch_the_active_object_of_a_subset(engine) -> None:
    prop, sim = pool_scene(engine)
    with sim:
        assert prop.path == "/World/object"
        np.testing.assert_array_equal(prop.variant_index, np.zeros(6))
        prop.set_variant(np.array([1, 2, 1]), env_ids=SUBSET)
        np.testing.assert_array_equal(prop.variant_index, [0, 2, 0, 1, 0, 1])
        np.testing.assert_allclose(prop.state.pose, prop.default_pose)  # the new objects appear at the spawn pose
        parked = prop.data.batch.batches[0]
        pose, lin, ang = np.empty((6, 7)), np.empty((6, 3)), np.empty((6, 3))
        parked.read(pose, lin, ang)
        default = np.asarray(prop.default_pose)
        np.testing.assert_allclose(pose[SUBSET, 2], default[SUBSET, 2] - 20.0)  # the old boxes are parked
        np.testing.assert_allclose(pose[[0, 2, 4]], default[[0, 2, 4]])
        assert (parked.masses()[SUBSET] == 0).all() and (parked.masses()[[0, 2, 4]] == 0.2).all()
        sim.step(60)
        np.testing.assert_allclose(np.asarray(parked.masses()), [0.2, 0, 0.2, 0, 0.2, 0])
        parked.read(pose, lin, ang)
        np.testing.assert_allclose(pose[SUBSET, 2], default[SUBSET, 2] - 20.0)  # parked options stay put
        with pytest.raises(SimuloValueError, match=r"variant index must hold option numbers 0\.\.2 of prop "
                                                   r"'object', got \[3\.0\]"):
            prop.set_variant([3], env_ids=[0])
        np.testing.assert_array_equal(prop.variant_index, [0, 2, 0, 1, 0, 1])


def test_group_variants_are_contiguous_and_fixed(engine) -> None:
    scene = simulo.Scene(num_envs=6)
    options = [simulo.Sphere(name="small", radius=0.03), simulo.Sphere(name="large", radius=0.06)]
    scene.add(simulo.Sphere(name="ball", physics=simulo.RigidPhysics(mass=0.1)), at="/World",
              variants=ObjectVariants(options))
    prop = scene.get_items()[0]["item"]
    with simulo.Simulation(scene, engine=engine):
        np.testing.assert_array_equal(prop.variant_index, [0, 0, 0, 1, 1, 1])
        with pytest.raises(SimuloValueError, match="has 'groups' variants, fixed when the simulation is built"):
            prop.set_variant([0], env_ids=[4])


def test_variants_refuse_bad_options_and_close_parking() -> None:
    with pytest.raises(SimuloValueError, match="ObjectVariants.options must hold 2 to 8 options, got 1"):
        ObjectVariants([simulo.Sphere(name="a")])
    scene = simulo.Scene()
    big = [simulo.Sphere(name="a", radius=0.5), simulo.Sphere(name="b", radius=0.1)]
    with pytest.raises(simulo.SceneError, match=r"parking_spacing 0\.5 m is less than the widest variant option "
                                                r"\(1\.000 m across\)"):
        scene.add(simulo.Sphere(name="s", physics=simulo.RigidPhysics()), at="/World",
                  variants=ObjectVariants(big, mode="pool", parking_spacing=0.5))
    not_shapes = ObjectVariants([simulo.Asset.from_registry("simulo/robot/cartpole:v1")] * 2)
    with pytest.raises(simulo.SceneError, match="are not primitive shapes"):
        scene.add(simulo.Sphere(name="s", physics=simulo.RigidPhysics()), at="/World", variants=not_shapes)
    assert scene.get_items() == []


def test_external_forces_on_every_body_of_a_floating_robot_accelerate_it(engine, floater) -> None:
    scene = simulo.Scene(num_envs=6, env_spacing=3.0)
    robot = simulo.Robot(floater, simulo.Pose.from_xyz(0, 0, 1.0),
                         articulation=simulo.ArticulationConfig(fix_root_link=False))
    scene.add(robot, at="/World/Floater")
    with simulo.Simulation(scene, dt=DT, gravity=(0, 0, 0), engine=engine) as sim:
        masses = robot.data.batch.link_masses()[SUBSET]
        bodies = len(robot.get_body_names())
        accel = np.array([1.0, 2.0, 3.0])
        forces = np.zeros((3, bodies, 3))
        forces[:, :, 2] = masses * accel[:, None]  # m_b * a on every body: the whole robot accelerates by a
        robot.apply_external_force(forces, np.zeros((3, bodies, 3)), env_ids=SUBSET)
        sim_steps = 48
        sim.step(sim_steps)  # the force is kept at every step
        vz = np.asarray(robot.state.linear_velocity)[:, 2]
        expected = np.zeros(6)
        expected[SUBSET] = accel * sim_steps * DT
        np.testing.assert_allclose(vz, expected, rtol=3e-2, atol=1e-9)
        robot.reset(env_ids=SUBSET)  # a reset clears the kept force
        sim.step(24)
        np.testing.assert_allclose(np.asarray(robot.state.linear_velocity)[SUBSET, 2], 0.0, atol=1e-9)


def test_rough_terrain_builds_on_every_engine(engine) -> None:
    not_on_warp(engine, "heightfield")
    from simulo.sim.terrain import heightfield

    terrain = simulo.Terrain.rough(name="terrain", num_rows=2, num_cols=2, size=(2.0, 2.0), border_width=0.5,
                                   seed=7)
    scene = simulo.Scene(num_envs=2)
    scene.add(terrain, at="/World", per_environment=False)
    assert scene.get_items()[0]["path"] == "/World/terrain"
    with simulo.Simulation(scene, engine=engine) as sim:
        assert sim.step_count == 0
        sim.step(1)
    heights, _ = heightfield(terrain)
    again, _ = heightfield(terrain)
    np.testing.assert_array_equal(heights, again)
