"""``state.joint_efforts`` on every engine: a torque-driven joint reads the torque applied (after its effort limit),
a passive joint reads zero, a motor joint its motor's effort, whichever layer writes those entries: the sim layer
after each read, or the engine's read itself where it reports every joint's effort (``reports_all_efforts``)."""

from __future__ import annotations

import numpy as np

import simulo

DT = 1.0 / 120.0
LIMITED = [simulo.JointConfig(name="slider_to_cart", type="prismatic", effort_limit=5.0)]


def test_torque_driven_and_passive_joints_read_the_applied_torque_and_zero(cartpole, make, engine) -> None:
    robot, sim = make(cartpole, num_envs=2, sim={"dt": DT}, joint_config=LIMITED)
    for k in range(6):  # new torques every step: what is read is this step's
        torques = np.array([[1.0 + k], [-9.0 - k]])
        robot.set_joint_effort_target(torques, joint_ids=[0])
        sim.step()
        np.testing.assert_array_equal(robot.state.joint_efforts, [[min(1.0 + k, 5.0), 0.0], [-5.0, 0.0]])
    robot.set_joint_position_target(np.array([[0.2], [0.2]]), joint_ids=[1], env_ids=[1, 0])  # the pole: a motor
    robot.set_joint_effort_target(np.array([[2.0], [-2.0]]), joint_ids=[0])
    sim.step()
    efforts = np.asarray(robot.state.joint_efforts)
    np.testing.assert_array_equal(efforts[:, 0], [2.0, -2.0])  # the cart still takes its torque beside a motor
    if engine != "mock":  # (the mock's ideal motor reports no effort)
        assert np.all(efforts[:, 1] != 0.0)  # the pole's motor pushes towards its target


def test_the_sim_layer_writes_those_efforts_only_for_an_engine_that_does_not(cartpole, make, engine) -> None:
    robot, sim = make(cartpole, num_envs=1, sim={"dt": DT})
    robot.set_joint_effort_target(np.array([[3.0]]), joint_ids=[0])
    sim.step()
    data = robot._data
    assert data is not None
    assert data.batch.reports_all_efforts is (engine in ("mujoco", "mujoco_warp", "mujoco_warp_copies"))
    assert bool(data.effort_overrides) is not data.batch.reports_all_efforts
    np.testing.assert_array_equal(robot.state.joint_efforts, [[3.0, 0.0]])


def test_a_decimated_torque_loop_reads_the_joints_once_per_control_step(cartpole, make, engine,
                                                                        record_calls) -> None:
    # new efforts before each of two physics steps, the state read once after both (a task's decimation loop):
    # the efforts the first step ran with need no engine read of their own unless the engine's read reports them
    # from the commands the second flush overwrites
    robot, sim = make(cartpole, num_envs=2, sim={"dt": DT}, joint_config=LIMITED)
    data = robot._data
    assert data is not None
    reads = record_calls(data.batch, ("read_joints",))
    for k in range(5):
        for sub in range(2):
            robot.set_joint_effort_target(np.array([[0.5 * k + sub], [-1.0 - sub]]), joint_ids=[0])
            sim.step()
        efforts = np.array(robot.state.joint_efforts)  # a copy: a view kept here would be refreshed every step
        np.testing.assert_array_equal(efforts, [[min(0.5 * k + 1, 5.0), 0.0], [-2.0, 0.0]])  # the second step's
    assert len(reads) == (10 if data.batch.reports_all_efforts else 5)


def test_a_read_between_a_flush_and_its_step_reports_the_last_steps_efforts(cartpole, make, engine) -> None:
    robot, sim = make(cartpole, num_envs=1, sim={"dt": DT})
    for first_read in (False, True):
        robot.set_joint_effort_target(np.array([[1.0]]), joint_ids=[0])
        sim.step()
        if first_read:  # the last step's efforts already read before the flush
            np.testing.assert_array_equal(robot.state.joint_efforts, [[1.0, 0.0]])
        robot.set_joint_effort_target(np.array([[2.0]]), joint_ids=[0])
        sim.scene.flush_pending_commands()  # the new torque is sent; the step it is for has not run yet
        np.testing.assert_array_equal(robot.state.joint_efforts, [[1.0, 0.0]])
        sim.step()
        np.testing.assert_array_equal(robot.state.joint_efforts, [[2.0, 0.0]])
        sim.step()  # the same torque again, with no new target
        np.testing.assert_array_equal(robot.state.joint_efforts, [[2.0, 0.0]])
