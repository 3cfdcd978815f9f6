"""Drives return their command block for the coming step; they write nothing into the robot's arrays."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from simulo.authoring.config import ActuatorGainsConfig, MotorGainsConfig
from simulo.engine.base import ControlMode
from simulo.sim.drives import DriveInputs, StiffnessDrive
from simulo.sim.robot_setup import build_drives

NAN = np.nan


def _data(eff_t: np.ndarray, limit: np.ndarray) -> SimpleNamespace:
    """The part of a robot's data the drives read: 2 environments, 3 joints at rest, unit mass matrices."""
    n, j = eff_t.shape
    batch = SimpleNamespace(mass_matrices=lambda q: np.tile(np.eye(j), (n, 1, 1)))
    return SimpleNamespace(eff_t=eff_t, q=np.zeros((n, j)), qd=np.zeros((n, j)), physics_dt=0.01, batch=batch,
                           effort_limit=limit, motor_pos_gain=np.zeros((n, j)), motor_vel_gain=np.zeros((n, j)),
                           motor_force=np.zeros((n, j)), pos_t=np.array([[0.5, NAN, NAN], [NAN, NAN, 1.0]]))


def _inputs(data: SimpleNamespace, vel_t: np.ndarray) -> DriveInputs:
    pos_set, vel_set, eff_set = data.pos_t == data.pos_t, vel_t == vel_t, data.eff_t == data.eff_t
    return DriveInputs(pos_set, vel_set, eff_set, np.where(vel_set, vel_t, 0.0), True)


def test_the_engine_motor_returns_modes_position_over_velocity_over_effort_and_clipped_efforts() -> None:
    limit = np.array([10.0, 10.0, 10.0])
    data = _data(np.array([[3.0, 50.0, NAN], [NAN, -2.0, 4.0]]), limit)
    (motor,) = build_drives(["a", "b", "c"], limit, None)
    motor.configure(data)
    commands = motor.compute(data, _inputs(data, np.array([[NAN, NAN, 1.0], [2.0, NAN, NAN]])))
    m = ControlMode
    assert commands.mode.tolist() == [[m.POSITION_MOTOR, m.TORQUE, m.VELOCITY_MOTOR],
                                      [m.VELOCITY_MOTOR, m.TORQUE, m.POSITION_MOTOR]]
    np.testing.assert_array_equal(commands.torque, [[3.0, 10.0, 0.0], [0.0, -2.0, 4.0]])
    assert data.motor_force.tolist() == [[10.0] * 3] * 2 and data.motor_pos_gain.tolist() == [[0.1] * 3] * 2


def test_two_drives_split_the_columns_and_the_pd_drive_returns_torques_for_its_own() -> None:
    limit = np.array([100.0, 100.0, 1.0])
    gains = {"c": ActuatorGainsConfig(stiffness=40.0, damping=0.0), "a": MotorGainsConfig(position_gain=0.3)}
    data = _data(np.full((2, 3), NAN), limit)
    motor, pd = build_drives(["a", "b", "c"], limit, gains)
    motor.configure(data)
    pd.configure(data)
    inputs = _inputs(data, np.full((2, 3), NAN))
    assert motor.cols.tolist() == [0, 1] and pd.cols.tolist() == [2]
    mc, pc = motor.compute(data, inputs), pd.compute(data, inputs)
    assert mc.mode.shape == (2, 2) and pc.mode.shape == (2, 1)
    assert pc.mode[:, 0].tolist() == [ControlMode.PASSIVE, ControlMode.TORQUE]  # a target only in env 1
    # env 1: 40 * (1.0 - 0) / (1 + 0.01 * 0.01 * 40 / 1) = 39.84..., saturated at the joint's limit of 1 N·m
    np.testing.assert_array_equal(pc.torque[:, 0], [0.0, 1.0])
    assert data.motor_pos_gain[0].tolist() == [0.3, 0.1, 0.0]


def test_set_joint_gains_asks_each_drive_whether_it_has_a_stiffness() -> None:
    """Only the PD law has gains ``set_joint_gains`` may set; the engine motor's solver gains are not a stiffness."""
    gains = {"c": ActuatorGainsConfig(stiffness=40.0, damping=0.0)}
    motor, pd = build_drives(["a", "b", "c"], np.array([100.0, 100.0, 1.0]), gains)
    assert not isinstance(motor, StiffnessDrive) and isinstance(pd, StiffnessDrive)
