"""``simulo.Camera`` on PyBullet: pixels where the pinhole projection says, depth in metres, labels, isolation."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import NotAttachedError, SimuloValueError

BOX_AT = (1.0, 0.25, 0.3)  # centre of a 0.2 m red box, relative to each environment's origin
HALF = 0.1


def _scene(num_envs: int = 1, spacing: float = 2.0, **camera: object) -> tuple[simulo.Scene, simulo.Camera]:
    scene = simulo.Scene(num_envs=num_envs, env_spacing=spacing)
    scene.add(simulo.Cuboid(name="box", size=(2 * HALF,) * 3, pose=simulo.Pose.from_xyz(*BOX_AT),
                            material=simulo.Material(color=(1.0, 0.0, 0.0))), at="/World")
    options: dict[str, object] = {
        "width": 32, "height": 32, "data_types": ["rgb", "depth", "semantic"],
        "offset": simulo.SensorOffset(pos=(0.0, 0.0, 0.3), rot=(1.0, 0.0, 0.0, 0.0), convention="world"),
        "spawn": simulo.CameraSpawnConfig(focal_length=18.0, clipping_range=(0.05, 10.0))}
    options.update(camera)
    cam = simulo.Camera(**options)  # type: ignore[arg-type]
    scene.add(cam, at="/World/eye")
    return scene, cam


def _project(cam: simulo.Camera, points: np.ndarray) -> np.ndarray:
    """Pixel coordinates (u, v) of points given in the 'world'-convention camera frame (x ahead, y left, z up)."""
    fx, fy, cx, cy = cam.intrinsics()
    x, y, z = points[:, 0], points[:, 1], points[:, 2]
    return np.stack([fx * (-y) / x + cx, fy * (-z) / x + cy], axis=1)


def _red(rgb: np.ndarray) -> np.ndarray:
    return (rgb[..., 0] > 150) & (rgb[..., 1] < 80) & (rgb[..., 2] < 80)


def test_a_box_appears_where_the_pinhole_projection_puts_it() -> None:
    scene, cam = _scene()
    with simulo.Simulation(scene):
        rgb = cam.read_rgb()
        assert rgb.shape == (1, 32, 32, 3) and rgb.dtype == np.uint8
        ys, xs = np.nonzero(_red(rgb[0]))
        assert len(xs) > 20
        corners = np.array([[BOX_AT[0] + a, BOX_AT[1] + b, BOX_AT[2] + c - 0.3]
                            for a in (-HALF, HALF) for b in (-HALF, HALF) for c in (-HALF, HALF)])
        uv = _project(cam, corners)
        # every red pixel centre lies inside the projected corners' bounding box (one pixel of slack)
        assert xs.min() + 0.5 >= uv[:, 0].min() - 1 and xs.max() + 0.5 <= uv[:, 0].max() + 1
        assert ys.min() + 0.5 >= uv[:, 1].min() - 1 and ys.max() + 0.5 <= uv[:, 1].max() + 1
        # and the box's front face centre is covered
        u, v = _project(cam, np.array([[BOX_AT[0] - HALF, BOX_AT[1], BOX_AT[2] - 0.3]]))[0]
        assert _red(rgb[0])[int(v), int(u)]


def test_depth_is_the_distance_to_the_image_plane_and_labels_name_scene_paths() -> None:
    scene, cam = _scene()
    with simulo.Simulation(scene):
        u, v = _project(cam, np.array([[BOX_AT[0] - HALF, BOX_AT[1], BOX_AT[2] - 0.3]]))[0]
        depth = cam.read_depth()
        assert depth.shape == (1, 32, 32) and depth.dtype == np.float32
        assert depth[0, int(v), int(u)] == pytest.approx(BOX_AT[0] - HALF, abs=0.01)
        assert np.isinf(depth[0, 0, 0])  # nothing drawn up there: no ground in this scene
        labels = cam.read_semantic()
        assert cam.semantic_labels == {1: "/World/box"}
        assert labels[0, int(v), int(u)] == 1 and labels[0, 0, 0] == 0
        assert set(np.unique(labels[0][_red(cam.read_rgb()[0])])) == {1}


def test_each_environment_sees_only_its_own_copy_whatever_the_spacing() -> None:
    scene, cam = _scene()
    with simulo.Simulation(scene):
        alone = cam.read_rgb()[0].copy()
    # 0.5 m apart, four environments in one PyBullet world: every neighbour's box is in view unless hidden
    crowded, cam4 = _scene(num_envs=4, spacing=0.5)
    with simulo.Simulation(crowded, envs_per_world=4) as sim:
        assert sim.worlds == 1
        images = cam4.read_rgb()
    assert images.shape == (4, 32, 32, 3)
    for k in range(4):
        np.testing.assert_array_equal(images[k], alone)


def test_a_shared_camera_has_one_row_and_sees_the_whole_world() -> None:
    scene, _ = _scene(num_envs=2, spacing=0.5)
    shared = simulo.Camera(width=32, height=32, offset=simulo.SensorOffset.look_at((-1.0, 0.0, 0.3), BOX_AT))
    scene.add(shared, at="/World/overview", per_environment=False)
    with simulo.Simulation(scene, envs_per_world=2):
        image = shared.read_rgb()
        assert image.shape == (1, 32, 32, 3)
        # both environments' boxes, 0.5 m apart along y, show as two red blobs
        columns = np.flatnonzero(_red(image[0]).any(axis=0))
        assert len(columns) and (np.diff(columns) > 1).any()


def test_look_at_points_the_image_centre_at_the_target() -> None:
    offset = simulo.SensorOffset.look_at(pos=(-0.5, 0.25, 0.6), target=BOX_AT)
    scene, cam = _scene(offset=offset)
    with simulo.Simulation(scene):
        red = _red(cam.read_rgb()[0])
        assert red[15:17, 15:17].all()


def test_a_camera_on_a_robot_body_follows_it(cartpole) -> None:
    scene = simulo.Scene()
    scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
    robot = simulo.Robot(cartpole)
    cam = simulo.Camera(width=16, height=16, data_types=["depth"],
                        offset=simulo.SensorOffset(pos=(0.0, 0.0, 0.0), rot=(1.0, 0.0, 0.0, 0.0), convention="opengl"))
    robot_body = "cart"
    robot.add_sensor(cam, attach_to=robot_body)
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene):
        assert cam.path == "/World/Robot/Camera" and cam.body == robot.find_bodies(robot_body)[0]
        # the OpenGL convention looks along the body's -z: down at the ground from the cart's height
        cart_z = float(np.asarray(robot.get_body_pose(robot_body))[0, 2])
        assert cam.read_depth()[0, 8, 8] == pytest.approx(cart_z, rel=0.05)
        with pytest.raises(SimuloValueError, match="does not capture 'rgb'"):
            cam.read_rgb()


def test_readers_refuse_what_is_not_captured_or_not_drawn() -> None:
    scene, cam = _scene(data_types=["rgb", "normals"])
    with pytest.raises(NotAttachedError, match="after a simulation has built its scene"):
        cam.read_rgb()
    with simulo.Simulation(scene):
        with pytest.raises(SimuloValueError, match="does not capture 'depth'"):
            cam.read_depth()
        with pytest.raises(NotImplementedError, match="normals are not drawn"):
            cam.read_normals()


@pytest.mark.parametrize(("options", "message"), [
    ({"width": 0}, "width must be an integer pixel count"),
    ({"data_types": ["infrared"]}, "data type 'infrared' is unknown"),
    ({"update_period": -1.0}, "update_period must be"),
    ({"offset": (0, 0, 1)}, "offset must be a simulo.SensorOffset"),
    ({"spawn": simulo.CameraSpawnConfig}, "spawn must be a simulo.CameraSpawnConfig"),
])
def test_bad_camera_arguments_raise_naming_the_value(options: dict[str, object], message: str) -> None:
    with pytest.raises(SimuloValueError, match=message):
        simulo.Camera(**options)  # type: ignore[arg-type]


def test_bad_purpose_raises_value_error_as_the_sdk() -> None:
    with pytest.raises(ValueError, match="purpose must be 'observer' or 'policy'"):
        simulo.Camera(purpose="debug")  # type: ignore[arg-type]


def _falling_cube(scene: simulo.Scene) -> None:
    scene.add(simulo.Cuboid(name="cube", size=(0.1,) * 3, pose=simulo.Pose.from_xyz(0.8, -0.2, 0.6),
                            material=simulo.Material(color=(0.0, 0.0, 1.0)), physics=simulo.RigidPhysics()),
              at="/World")


@pytest.mark.parametrize(("period", "redrawn"), [(0.0, True), (10.0, False)])
def test_images_are_redrawn_after_a_step_unless_within_the_update_period(period: float, redrawn: bool) -> None:
    scene, cam = _scene(update_period=period)
    _falling_cube(scene)
    with simulo.Simulation(scene) as sim:
        first = cam.read_rgb().copy()
        np.testing.assert_array_equal(cam.read_rgb(), first)  # no step: the same image
        sim.step(30)  # the blue cube falls
        assert (cam.read_rgb() != first).any() == redrawn
