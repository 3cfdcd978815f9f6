"""``simulo.Scene``: paths and names, environment layout, spawn poses, groups, items, clear/reset/flush."""

from __future__ import annotations

import math

import numpy as np
import pytest

import simulo
from simulo.errors import SceneError


def test_add_sets_path_and_name(cartpole) -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(cartpole)
    scene.add(robot, at="/World/envs/Cartpole/")
    assert robot.path == "/World/envs/Cartpole" and robot.name == "Cartpole"
    assert scene.root == "/World"
    other = simulo.Robot(cartpole)
    scene.add(other)  # no path given: <root>/<type name>
    assert other.path == "/World/Robot"
    items = scene.get_items()
    assert [(e["path"], e["kind"], e["per_environment"]) for e in items] == [
        ("/World/envs/Cartpole", "robot", True), ("/World/Robot", "robot", True)]
    assert items[0]["item"] is robot


def test_at_is_the_parent_of_a_named_item(cartpole) -> None:
    scene = simulo.Scene()
    scene.add(simulo.Terrain.plane(name="ground"), at="/", per_environment=False)
    assert scene.root == "/"
    scene.add(simulo.Light.dome(name="light", intensity=2000.0, color=(0.75, 0.75, 0.75)), at="/World",
              per_environment=False)
    box = simulo.Cuboid(name="box", size=(0.1, 0.1, 0.1), physics=simulo.RigidPhysics())
    scene.add(box, at="/World/Props/")
    robot = simulo.Robot(cartpole)
    scene.add(robot, at="/World/Robot")  # a robot brings no name: at is its own path
    scene.add(simulo.Light.distant())  # no at: under the root
    assert [e["path"] for e in scene.get_items()] == ["/ground", "/World/light", "/World/Props/box", "/World/Robot",
                                                      "/distantLight"]
    assert scene.get_items()[2]["item"].name == "box" and robot.name == "Robot"
    with pytest.raises(SceneError, match="scene path '/World/light' is already used"):
        scene.add(simulo.Light.dome(name="light"), at="/World")


def test_root_comes_from_the_first_path() -> None:
    scene = simulo.Scene()
    assert scene.root == "/World"
    scene.add(simulo.Terrain.plane(), at="/Stage/Ground", per_environment=False)
    assert scene.root == "/Stage"
    scene.add(simulo.Light.dome())
    assert scene.get_items()[-1]["path"] == "/Stage/domeLight"


@pytest.mark.parametrize("kind", ["robot", "prop"])
def test_shared_robot_or_prop_is_refused_with_several_envs(kind, cartpole) -> None:
    item = simulo.Robot(cartpole) if kind == "robot" else simulo.Prop(
        simulo.Cuboid(name="c", size=(0.1, 0.1, 0.1), physics=simulo.RigidPhysics()))
    scene = simulo.Scene(num_envs=4)
    with pytest.raises(SceneError) as err:
        scene.add(item, at="/World/Thing", per_environment=False)
    message = str(err.value)
    assert f"shared (per_environment=False) {kind} is supported only with one environment" in message
    assert "num_envs=4" in message and ("'/World/Thing'" if kind == "robot" else "'/World/Thing/c'") in message
    assert scene.get_items() == [] and item.path is None  # nothing half-applied
    # a shared ground plane is fine, and so is a shared robot in a one-environment scene
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    single = simulo.Scene(num_envs=1)
    single.add(item, at="/World/Thing", per_environment=False)
    assert single.get_items()[0]["per_environment"] is False


def test_shared_robot_has_its_authored_pose_and_no_origin(cartpole) -> None:
    scene = simulo.Scene(num_envs=1, env_spacing=5.0)
    robot = simulo.Robot(cartpole, simulo.Pose.from_xyz(1.0, 2.0, 0.5))
    scene.add(robot, at="/World/Shared", per_environment=False)
    with simulo.Simulation(scene):
        np.testing.assert_allclose(robot.default_pose, [[1.0, 2.0, 0.5, 1, 0, 0, 0]])


def test_env_origins_grid_and_spacing(cartpole) -> None:
    scene = simulo.Scene(num_envs=5, env_spacing=1.5)
    robot = simulo.Robot(cartpole)
    scene.add(robot)
    assert scene.env_origins is None  # until a simulation attaches the scene
    with simulo.Simulation(scene) as sim:
        expected = [[0, 0, 0], [0, 1.5, 0], [0, 3.0, 0], [1.5, 0, 0], [1.5, 1.5, 0]]  # 3 columns (ceil √5)
        np.testing.assert_allclose(scene.env_origins, expected)
        np.testing.assert_allclose(sim.env_origins, expected)
        # each env's robot stands on its origin (at the catalog's 2 m)
        np.testing.assert_allclose(np.asarray(robot.default_pose)[:, :3], np.array(expected) + [0, 0, 2.0])
        np.testing.assert_allclose(np.asarray(robot.state.pose)[:, :3], np.array(expected) + [0, 0, 2.0])
    assert scene.env_origins is None


