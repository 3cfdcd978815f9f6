"""``simulo.RayCaster`` and ``simulo.RayPattern``: distances to a plane and a box, each environment on its own."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError

BOX_TOP = 0.4


def _scene(num_envs: int, spacing: float, **caster: object) -> tuple[simulo.Scene, simulo.RayCaster]:
    scene = simulo.Scene(num_envs=num_envs, env_spacing=spacing)
    scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
    scene.add(simulo.Cuboid(name="box", size=(0.2, 0.2, BOX_TOP), pose=simulo.Pose.from_xyz(0.0, 0.0, BOX_TOP / 2)),
              at="/World")
    # three rays 0.25 m apart along x, from 2 m up: the middle one lands on the box, the others on the ground
    rays = simulo.RayCaster(simulo.RayPattern.grid(resolution=0.25, size=(0.5, 0.0)),
                            offset=simulo.SensorOffset(pos=(0.0, 0.0, 2.0)), **caster)  # type: ignore[arg-type]
    scene.add(rays, at="/World/scanner")
    return scene, rays


def test_grid_rays_measure_the_ground_and_the_box_in_every_environment() -> None:
    scene, rays = _scene(num_envs=4, spacing=0.25)  # neighbours' boxes lie right under the outer rays
    with simulo.Simulation(scene, envs_per_world=4) as sim:
        assert sim.worlds == 1
        distances = np.asarray(rays.read_distances())
        np.testing.assert_allclose(distances, [[2.0, 2.0 - BOX_TOP, 2.0]] * 4, atol=1e-6)
        hits = np.asarray(rays.read_hits())
        origins = np.asarray(sim.env_origins)
        np.testing.assert_allclose(hits[:, 1], origins + [0.0, 0.0, BOX_TOP], atol=1e-6)


def test_terrain_only_rays_pass_through_the_box() -> None:
    scene, rays = _scene(num_envs=1, spacing=1.0, terrain_only=True)
    with simulo.Simulation(scene):
        np.testing.assert_allclose(np.asarray(rays.read_distances()), [[2.0, 2.0, 2.0]], atol=1e-6)


def test_a_ray_that_hits_nothing_within_reach_reads_inf() -> None:
    scene, rays = _scene(num_envs=1, spacing=1.0, max_distance=1.0)
    with simulo.Simulation(scene):
        assert np.isinf(np.asarray(rays.read_distances())).all()
        assert np.isinf(np.asarray(rays.read_hits())).all()


def test_a_height_scanner_on_a_robot_follows_its_body(cartpole) -> None:
    scene = simulo.Scene()
    scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
    robot = simulo.Robot(cartpole)
    # it starts inside the cartpole's fixed slider bar, which a terrain-only ray passes through
    down = simulo.RayCaster(simulo.RayPattern.grid(resolution=1.0, size=(0.0, 0.0)),
                            offset=simulo.SensorOffset(pos=(1.0, 0.0, 0.0)), terrain_only=True)
    robot.add_sensor(down, attach_to="cart")
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene):
        cart = np.asarray(robot.get_body_pose("cart"), dtype=np.float64)[0]
        np.testing.assert_allclose(np.asarray(down.read_distances()), [[cart[2]]], atol=1e-6)
        np.testing.assert_allclose(np.asarray(down.read_pos_w())[0], cart[:3] + [1.0, 0.0, 0.0], atol=1e-9)


def test_lidar_rays_are_unit_directions_over_the_fields_of_view() -> None:
    pattern = simulo.RayPattern.lidar(channels=3, vertical_fov_range=(-10.0, 10.0), horizontal_fov_range=(0.0, 90.0),
                                      horizontal_res=45.0)
    assert pattern.num_rays == 9
    directions = np.asarray(pattern.directions)
    np.testing.assert_allclose(np.linalg.norm(directions, axis=1), 1.0)
    np.testing.assert_allclose(np.degrees(np.arcsin(directions[:, 2])).reshape(3, 3)[:, 0], [-10.0, 0.0, 10.0])


@pytest.mark.parametrize(("build", "message"), [
    (lambda: simulo.RayPattern(starts=((0, 0, 0),), directions=((0, 0, 0),)), "non-zero"),
    (lambda: simulo.RayPattern(starts=((0, 0, 0),), directions=((0, 0, 1), (1, 0, 0))), "as many starts"),
    (lambda: simulo.RayCaster("down"), "must be a simulo.RayPattern"),
    (lambda: simulo.RayCaster(simulo.RayPattern.grid(0.1, (0.1, 0.1)), max_distance=0), "max_distance"),
])
def test_bad_patterns_and_casters_raise(build: object, message: str) -> None:
    with pytest.raises(SimuloValueError, match=message):
        build()  # type: ignore[operator]
