"""The command contract on every engine: targets are buffered until the next step and persist, env_ids
subsets in any order, teleports are current at once, reset clears its envs only, and the drive laws the
runtime computes itself (ideal PD, effort limits)."""

from __future__ import annotations

import numpy as np
import pytest

import simulo

from .conftest import only

DT = 1.0 / 120.0
FREE = simulo.ArticulationConfig(fix_root_link=False)
SUBSET = [5, 1, 3]  # non-contiguous, unordered
OTHERS = [0, 2, 4]


def test_commands_are_buffered_until_the_next_step(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2, sim={"dt": DT})
    q0 = np.array(robot.state.joint_positions)
    robot.set_joint_position_target(np.array([[0.4], [-0.4]]), joint_ids=[0])
    robot.set_joint_velocity_target(np.array([[1.0], [1.0]]), joint_ids=[0])
    robot.set_joint_effort_target(np.array([[50.0], [50.0]]), joint_ids=[0])
    # nothing acts before the next step: the state is unchanged and no effort is reported
    np.testing.assert_array_equal(robot.state.joint_positions, q0)
    np.testing.assert_array_equal(robot.state.joint_efforts, np.zeros((2, 2)))
    sim.step(1)
    q1 = np.array(robot.state.joint_positions)
    assert q1[0, 0] > 0 and q1[1, 0] < 0  # the position target won over velocity and effort
    # flushed once per step: sim.step(n) calls the robot's flush exactly n times
    calls = []
    flush = robot.runtime_flush
    robot.runtime_flush = lambda: (calls.append(1), flush())[1]  # type: ignore[method-assign]
    sim.step(3)
    assert len(calls) == 3


def test_only_the_last_command_before_a_step_counts(cartpole, make) -> None:
    a, sim_a = make(cartpole, num_envs=2, sim={"dt": DT})
    b, sim_b = make(cartpole, num_envs=2, sim={"dt": DT})
    a.set_joint_effort_target(np.array([[-300.0], [300.0]]), joint_ids=[0])  # overwritten before any step
    a.set_joint_effort_target(np.array([[20.0], [-10.0]]), joint_ids=[0])
    b.set_joint_effort_target(np.array([[20.0], [-10.0]]), joint_ids=[0])
    sim_a.step(20)
    sim_b.step(20)
    assert np.asarray(a.state.joint_positions).tobytes() == np.asarray(b.state.joint_positions).tobytes()


def test_position_targets_persist_and_touch_only_their_envs(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=6, sim={"dt": DT})
    robot.set_joint_position_target(np.array([[0.5], [-0.3], [0.2]]), joint_ids=[0], env_ids=SUBSET)
    sim.step(240)  # the target was given once and keeps acting
    q = np.asarray(robot.state.joint_positions)
    np.testing.assert_allclose(q[SUBSET, 0], [0.5, -0.3, 0.2], atol=5e-3)
    np.testing.assert_array_equal(q[OTHERS], np.zeros((3, 2)))


def test_velocity_target_reaches_the_speed(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=6, sim={"dt": DT})
    robot.set_joint_velocity_target(np.array([[0.5], [-0.25], [0.1]]), joint_ids=[0], env_ids=SUBSET)
    sim.step(60)
    qd = np.asarray(robot.state.joint_velocities)
    np.testing.assert_allclose(qd[SUBSET, 0], [0.5, -0.25, 0.1], atol=2e-3)
    np.testing.assert_array_equal(qd[OTHERS], np.zeros((3, 2)))
    q = np.asarray(robot.state.joint_positions)
    np.testing.assert_allclose(q[SUBSET, 0], np.array([0.5, -0.25, 0.1]) * 0.5, rtol=0.05)