def test_spawn_pose_rule(cartpole, arm) -> None:
    scene = simulo.Scene(num_envs=2, env_spacing=4.0)
    keeps = simulo.Robot(cartpole, simulo.Pose.identity())
    replaces = simulo.Robot(cartpole, simulo.Pose.from_xyz(0.0, 1.0, 0.5))
    turned = simulo.Robot(arm, simulo.Pose((0.1, 0.2, 0.0), (math.cos(0.25), 0.0, 0.0, math.sin(0.25))))
    scene.add(keeps, at="/World/A")
    scene.add(replaces, at="/World/B")
    scene.add(turned, at="/World/C")
    with simulo.Simulation(scene):
        origins = np.asarray(scene.env_origins)
        # identity keeps the catalog's own 2 m; any other pose replaces it; env origins are added
        np.testing.assert_allclose(np.asarray(keeps.default_pose)[:, :3], origins + [0, 0, 2.0])
        np.testing.assert_allclose(np.asarray(replaces.default_pose)[:, :3], origins + [0, 1.0, 0.5])
        np.testing.assert_allclose(np.asarray(turned.default_pose),
                                   np.column_stack([origins + [0.1, 0.2, 0.0],
                                                    np.tile([math.cos(0.25), 0, 0, math.sin(0.25)], (2, 1))]))
        np.testing.assert_allclose(keeps.state.pose, keeps.default_pose)
        np.testing.assert_allclose(replaces.state.pose, replaces.default_pose, atol=1e-12)


def test_items_under_a_transform_spawn_at_its_position(cartpole, arm) -> None:
    scene = simulo.Scene(num_envs=2, env_spacing=3.0)
    table = simulo.Transform(name="table", pose=simulo.Pose((1.0, 0.0, 0.5), (math.cos(math.pi / 4), 0, 0,
                                                                               math.sin(math.pi / 4))))
    scene.add(table, at="/World/Table")
    on_table = simulo.Robot(arm, simulo.Pose.from_xyz(0.2, 0.0, 0.0))  # 0.2 m along the table's own x
    scene.add(on_table, at="/World/Table/Arm")
    rail = simulo.Robot(cartpole)
    lifted = simulo.Transform(name="lift", pose=simulo.Pose.from_xyz(0.0, 0.0, 1.0)).add(rail, at="Cartpole")
    scene.add(lifted, at="/World/Lift")
    assert rail.path == "/World/Lift/Cartpole"
    with simulo.Simulation(scene):
        origins = np.asarray(scene.env_origins)
        pose = np.asarray(on_table.default_pose)
        np.testing.assert_allclose(pose[:, :3], origins + [1.0, 0.2, 0.5], atol=1e-12)  # turned 90° by the table
        np.testing.assert_allclose(pose[:, 3:], np.tile([math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)],
                                                        (2, 1)), atol=1e-12)
        # the catalog cartpole keeps its 2 m above the transform
        np.testing.assert_allclose(np.asarray(rail.default_pose)[:, :3], origins + [0, 0, 3.0])


def test_group_places_items_under_its_path(arm) -> None:
    scene = simulo.Scene()
    robots = scene.group("Robots")
    assert scene.group("Robots") is robots
    assert robots.path == "/World/Robots" and robots.name == "Robots" and robots.scene is scene
    robot = simulo.Robot(arm)
    robots.add(robot, at="Arm")
    assert robot.path == "/World/Robots/Arm"
    nested = scene.group("Cells", at="/World/Robots")
    assert nested.path == "/World/Robots/Cells" and nested.parent_path == "/World/Robots"
    light = simulo.Light.distant()
    nested.add(light)
    assert scene.get_items()[-1]["path"] == "/World/Robots/Cells/distantLight"
    nested.add(simulo.Light.dome(name="lamp"), at="Shelf")  # a sub-path inside the group: the parent
    assert scene.get_items()[-1]["path"] == "/World/Robots/Cells/Shelf/lamp"
    robots.add(simulo.Robot(arm))  # no name and no sub-path: the type name
    assert scene.get_items()[-1]["path"] == "/World/Robots/Robot"
    top = scene.group("Top", at="/")
    assert top.parent_path == "/" and top.path == "/Top"
    top.add(simulo.Light.dome(name="sky"))
    assert scene.get_items()[-1]["path"] == "/Top/sky"
    with pytest.raises(SceneError, match="a group's sub-path must be relative like 'Arm', got '/Arm'"):
        robots.add(simulo.Light.dome(name="x"), at="/Arm")


