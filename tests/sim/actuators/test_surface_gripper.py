"""SurfaceGripperActuator on PyBullet and MuJoCo with the catalog gantry: it picks a cube, carries it and puts it
down where told, refuses what lies beyond max_grip_distance, breaks above its force limits, and reports Isaac
Lab's states (open -1, closing 0, closed 1) per environment."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo import GripperState

#: z_axis at which the cup's face (the SurfaceGripper frame, 0.86 m above the ground at z_axis 0) is 1 cm above
#: the top of a 5 cm cube lying on the ground.
ABOVE_CUBE = 0.06 - 0.86


def build(gantry: simulo.Asset, engine: str, num_envs: int = 1, **gripper: object
          ) -> tuple[simulo.Robot, simulo.SurfaceGripperActuator, simulo.Prop, simulo.Simulation]:
    """The gantry with its cup over a 5 cm, 0.2 kg cube at (0.3, 0.2) in every environment."""
    scene = simulo.Scene(num_envs=num_envs)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(gantry)
    grip = simulo.SurfaceGripperActuator(**gripper)  # type: ignore[arg-type]
    robot.add_actuator(grip, attach_to="picker_head/SurfaceGripper")  # the SDK's attach path
    scene.add(robot, at="/World/Robot")
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.05,) * 3, pose=simulo.Pose.from_xyz(0.3, 0.2, 0.025),
                                     physics=simulo.RigidPhysics(mass=0.2)))
    scene.add(cube, at="/World/Cube")
    return robot, grip, cube, simulo.Simulation(scene, engine=engine)


def move(robot: simulo.Robot, sim: simulo.Simulation, x: float, y: float, z: float, steps: int = 240) -> None:
    robot.set_joint_position_target(np.tile([x, y, z], (robot.data.num_envs, 1)))
    sim.step(steps)


def local_cube(cube: simulo.Prop, sim: simulo.Simulation) -> np.ndarray:
    """Cube centres relative to each environment's origin (num_envs, 3)."""
    return np.asarray(cube.state.pose)[:, :3] - np.asarray(sim.env_origins)


def test_the_gantry_picks_carries_and_places_a_cube_where_commanded(gantry, engine) -> None:
    robot, grip, cube, sim = build(gantry, engine, max_grip_distance=0.02)
    with sim:
        move(robot, sim, 0.3, 0.2, ABOVE_CUBE)
        grip.close()
        assert np.asarray(grip.state).tolist() == [GripperState.CLOSING]
        sim.step(1)
        assert np.asarray(grip.state).tolist() == [GripperState.CLOSED] and grip.held_objects() == ["cube"]
        move(robot, sim, 0.3, 0.2, -0.4)
        np.testing.assert_allclose(local_cube(cube, sim), [[0.3, 0.2, 0.425]], atol=2e-3)  # hanging 1 cm below
        coaxial, shear = np.asarray(grip.grip_forces())[0]
        assert coaxial == pytest.approx(0.2 * 9.81, rel=0.02) and shear < 0.05  # it carries the weight
        move(robot, sim, -0.2, -0.1, -0.4, 480)  # carried across
        np.testing.assert_allclose(local_cube(cube, sim), [[-0.2, -0.1, 0.425]], atol=2e-3)
        move(robot, sim, -0.2, -0.1, ABOVE_CUBE + 0.005, 360)
        grip.open()
        assert np.asarray(grip.state).tolist() == [GripperState.OPEN] and grip.held_objects() == [None]
        move(robot, sim, -0.2, -0.1, -0.4)  # the cup leaves, the cube stays where it was put down
        np.testing.assert_allclose(local_cube(cube, sim), [[-0.2, -0.1, 0.025]], atol=2e-3)
        assert np.asarray(grip.grip_forces()).tolist() == [[0.0, 0.0]]


def test_nothing_beyond_max_grip_distance_is_gripped_and_closing_gives_up(gantry, engine) -> None:
    robot, grip, cube, sim = build(gantry, engine, max_grip_distance=0.02, retry_interval=0.25)
    with sim:
        move(robot, sim, 0.3, 0.2, ABOVE_CUBE + 0.03)  # the face 4 cm above the cube
        grip.close()
        sim.step(30)  # 0.125 s: still looking
        assert np.asarray(grip.state).tolist() == [GripperState.CLOSING]
        sim.step(31)  # past 0.25 s: gave up
        assert np.asarray(grip.state).tolist() == [GripperState.OPEN] and grip.held_objects() == [None]
        move(robot, sim, 0.3, 0.2, -0.4)
        np.testing.assert_allclose(local_cube(cube, sim), [[0.3, 0.2, 0.025]], atol=1e-3)  # left on the ground


