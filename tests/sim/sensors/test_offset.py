"""``simulo.SensorOffset``: look_at and the three camera axis conventions describe the same cameras."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError
from simulo.math.batched import quat_to_matrix
from simulo.sim.sensors.offset import quat_from_axes


def _axes(quat: tuple[float, ...]) -> np.ndarray:
    return quat_to_matrix(np.asarray(quat, dtype=np.float64)[None])[0]


def test_look_at_aims_the_viewing_axis_at_the_target_and_keeps_the_image_upright() -> None:
    offset = simulo.SensorOffset.look_at(pos=(1.8, 1.8, 1.4), target=(0.45, 0.0, 0.3))
    assert offset.convention == "world" and offset.pos == (1.8, 1.8, 1.4)
    rot = _axes(offset.camera_rotation())
    direction = np.subtract((0.45, 0.0, 0.3), (1.8, 1.8, 1.4))
    np.testing.assert_allclose(rot[:, 0], direction / np.linalg.norm(direction), atol=1e-12)
    assert rot[2, 1] == pytest.approx(0.0, abs=1e-12)  # the image's horizontal axis stays level
    assert rot[2, 2] > 0  # and its up points up


def test_looking_straight_down_still_gives_a_rotation() -> None:
    rot = _axes(simulo.SensorOffset.look_at(pos=(0, 0, 3), target=(0, 0, 0)).camera_rotation())
    np.testing.assert_allclose(rot[:, 0], [0, 0, -1], atol=1e-12)
    np.testing.assert_allclose(rot.T @ rot, np.eye(3), atol=1e-12)


def test_the_conventions_name_the_same_camera_three_ways() -> None:
    # a camera looking along world +x with world +z up, in each convention's own axes
    world = simulo.SensorOffset(rot=(1.0, 0.0, 0.0, 0.0), convention="world")
    ros = simulo.SensorOffset(rot=quat_from_axes((0, -1, 0), (0, 0, -1), (1, 0, 0)), convention="ros")
    opengl = simulo.SensorOffset(rot=quat_from_axes((0, -1, 0), (0, 0, 1), (-1, 0, 0)), convention="opengl")
    for offset in (world, ros, opengl):
        np.testing.assert_allclose(_axes(offset.camera_rotation()), np.eye(3), atol=1e-12)


@pytest.mark.parametrize(("build", "message"), [
    (lambda: simulo.SensorOffset(pos=(0, 0)), "pos must be 3 finite numbers"),
    (lambda: simulo.SensorOffset(rot=(0, 0, 0, 0)), "non-zero quaternion"),
    (lambda: simulo.SensorOffset(convention="usd"), "convention must be one of"),
    (lambda: simulo.SensorOffset.look_at((1, 1, 1), (1, 1, 1)), "target away from the camera"),
    (lambda: simulo.CameraSpawnConfig(clipping_range=(1.0, 0.5)), "0 < near < far"),
    (lambda: simulo.CameraSpawnConfig(focal_length=0), "focal_length must be a finite number > 0"),
])
def test_bad_offsets_and_optics_raise_naming_the_value(build: object, message: str) -> None:
    with pytest.raises(SimuloValueError, match=message):
        build()  # type: ignore[operator]


def test_offsets_normalise_their_quaternion_and_are_frozen() -> None:
    offset = simulo.SensorOffset(rot=(2.0, 0.0, 0.0, 0.0))
    assert offset.rot == (1.0, 0.0, 0.0, 0.0)
    with pytest.raises(AttributeError):
        offset.pos = (1.0, 2.0, 3.0)  # type: ignore[misc]


def test_the_field_of_view_follows_the_sdk_sample_optics() -> None:
    # 23.533 mm over a 20.955 mm aperture is a 48 degree field of view (the franka-reach-from-camera sample)
    spawn = simulo.CameraSpawnConfig(focal_length=23.533, horizontal_aperture=20.955)
    assert spawn.vertical_fov_deg(100, 100) == pytest.approx(48.0, abs=0.05)
    assert spawn.focal_pixels(100, 50) == pytest.approx((112.30, 112.30), abs=0.01)
