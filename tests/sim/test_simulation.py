"""``simulo.Simulation``: building, stepping, time, worlds, reset and close."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import NotAttachedError, SceneError, SimuloValueError


def test_step_advances_time_and_count(cartpole) -> None:
    scene = simulo.Scene()
    scene.add(simulo.Robot(cartpole))
    with simulo.Simulation(scene, dt=0.01) as sim:
        assert sim.step_count == 0 and sim.time == 0.0 and sim.dt == 0.01
        sim.step()
        sim.step(9)
        sim.step(0)
        assert sim.step_count == 10
        assert sim.time == pytest.approx(0.1, abs=1e-15)


def test_physics_follows_dt_and_gravity(floater) -> None:
    def fall(dt: float, gravity: tuple[float, float, float]) -> float:
        scene = simulo.Scene()
        robot = simulo.Robot(floater, simulo.Pose.from_xyz(0, 0, 5.0),
                             articulation=simulo.ArticulationConfig(fix_root_link=False))
        scene.add(robot)
        with simulo.Simulation(scene, dt=dt, gravity=gravity) as sim:
            sim.step(round(0.5 / dt))
            return 5.0 - float(np.asarray(robot.state.pose)[0, 2])

    # g t²/2 over 0.5 s whatever the step (to the integrator's error and PyBullet's small default damping)
    np.testing.assert_allclose(fall(1 / 240, (0, 0, -9.81)), 9.81 * 0.125, rtol=0.02)
    np.testing.assert_allclose(fall(1 / 60, (0, 0, -9.81)), 9.81 * 0.125, rtol=0.05)
    np.testing.assert_allclose(fall(1 / 240, (0, 0, -1.62)), 1.62 * 0.125, rtol=0.02)
    assert fall(1 / 240, (0, 0, 0)) == 0.0


def test_num_envs_override_and_world_layout(cartpole) -> None:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(cartpole)
    scene.add(robot)
    with simulo.Simulation(scene, num_envs=5, envs_per_world=2) as sim:
        assert scene.num_envs == 5 and sim.num_envs == 5
        assert sim.worlds == 3  # ceil(5 / 2)
        handles = robot.internals.handles
        # env i lives in world i // envs_per_world
        worlds = [handles[i][0] for i in range(5)]
        assert worlds[0] is worlds[1] and worlds[2] is worlds[3] and worlds[4] is not worlds[3]
        assert worlds[0] is not worlds[2]
        assert np.asarray(robot.state.pose).shape == (5, 7)


def test_close_detaches_and_the_scene_can_be_simulated_again(cartpole) -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(cartpole)
    scene.add(robot)
    sim = simulo.Simulation(scene)
    with pytest.raises(SceneError, match="already attached to a Simulation"):
        simulo.Simulation(scene)
    robot.set_joint_effort_target(np.array([[10.0]]), joint_ids=[0])
    sim.step(10)
    sim.close()
    with pytest.raises(NotAttachedError, match="not available until the simulation has attached the robot"):
        robot.state.joint_positions
    with simulo.Simulation(scene) as again:  # a fresh build: back at the spawn pose, no targets
        np.testing.assert_array_equal(robot.state.joint_positions, np.zeros((1, 2)))
        again.step(10)
        np.testing.assert_array_equal(robot.state.joint_positions, np.zeros((1, 2)))


def test_simulation_reset_resets_the_scene(cartpole) -> None:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(cartpole)
    scene.add(robot)
    with simulo.Simulation(scene) as sim:
        robot.set_joint_position_target(np.array([[0.3], [0.3]]), joint_ids=[0])
        sim.step(50)
        sim.reset()
        np.testing.assert_array_equal(robot.state.joint_positions, np.zeros((2, 2)))
        assert sim.step_count == 50  # simulated time keeps running


def test_refused_num_envs_override_leaves_the_scene_unchanged(cartpole) -> None:
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Robot(cartpole), per_environment=False)
    with pytest.raises(SceneError, match=r"need num_envs == 1, got 4"):
        simulo.Simulation(scene, num_envs=4)
    assert scene.num_envs == 1 and scene.runtime_simulation is None
    with pytest.raises(SimuloValueError, match="envs_per_world must be an integer from 1 to 28, got 100"):
        simulo.Simulation(scene, num_envs=3, envs_per_world=100)
    assert scene.num_envs == 1
    with simulo.Simulation(scene) as sim:  # still buildable as it was
        assert sim.num_envs == 1


def test_failed_build_leaves_the_scene_free(cartpole) -> None:
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(cartpole, articulation=simulo.ArticulationConfig(default_joint_positions=(0.1, 0.2, 0.3)))
    scene.add(robot)
    with pytest.raises(SimuloValueError, match=r"one value per joint \(2: \['slider_to_cart', 'cart_to_pole'\]\)"):
        simulo.Simulation(scene, num_envs=2)
    assert scene.runtime_simulation is None and scene.num_envs == 1 and scene.env_origins is None
    with pytest.raises(NotAttachedError):
        robot.state.pose


def test_robot_failing_half_way_through_attach_is_detached(arm) -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(arm)
    robot.add_actuator(simulo.ParallelGripper(("base_yaw", "shoulder")), attach_to="hand")  # not fingers
    scene.add(robot)
    with pytest.raises(SimuloValueError, match=r"must be prismatic joints, \('base_yaw', 'shoulder'\)"):
        simulo.Simulation(scene)
    with pytest.raises(NotAttachedError):  # not left bound to the closed engine
        robot.state.pose


def test_use_torch_flag_gives_float32_torch_outputs_even_for_numpy_inputs(cartpole) -> None:
    torch = pytest.importorskip("torch")
    scene = simulo.Scene()
    robot = simulo.Robot(cartpole)
    scene.add(robot)
    with simulo.Simulation(scene, use_torch=True) as sim:
        robot.set_joint_position_target(np.zeros((1, 2)))
        sim.set_gravity(np.array([[0.0, 0.0, -9.81]]))
        for value in (robot.state.joint_positions, sim.env_origins, sim.gravity):
            assert isinstance(value, torch.Tensor) and value.dtype == torch.float32