def test_get_items_is_a_copy_and_clear_empties_the_scene(cartpole) -> None:
    scene = simulo.Scene()
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    scene.add(simulo.Cuboid(name="table", size=(1, 1, 0.1)), at="/World/Table")
    scene.add(simulo.Cuboid(name="box", size=(0.1, 0.1, 0.1), physics=simulo.RigidPhysics()), at="/World/Box")
    items = scene.get_items()
    assert [e["kind"] for e in items] == ["terrain", "fixture", "prop"]
    assert isinstance(items[2]["item"], simulo.Prop)  # a shape with physics becomes a Prop
    items.clear()
    items = scene.get_items()
    items[0]["path"] = "/Elsewhere"
    assert len(scene.get_items()) == 3 and scene.get_items()[0]["path"] == "/World/Ground/groundPlane"
    group = scene.group("G")
    scene.clear()
    assert scene.get_items() == [] and scene.group("G") is not group
    scene.add(simulo.Robot(cartpole), at="/Other/Robot")  # the root is chosen afresh
    assert scene.root == "/Other"


def test_scene_is_frozen_while_simulated(cartpole) -> None:
    scene = simulo.Scene()
    scene.add(simulo.Robot(cartpole))
    with simulo.Simulation(scene):
        with pytest.raises(SceneError, match="already simulated"):
            scene.add(simulo.Light.dome())
        with pytest.raises(SceneError, match="cannot clear a scene that is being simulated"):
            scene.clear()
        assert len(scene.get_items()) == 1
    scene.add(simulo.Light.dome())  # free again once the simulation is closed
    assert len(scene.get_items()) == 2


def test_scene_reset_resets_robots_and_props(cartpole) -> None:
    scene = simulo.Scene(num_envs=2)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(cartpole)
    ball = simulo.Prop(simulo.Sphere(name="ball", radius=0.1, pose=simulo.Pose.from_xyz(0.0, 0.0, 0.5),
                                     physics=simulo.RigidPhysics(mass=0.1)))
    scene.add(robot)
    scene.add(ball, at="/World/Ball")
    with simulo.Simulation(scene) as sim:
        robot.set_joint_effort_target(np.full((2, 1), 30.0), joint_ids=[0])
        sim.step(60)
        assert np.asarray(robot.state.joint_positions)[0, 0] > 0.1
        assert np.asarray(ball.state.pose)[0, 2] < 0.2
        scene.reset()
        np.testing.assert_array_equal(robot.state.joint_positions, np.zeros((2, 2)))
        np.testing.assert_allclose(ball.state.pose, ball.default_pose)
        sim.step(1)
        np.testing.assert_array_equal(robot.state.joint_efforts, np.zeros((2, 2)))  # targets cleared


def test_flush_pending_commands_sends_the_buffered_targets(cartpole) -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(cartpole)
    scene.add(robot)
    scene.flush_pending_commands()  # nothing attached: nothing to do
    with simulo.Simulation(scene) as sim:
        robot.set_joint_effort_target(np.array([[40.0]]), joint_ids=[0])
        scene.flush_pending_commands()
        sim._engine.step()  # step the engine alone, bypassing the Simulation's own flush
        robot.update(sim.dt)
        assert np.asarray(robot.state.joint_velocities)[0, 0] > 0.0
        np.testing.assert_allclose(np.asarray(robot.state.joint_efforts)[0, 0], 40.0)


def test_fixtures_are_static_and_props_land_on_them() -> None:
    scene = simulo.Scene()
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    scene.add(simulo.Cuboid(name="table", size=(0.6, 0.6, 0.4), pose=simulo.Pose.from_xyz(0, 0, 0.2)),
              at="/World/Table")
    box = simulo.Prop(simulo.Cuboid(name="box", size=(0.1, 0.1, 0.1), pose=simulo.Pose.from_xyz(0, 0, 0.8),
                                    physics=simulo.RigidPhysics(mass=0.3)))
    scene.add(box, at="/World/Box")
    with simulo.Simulation(scene) as sim:
        sim.step(240)
        np.testing.assert_allclose(np.asarray(box.state.pose)[0, 2], 0.45, atol=3e-3)
