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
    data = robot._rt
    assert data is not None
    assert data.batch.reports_all_efforts is (engine == "mujoco")
    assert bool(data.effort_overrides) is not data.batch.reports_all_efforts
    np.testing.assert_array_equal(robot.state.joint_efforts, [[3.0, 0.0]])
