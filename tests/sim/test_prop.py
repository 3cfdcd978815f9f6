"""``simulo.Prop``: a batched rigid body with live state, teleports, reset and friction."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import NotAttachedError, SimuloValueError

SUBSET = [3, 0]


def build(shape: simulo.Cuboid | simulo.Sphere | simulo.Cylinder, num_envs: int = 1, **scene_kw: float
          ) -> tuple[simulo.Prop, simulo.Simulation]:
    scene = simulo.Scene(num_envs=num_envs, **scene_kw)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    prop = simulo.Prop(shape)
    scene.add(prop, at="/World/Thing")
    return prop, simulo.Simulation(scene)


def test_prop_needs_rigid_physics() -> None:
    with pytest.raises(SimuloValueError, match="Prop 'table' needs physics=RigidPhysics"):
        simulo.Prop(simulo.Cuboid(name="table", size=(1, 1, 1)))
    with pytest.raises(SimuloValueError, match="must be a Cuboid, Sphere, Cylinder or Cone"):
        simulo.Prop("cube")  # type: ignore[arg-type]


def test_members_wait_for_attach_and_name_path_are_set() -> None:
    prop = simulo.Prop(simulo.Sphere(name="ball", radius=0.1, physics=simulo.RigidPhysics()))
    assert prop.name == "ball" and prop.path is None
    with pytest.raises(NotAttachedError, match="Prop.state.pose is not available until"):
        prop.state.pose
    with pytest.raises(NotAttachedError, match="Prop.default_pose is not available until"):
        prop.default_pose
    scene = simulo.Scene()
    scene.add(prop, at="/World/Balls")  # at is the parent: the prop brings its name
    assert prop.path == "/World/Balls/ball" and prop.name == "ball"


@pytest.mark.parametrize(("shape", "rest_z"), [
    (simulo.Cuboid(name="c", size=(0.2, 0.2, 0.1), pose=simulo.Pose.from_xyz(0, 0, 0.5),
                   physics=simulo.RigidPhysics(mass=0.5)), 0.05),
    (simulo.Sphere(name="s", radius=0.08, pose=simulo.Pose.from_xyz(0, 0, 0.5),
                   physics=simulo.RigidPhysics(mass=0.5)), 0.08),
    (simulo.Cylinder(name="y", radius=0.05, height=0.3, pose=simulo.Pose.from_xyz(0, 0, 0.5),
                     physics=simulo.RigidPhysics(mass=0.5)), 0.15),
], ids=["cuboid", "sphere", "cylinder"])
def test_shapes_fall_and_rest_on_the_ground(shape, rest_z) -> None:
    prop, sim = build(shape, num_envs=2)
    with sim:
        np.testing.assert_allclose(np.asarray(prop.state.pose)[:, 2], [0.5, 0.5])
        sim.step(240)
        np.testing.assert_allclose(np.asarray(prop.state.pose)[:, 2], [rest_z, rest_z], atol=3e-3)


def test_live_state_default_pose_teleports_and_reset() -> None:
    cube = simulo.Cuboid(name="cube", size=(0.1, 0.1, 0.1), pose=simulo.Pose.from_xyz(0.1, 0.0, 0.3),
                         physics=simulo.RigidPhysics(mass=0.2))
    prop, sim = build(cube, num_envs=4, env_spacing=1.0)
    with sim:
        origins = np.asarray(sim.env_origins)
        default = np.asarray(prop.default_pose)
        np.testing.assert_allclose(default[:, :3], origins + [0.1, 0.0, 0.3])
        default[:] = 0.0  # a copy
        np.testing.assert_allclose(np.asarray(prop.default_pose)[:, :3], origins + [0.1, 0.0, 0.3])
        held = prop.state.pose
        sim.step(10)
        assert prop.state.pose is held and held[0, 2] < 0.3  # live buffer, refreshed in place
        # teleport two envs: current at once, the others untouched
        before = np.array(held)
        target = np.column_stack([origins[SUBSET] + [0.0, 0.2, 1.0], np.tile([0.0, 0.0, 0.0, 3.0], (2, 1))])
        prop.set_pose(target, env_ids=SUBSET)
        np.testing.assert_allclose(held[SUBSET, :3], target[:, :3], atol=1e-9)
        np.testing.assert_allclose(np.abs(held[SUBSET, 6]), [1.0, 1.0], atol=1e-9)  # normalised quaternion
        np.testing.assert_array_equal(held[[1, 2]], before[[1, 2]])
        prop.set_velocity(np.array([[0.0, 0.0, 2.0, 0.0, 0.0, 0.0]]), env_ids=[1])
        np.testing.assert_allclose(np.asarray(prop.state.linear_velocity)[1], [0.0, 0.0, 2.0])
        sim.step(24)
        assert held[1, 2] > before[1, 2]  # thrown upwards
        prop.reset(env_ids=[1])
        np.testing.assert_allclose(held[1], np.asarray(prop.default_pose)[1], atol=1e-9)
        np.testing.assert_array_equal(np.asarray(prop.state.linear_velocity)[1], [0.0, 0.0, 0.0])
        prop.reset()
        np.testing.assert_allclose(held, prop.default_pose, atol=1e-9)
        assert prop.internals.handles and len(prop.internals.handles) == 4


def test_friction_changes_how_far_a_prop_slides() -> None:
    def slide(friction: float) -> float:
        cube = simulo.Cuboid(name="cube", size=(0.1, 0.1, 0.1), pose=simulo.Pose.from_xyz(0, 0, 0.05),
                             physics=simulo.RigidPhysics(mass=0.2, friction=0.9))
        prop, sim = build(cube)
        with sim:
            prop.set_friction(friction)
            prop.set_velocity(np.array([[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]]))
            sim.step(240)
            return float(np.asarray(prop.state.pose)[0, 0])

    slippery, grippy = slide(0.05), slide(0.9)
    # sliding distance v²/(2 μ g); PyBullet multiplies the two frictions and the ground's is 1.0
    np.testing.assert_allclose(grippy, 1.0 / (2 * 0.9 * 9.81), rtol=0.15)
    assert slippery > 5 * grippy