def test_set_joint_state_teleports_and_is_current_at_once(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=6, sim={"dt": DT})
    robot.set_joint_state(np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]),
                          velocities=np.array([[1.0, 0.0], [0.0, 0.0], [-1.0, 0.5]]), env_ids=SUBSET)
    q = np.asarray(robot.state.joint_positions)
    qd = np.asarray(robot.state.joint_velocities)
    np.testing.assert_array_equal(q[SUBSET], [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    np.testing.assert_array_equal(qd[SUBSET], [[1.0, 0.0], [0.0, 0.0], [-1.0, 0.5]])
    np.testing.assert_array_equal(q[OTHERS], np.zeros((3, 2)))
    # the engine agrees: the cart frame moved by q along the rail
    cart = np.asarray(robot.get_body_pose("cart"))
    np.testing.assert_allclose(cart[SUBSET, 0] - np.asarray(sim.env_origins)[SUBSET, 0], [0.1, 0.3, 0.5], atol=1e-6)
    # velocities default to zero; the cart coasts with the velocity it was given
    robot.set_joint_state(np.array([[0.0, 0.0]]), env_ids=[1])
    np.testing.assert_array_equal(np.asarray(robot.state.joint_velocities)[1], [0.0, 0.0])
    sim.step(12)
    q = np.asarray(robot.state.joint_positions)
    np.testing.assert_allclose(q[5, 0], 0.1 + 1.0 * 12 * DT, atol=0.02)


def test_set_root_pose_moves_a_fixed_base_anchor(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=1)
    robot.set_root_pose(np.array([[1.0, 2.0, 3.0, 1.0, 0.0, 0.0, 0.0]]))
    sim.step(60)
    np.testing.assert_allclose(robot.state.pose, [[1.0, 2.0, 3.0, 1.0, 0.0, 0.0, 0.0]], atol=1e-9)
    np.testing.assert_allclose(np.asarray(robot.get_body_pose("cart"))[0, :3], [1.0, 2.0, 3.0], atol=1e-6)


def test_set_root_velocity_moves_a_floating_base(floater, make) -> None:
    robot, sim = make(floater, num_envs=6, articulation=FREE, sim={"gravity": (0.0, 0.0, 0.0)},
                      initial_pose=simulo.Pose.from_xyz(0, 0, 1.0))
    vel = np.array([[0.5, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, -0.4, 0.2, 0.0, 0.0, 0.0], [0.0, 0.0, -0.3, 0.0, 0.0, 0.0]])
    robot.set_root_velocity(vel, env_ids=SUBSET)
    np.testing.assert_allclose(robot.get_root_velocity()[SUBSET], vel, atol=1e-9)  # current at once
    np.testing.assert_array_equal(robot.get_root_velocity()[OTHERS], np.zeros((3, 6)))
    start = np.array(robot.state.pose)
    sim.step(120)  # 0.5 s of free flight at the default dt
    moved = np.asarray(robot.state.pose)[:, :3] - start[:, :3]
    # v·t, less PyBullet's default linear damping of a multibody (0.04 per second, under 2 % here)
    np.testing.assert_allclose(moved[5], [0.25, 0.0, 0.0], rtol=0.02, atol=1e-9)
    np.testing.assert_allclose(moved[1], [0.0, -0.2, 0.1], rtol=0.02, atol=1e-9)
    np.testing.assert_allclose(moved[3], [0.0, 0.0, -0.15], rtol=0.02, atol=1e-9)
    np.testing.assert_array_equal(moved[OTHERS], np.zeros((3, 3)))


def test_reset_env_ids_resets_only_those_and_clears_their_targets(cartpole, make) -> None:
    art = simulo.ArticulationConfig(default_joint_positions=(0.25, 0.0))
    robot, sim = make(cartpole, num_envs=6, articulation=art, sim={"dt": DT})
    np.testing.assert_allclose(robot.state.joint_positions, [[0.25, 0.0]] * 6)  # applied at attach
    targets = np.linspace(-0.6, 0.6, 6)[:, None]
    robot.set_joint_position_target(targets, joint_ids=[0])
    sim.step(120)
    before = np.array(robot.state.joint_positions)
    before_vel = np.array(robot.state.joint_velocities)
    robot.reset(env_ids=SUBSET)
    q = np.asarray(robot.state.joint_positions)
    np.testing.assert_array_equal(q[SUBSET], [[0.25, 0.0]] * 3)  # current right after reset
    np.testing.assert_array_equal(np.asarray(robot.state.joint_velocities)[SUBSET], np.zeros((3, 2)))
    np.testing.assert_array_equal(q[OTHERS], before[OTHERS])
    np.testing.assert_array_equal(np.asarray(robot.state.joint_velocities)[OTHERS], before_vel[OTHERS])
    sim.step(120)
    q = np.asarray(robot.state.joint_positions)
    # reset envs have no target any more: passive and at rest at the default they stay put
    np.testing.assert_allclose(q[SUBSET], [[0.25, 0.0]] * 3, atol=1e-12)
    # the others still track their targets
    np.testing.assert_allclose(q[OTHERS, 0], targets[OTHERS, 0], atol=5e-3)


def test_articulation_default_joint_positions_and_velocities(arm, make, arm_q) -> None:
    art = simulo.ArticulationConfig(default_joint_positions=tuple(arm_q),
                                    default_joint_velocities=(0.1, 0, 0, 0, 0, 0, 0))
    robot, sim = make(arm, num_envs=2, articulation=art, disable_gravity=True)
    np.testing.assert_allclose(robot.state.joint_positions, np.tile(arm_q, (2, 1)))
    np.testing.assert_allclose(np.asarray(robot.state.joint_velocities)[:, 0], [0.1, 0.1])
    robot.set_joint_state(np.zeros((1, 7)), env_ids=[1])
    robot.reset(env_ids=[1])
    np.testing.assert_allclose(np.asarray(robot.state.joint_positions)[1], arm_q)


def test_joint_config_effort_limit_clips_effort(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=1, sim={"dt": DT},
                      joint_config=[simulo.JointConfig(name="slider_to_cart", type="prismatic", effort_limit=5.0)])
    robot.set_joint_effort_target(np.array([[100.0]]), joint_ids=[0])
    sim.step(12)
    assert np.asarray(robot.state.joint_efforts)[0, 0] == 5.0
    qd = np.asarray(robot.state.joint_velocities)
    momentum = (np.asarray(robot.get_mass_matrix())[0] @ qd[0])[0]
    np.testing.assert_allclose(momentum, 5.0 * 12 * DT, rtol=0.01)  # 5 N acted, not 100 N


def _implicit_pd(kp: float, kd: float, error: np.ndarray, q: np.ndarray, qd: np.ndarray, inertia: np.ndarray
                 ) -> np.ndarray:
    """The implicit PD torque (simulo.sim.actuators.ideal_pd): spring and damper acting on the next state."""
    return (kp * (error - DT * qd) - kd * qd) / (1.0 + DT * (kd + DT * kp) / inertia)


def _effective_inertia(robot: simulo.Robot) -> np.ndarray:
    """The inertia the cart's own force meets, the pole free: 1 / (M⁻¹)₀₀ per environment."""
    return 1.0 / np.linalg.inv(np.asarray(robot.get_mass_matrix(), dtype=float))[:, 0, 0]


def test_actuator_gains_pd_drive_follows_its_law_and_tracks(cartpole, make) -> None:
    gains = {"slider_to_cart": simulo.ActuatorGainsConfig(stiffness=100.0, damping=22.0)}
    robot, sim = make(cartpole, num_envs=2, actuator_gains=gains, sim={"dt": DT})
    target = np.array([0.5, -0.2])
    inertia = _effective_inertia(robot)
    robot.set_joint_position_target(target[:, None], joint_ids=[0])
    sim.step(1)
    # first step from rest: the implicit law, a little below the explicit stiffness * (target - q)
    first = np.asarray(robot.state.joint_efforts)[:, 0]
    np.testing.assert_allclose(first, _implicit_pd(100.0, 22.0, target, np.zeros(2), np.zeros(2), inertia))
    assert np.all(np.abs(first) < np.abs(100.0 * target)) and np.all(np.sign(first) == np.sign(target))
    q, qd = (np.array(a) for a in robot.get_joint_state())
    inertia = _effective_inertia(robot)
    robot.set_joint_position_target(target[:, None], joint_ids=[0])
    sim.step(1)
    expected = _implicit_pd(100.0, 22.0, target - q[:, 0], q[:, 0], qd[:, 0], inertia)
    np.testing.assert_allclose(np.asarray(robot.state.joint_efforts)[:, 0], expected)
    sim.step(238)
    np.testing.assert_allclose(np.asarray(robot.state.joint_positions)[:, 0], [0.5, -0.2], atol=0.03)


def test_actuator_gains_stay_stable_where_an_explicit_law_would_diverge(cartpole, make) -> None:
    # damping * dt / inertia far above 2: an explicit PD torque would overshoot further every step
    robot, sim = make(cartpole, num_envs=1, sim={"dt": DT})
    inertia = float(_effective_inertia(robot)[0])
    damping = 50.0 * inertia / DT
    sim.close()
    gains = {"slider_to_cart": simulo.ActuatorGainsConfig(stiffness=0.0, damping=damping)}
    robot, sim = make(cartpole, num_envs=1, actuator_gains=gains, sim={"dt": DT})
    robot.set_joint_velocity_target(np.array([[1.0]]), joint_ids=[0])
    speeds = []
    for _ in range(20):
        sim.step(1)
        speeds.append(float(np.asarray(robot.state.joint_velocities)[0, 0]))
    # a first-order approach to the target velocity: monotone, never past it
    # a first-order approach to the target velocity (the falling pole adds a little drift): never far past it
    assert 0.0 < speeds[0] and max(speeds) < 1.01 and abs(speeds[-1] - 1.0) < 0.01


@pytest.mark.parametrize("group", ["all_joints", ".*"])
def test_actuator_gains_group_keys(group, arm, make, arm_q) -> None:
    robot, sim = make(arm, num_envs=1, disable_gravity=True,
                      actuator_gains={group: simulo.ActuatorGainsConfig(stiffness=0.0, damping=0.0)})
    # zero gains: a pure effort drive, position targets produce no effort
    robot.set_joint_position_target(arm_q[None])
    sim.step(5)
    np.testing.assert_array_equal(np.asarray(robot.state.joint_efforts), np.zeros((1, 7)))
    np.testing.assert_allclose(robot.state.joint_positions, np.zeros((1, 7)), atol=1e-9)


def test_a_position_target_is_reached_in_one_step_on_the_mock(cartpole, make, engine) -> None:
    only(engine, "mock")  # the mock's position motor is ideal
    robot, sim = make(cartpole, num_envs=2, sim={"dt": DT})
    robot.set_joint_position_target(np.array([[0.4], [-0.1]]), joint_ids=[0], env_ids=[1, 0])
    sim.step(1)
    np.testing.assert_array_equal(np.asarray(robot.state.joint_positions)[:, 0], [-0.1, 0.4])
    np.testing.assert_array_equal(robot.state.joint_efforts, np.zeros((2, 2)))  # the mock reports no motor effort


def test_a_position_target_is_approached_by_the_engine_motor_on_pybullet(cartpole, make, engine) -> None:
    only(engine, "pybullet")  # PyBullet's motor is a solver constraint with a force limit: it takes time
    robot, sim = make(cartpole, num_envs=2, sim={"dt": DT})
    robot.set_joint_position_target(np.array([[0.4], [-0.1]]), joint_ids=[0], env_ids=[1, 0])
    sim.step(1)
    q = np.asarray(robot.state.joint_positions)[:, 0]
    assert -0.1 < q[0] < 0.0 and 0.0 < q[1] < 0.4
    efforts = np.asarray(robot.state.joint_efforts)[:, 0]
    assert efforts[0] < 0.0 < efforts[1]  # the motor's applied force is reported
