"""Terrains (SDK-shaped planes and rough height fields), lights and cones, built on PyBullet."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.authoring.world import GroundPlane, RoughTerrain, SubTerrainConfig
from simulo.errors import SceneError, SimuloValueError
from simulo.sim.terrain import column_types, heightfield


def stairs(**kw: object) -> RoughTerrain:
    sub = [SubTerrainConfig("pyramid_stairs", 1.0, {"step_height_range": (0.05, 0.2), "step_width": 0.5,
                                                     "platform_width": 1.0})]
    return simulo.Terrain.rough(name="steps", num_rows=2, num_cols=1, size=(4.0, 4.0), border_width=1.0,
                                sub_terrains=sub, **kw)  # type: ignore[arg-type]


def test_plane_is_the_sdks_ground_plane() -> None:
    plane = simulo.Terrain.plane(name="ground", pose=simulo.Pose.from_xyz(0, 0, 0.3), size=20.0, friction=0.7)
    assert isinstance(plane, GroundPlane)
    assert (plane.name, plane.size, plane.friction, plane.pose.xyz) == ("ground", 20.0, 0.7, (0.0, 0.0, 0.3))
    with pytest.raises(SimuloValueError, match="GroundPlane.contact_stiffness"):
        simulo.Terrain.plane(contact_stiffness=0.0)
    scene = simulo.Scene()
    scene.add(plane, at="/World", per_environment=False)
    box = simulo.Prop(simulo.Cuboid(name="box", size=(0.1,) * 3, pose=simulo.Pose.from_xyz(0, 0, 0.6),
                                    physics=simulo.RigidPhysics(mass=0.2)))
    scene.add(box, at="/World")
    with simulo.Simulation(scene) as sim:
        sim.step(240)
        np.testing.assert_allclose(np.asarray(box.state.pose)[0, 2], 0.35, atol=3e-3)  # on the raised plane


@pytest.mark.parametrize(("plane", "message"), [
    (simulo.Terrain.plane(contact_gap=0.01), "contact_gap is not available"),
    (simulo.Terrain.plane(contact_stiffness=1e4), "give contact_stiffness and contact_damping together"),
    (simulo.Terrain.plane(pose=simulo.Pose((0, 0, 0), (0.9, 0.1, 0, 0))), "is tilted"),
])
def test_plane_settings_pybullet_lacks_are_refused(plane, message) -> None:
    scene = simulo.Scene()
    scene.add(plane, at="/World")
    with pytest.raises(SceneError, match=message):
        simulo.Simulation(scene)
    assert scene.runtime_simulation is None


def test_rough_terrain_is_seeded_and_deterministic() -> None:
    rough = [SubTerrainConfig("random_rough", 0.5, {"noise_range": (-0.05, 0.05), "noise_step": 0.01}),
             SubTerrainConfig("wave", 0.5)]
    a, scale = heightfield(simulo.Terrain.rough(num_rows=2, num_cols=4, size=(2.0, 2.0), border_width=0.5,
                                                sub_terrains=rough, seed=3))
    b, _ = heightfield(simulo.Terrain.rough(num_rows=2, num_cols=4, size=(2.0, 2.0), border_width=0.5,
                                            sub_terrains=rough, seed=3))
    c, _ = heightfield(simulo.Terrain.rough(num_rows=2, num_cols=4, size=(2.0, 2.0), border_width=0.5,
                                            sub_terrains=rough, seed=4))
    assert scale == 0.1 and a.shape == (4 * 20 + 10 + 1, 2 * 20 + 10 + 1)  # rows along y, columns along x
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.abs(a).max() <= 0.2 and (a[:5] == 0).all()  # the border is flat
    assert [s.type for s in column_types(rough, 4)] == ["random_rough", "random_rough", "wave", "wave"]
    assert len(simulo.Terrain.rough().sub_terrains) == 6  # the SDK's default mix


def test_a_box_rests_on_the_height_field_where_the_heights_say() -> None:
    terrain = stairs()
    heights, scale = heightfield(terrain)
    scene = simulo.Scene()
    scene.add(terrain, at="/World", per_environment=False)
    # the grid's centre is the world origin; row r's cell centre is at x = (r - 0.5) * 4 m
    boxes = []
    for r in range(2):
        box = simulo.Prop(simulo.Cuboid(name=f"box{r}", size=(0.2,) * 3, pose=simulo.Pose.from_xyz((r - 0.5) * 4.0, 0,
                                                                                               1.5),
                                        physics=simulo.RigidPhysics(mass=0.5)))
        scene.add(box, at="/World")
        boxes.append(box)
    half_x = (heights.shape[1] - 1) * scale / 2
    tops = [heights[(heights.shape[0] - 1) // 2, round(((r - 0.5) * 4.0 + half_x) / scale)] for r in range(2)]
    assert tops[1] > tops[0] > 0.1  # the curriculum makes the second row harder (higher steps)
    with simulo.Simulation(scene) as sim:
        sim.step(480)
        for top, box in zip(tops, boxes):
            np.testing.assert_allclose(np.asarray(box.state.pose)[0, 2], top + 0.1, atol=5e-3)


def test_rough_terrain_size_limit() -> None:
    with pytest.raises(SceneError, match="more than 4000000"):
        heightfield(simulo.Terrain.rough(horizontal_scale=0.02))
    with pytest.raises(SimuloValueError, match="SubTerrainConfig.type 'lava' is unknown"):
        SubTerrainConfig("lava")


def test_cone_prop_rests_on_its_base() -> None:
    if not hasattr(simulo.authoring.shapes, "Cone"):
        pytest.skip("the authoring layer has no Cone yet")
    cone_type = simulo.authoring.shapes.Cone
    scene = simulo.Scene()
    scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
    cone = simulo.Prop(cone_type(name="cone", radius=0.1, height=0.3, pose=simulo.Pose.from_xyz(0, 0, 0.5),
                                 physics=simulo.RigidPhysics(mass=0.2)))
    scene.add(cone, at="/World")
    with simulo.Simulation(scene) as sim:
        sim.step(480)
        pose = np.asarray(cone.state.pose)[0]
        np.testing.assert_allclose(pose[2], 0.15, atol=5e-3)  # centred at mid-height
        np.testing.assert_allclose(abs(pose[3]), 1.0, atol=1e-3)  # upright


def test_lights_are_the_sdks() -> None:
    dome = simulo.Light.dome(name="light", intensity=2000.0, color=(0.75, 0.75, 0.75))
    sun = simulo.Light.distant()
    assert (dome.name, dome.intensity, dome.color) == ("light", 2000.0, (0.75, 0.75, 0.75))
    assert (sun.name, sun.intensity) == ("distantLight", 1000.0)
    with pytest.raises(SimuloValueError, match=r"DomeLight.color\[0\]"):
        simulo.Light.dome(color=(2.0, 0, 0))
