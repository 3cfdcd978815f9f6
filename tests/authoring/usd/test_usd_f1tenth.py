"""The F1TENTH car of the SDK's samples (a USD file, copied unchanged into ../shared/peer/) loads and stands on its
wheels on both engines."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

import numpy as np

import simulo

F1TENTH = Path(__file__).resolve().parents[4] / "shared" / "peer" / "f1tenth.usd"


@pytest.fixture
def f1tenth() -> Path:
    if not F1TENTH.is_file():
        pytest.skip(f"the F1TENTH sample is not here ({F1TENTH}); it lives in ../shared/peer/ beside the checkout")
    return F1TENTH


def _car_on_a_plane(f1tenth: Path, engine: str, dt: float) -> tuple[simulo.Simulation, simulo.Robot]:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    car = simulo.Robot(simulo.Asset.from_usd_file(f1tenth))
    scene.add(car, at="/World/Car")
    return simulo.Simulation(scene, dt=dt, engine=engine), car


def test_f1tenth_loads_as_a_floating_car(f1tenth: Path) -> None:
    asset = simulo.Asset.from_usd_file(f1tenth)
    assert asset.name == "f1tenth" and asset.fixed_base is False and asset.model.root_link == "base_link"
    kinds = {j.name: j.type for j in asset.model.joints}
    assert kinds == {"wheel_back_left": "continuous", "wheel_back_right": "continuous",
                     "wheel_front_left": "continuous", "wheel_front_right": "continuous",
                     "rotator_left": "revolute", "rotator_right": "revolute"}
    steering = next(j for j in asset.model.joints if j.name == "rotator_left")
    assert steering.limits is not None and steering.limits.upper == pytest.approx(np.pi / 4)  # 45°
    assert not asset.inertia_from_file  # the file gives masses but no diagonalInertia


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_f1tenth_stands_on_its_wheels(f1tenth: Path, engine: str) -> None:
    sim, car = _car_on_a_plane(f1tenth, engine, 1.0 / 240.0)
    with sim:
        for _ in range(240):
            sim.step()
        base = np.asarray(car.get_body_pose("base_link"))[0]
    assert 0.0 < base[2] < 0.1 and abs(base[3]) > 0.99  # resting on its 5.5 cm wheels, nearly level


def test_f1tenth_drives_are_its_velocity_driven_wheels_and_position_driven_steering(f1tenth: Path) -> None:
    gains = simulo.Asset.from_usd_file(f1tenth).drive_gains
    per_degree = 180.0 / np.pi
    for wheel in ("wheel_back_left", "wheel_back_right", "wheel_front_left", "wheel_front_right"):
        assert gains[wheel].stiffness == 0.0 and gains[wheel].damping == pytest.approx(1e7 * per_degree)
    for steer in ("rotator_left", "rotator_right"):
        assert (gains[steer].stiffness, gains[steer].damping) == pytest.approx((1024 * per_degree, 50 * per_degree))


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_f1tenth_drives_forward_and_turns_when_it_steers(f1tenth: Path, engine: str) -> None:
    sim, car = _car_on_a_plane(f1tenth, engine, 1.0 / 120.0)
    with sim:
        names = car.get_joint_names()
        wheels = [i for i, n in enumerate(names) if n.startswith("wheel")]
        steering = [i for i, n in enumerate(names) if n.startswith("rotator")]
        sim.step(60)
        start = np.asarray(car.state.pose)[0].copy()
        for k in range(240):
            car.set_joint_velocity_target(np.full((1, 4), 20.0), joint_ids=wheels)
            car.set_joint_position_target(np.full((1, 2), 0.3 if k >= 120 else 0.0), joint_ids=steering)
            sim.step()
        end = np.asarray(car.state.pose)[0]
    assert end[0] - start[0] > 1.0  # 20 rad/s on 5.5 cm wheels: about 1.1 m/s forward
    yaw = 2.0 * np.arctan2(end[6], end[3])
    assert yaw > 0.2  # steered left for the last second