@pytest.mark.parametrize("push", [8.0, 12.0])
def test_a_grip_holds_a_side_push_below_the_shear_limit_and_breaks_above_it(gantry, engine, push) -> None:
    robot, grip, cube, sim = build(gantry, engine, max_grip_distance=0.02, shear_force_limit=10.0)
    with sim:
        move(robot, sim, 0.3, 0.2, ABOVE_CUBE)
        grip.close()
        sim.step(1)  # gripped where the cube lies
        move(robot, sim, 0.3, 0.2, -0.4)
        cube.apply_external_force(np.array([[[push, 0.0, 0.0]]]), np.zeros((1, 1, 3)))
        sim.step(2)
        cube.apply_external_force(np.zeros((1, 1, 3)), np.zeros((1, 1, 3)))
        sim.step(120)
        if push < 10.0:
            assert np.asarray(grip.state).tolist() == [GripperState.CLOSED]
            np.testing.assert_allclose(local_cube(cube, sim), [[0.3, 0.2, 0.425]], atol=1e-2)  # still hanging
        else:
            assert np.asarray(grip.state).tolist() == [GripperState.OPEN]
            assert local_cube(cube, sim)[0, 2] < 0.1  # fell


def test_a_pull_above_the_coaxial_limit_breaks_the_grip(gantry, engine) -> None:
    robot, grip, cube, sim = build(gantry, engine, max_grip_distance=0.02, coaxial_force_limit=60.0)
    with sim:
        move(robot, sim, 0.3, 0.2, ABOVE_CUBE)
        grip.close()
        sim.step(1)  # gripped where the cube lies
        move(robot, sim, 0.3, 0.2, -0.4)  # the lift's acceleration pulls about 44 N at its peak: held
        assert np.asarray(grip.state).tolist() == [GripperState.CLOSED]
        cube.apply_external_force(np.array([[[0.0, 0.0, -70.0]]]), np.zeros((1, 1, 3)))  # 72 N with the weight
        sim.step(3)
        assert np.asarray(grip.state).tolist() == [GripperState.OPEN]


def test_each_environment_grips_on_its_own(gantry) -> None:
    robot, grip, cube, sim = build(gantry, "pybullet", num_envs=3, max_grip_distance=0.02)
    with sim:
        move(robot, sim, 0.3, 0.2, ABOVE_CUBE)
        grip.set_grippers_command(np.array([1.0, 0.0, 0.6]))  # 0 does nothing; 0.6 closes
        sim.step(1)
        np.testing.assert_array_equal(grip.state, [GripperState.CLOSED, GripperState.OPEN, GripperState.CLOSED])
        move(robot, sim, 0.3, 0.2, -0.4)
        np.testing.assert_allclose(local_cube(cube, sim)[:, 2], [0.425, 0.025, 0.425], atol=2e-3)
        grip.set_command({"command": simulo.GripperCommand.OPEN, "env_ids": [2]})
        sim.step(120)
        np.testing.assert_allclose(local_cube(cube, sim)[:, 2], [0.425, 0.025, 0.025], atol=2e-3)
        grip.reset()
        np.testing.assert_array_equal(grip.get_state(), [GripperState.OPEN] * 3)
        assert grip.held_objects() == [None, None, None]


def test_the_nearest_prop_in_reach_is_the_one_gripped(gantry) -> None:
    scene = simulo.Scene()
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(gantry)
    grip = simulo.SurfaceGripperActuator(max_grip_distance=0.05)
    robot.add_actuator(grip, attach_to="SurfaceGripper")
    scene.add(robot, at="/World/Robot")
    for name, x, shape in (("far", 0.24, simulo.Cuboid), ("near", 0.3, simulo.Cylinder)):
        size = {"size": (0.05,) * 3} if shape is simulo.Cuboid else {"radius": 0.025, "height": 0.05}
        scene.add(simulo.Prop(shape(name=name, pose=simulo.Pose.from_xyz(x, 0.2, 0.025),  # type: ignore[operator]
                                    physics=simulo.RigidPhysics(mass=0.1), **size)), at=f"/World/{name}")
    with simulo.Simulation(scene) as sim:
        move(robot, sim, 0.3, 0.2, ABOVE_CUBE)  # 1 cm above the cylinder's top, 3.6 cm from the box's top edge
        grip.close()
        sim.step(1)
        assert grip.held_objects() == ["near"]


def test_each_environment_may_have_its_own_properties(gantry) -> None:
    robot, grip, cube, sim = build(gantry, "pybullet", num_envs=2, max_grip_distance=0.02, retry_interval=0.0)
    with sim:
        move(robot, sim, 0.3, 0.2, ABOVE_CUBE)  # 1 cm above the cubes
        grip.update_gripper_properties(max_grip_distance=np.array([0.005, 0.02]))
        grip.close()
        sim.step(1)
        np.testing.assert_array_equal(grip.state, [GripperState.OPEN, GripperState.CLOSED])  # env 0 gave up at once
        grip.update_gripper_properties(shear_force_limit=1.0, env_ids=[1])
        cube.apply_external_force(np.array([[[0.0, 0.0, 0.0]], [[2.0, 0.0, 0.0]]]), np.zeros((2, 1, 3)))
        sim.step(2)
        np.testing.assert_array_equal(grip.state, [GripperState.OPEN, GripperState.OPEN])  # 2 N > 1 N broke it
