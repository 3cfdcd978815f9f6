"""Bad input to the controllers raises a SimuloError naming the value and what was expected, and changes
nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo
from simulo.sim.controllers import DifferentialIKControllerCfg, OperationalSpaceControllerCfg

from .arm import ARM_JOINTS, EE, targets

IK = simulo.DifferentialIKController
OSC = simulo.OperationalSpaceController


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"ik_method": "newton"}, r"ik_method must be one of \['pinv', 'svd', 'trans', 'dls'\], got 'newton'"),
    ({"command_type": "twist"}, r"command_type must be one of \['position', 'pose'\], got 'twist'"),
    ({"ik_method": "dls", "ik_params": {"k_val": 2.0}}, r"ik_params \['k_val'\] are not parameters of ik_method='dls'"),
    ({"ik_method": "svd", "ik_params": {"min_singular_value": -1.0}}, r"ik_params\['min_singular_value'\] must be"),
    ({"ik_method": "trans", "ik_params": {"k_val": float("nan")}}, r"ik_params\['k_val'\] must be a finite number"),
    ({"use_relative_mode": "yes"}, "use_relative_mode must be True or False"),
    ({"frame": "tool"}, r"frame must be one of \['base', 'world'\], got 'tool'"),
    ({"end_effector": ""}, "end_effector must be a body name"),
])
def test_bad_ik_settings_are_refused_at_construction(arm4: Any, kwargs: dict[str, Any], message: str) -> None:
    robot, _ = arm4
    args = {"robot": robot, "end_effector": EE, "joints": ARM_JOINTS, **kwargs}
    with pytest.raises(simulo.SimuloValueError, match=message):
        IK(**args)


def test_ik_config_is_frozen_and_fills_the_method_defaults() -> None:
    cfg = DifferentialIKControllerCfg(command_type="position", ik_method="svd", ik_params={"k_val": 0.5})
    assert dict(cfg.ik_params or {}) == {"k_val": 0.5, "min_singular_value": 1e-5}
    assert cfg.action_dim == 3
    with pytest.raises(AttributeError):
        cfg.ik_method = "dls"  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.ik_params["k_val"] = 2.0  # type: ignore[index]


def test_not_a_robot_and_unknown_names(arm4: Any) -> None:
    robot, _ = arm4
    with pytest.raises(simulo.SimuloValueError, match="robot must be a simulo.Robot, got str"):
        IK("robot", EE, ARM_JOINTS)  # type: ignore[arg-type]
    with pytest.raises(simulo.NameNotFoundError, match=r"end_effector 'gripper' is not a body of robot 'Robot'; "
                                                      r"available bodies: \['base_link', 'turret'"):
        IK(robot, "gripper", ARM_JOINTS)
    with pytest.raises(simulo.NameNotFoundError, match="no joint matches 'panda_joint.*'"):
        OSC(robot, EE, "panda_joint.*")


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda c, p, q: c.move_to(p[:3]), simulo.ShapeError, r"position must have shape \(4, 3\) or \(3,\), got \(3, 3\)"),
    (lambda c, p, q: c.move_to(p, q[:, :3]), simulo.ShapeError, r"orientation must have shape \(4, 4\)"),
    (lambda c, p, q: c.move_to(np.where(np.arange(4)[:, None] == 2, np.nan, p), q), simulo.NonFiniteError,
     r"position contains a non-finite value nan at index \[2, 0\]"),
    (lambda c, p, q: c.move_to(p, np.zeros((4, 4))), simulo.SimuloValueError, "orientation at index .* has non-zero|"
     "expected \\[qw, qx, qy, qz\\] of non-zero length"),
    (lambda c, p, q: c.move_to(p[:2], q[:2], env_ids=[1, 4]), simulo.EnvIdError, r"env_ids \[4\] out of range"),
    (lambda c, p, q: c.move_to(p[:2], q[:2], env_ids=[1, 1]), simulo.EnvIdError, r"env_ids repeats \[1\]"),
    (lambda c, p, q: c.set_command(np.zeros((4, 6))), simulo.ShapeError, r"command must have shape \(4, 7\)"),
    (lambda c, p, q: c.set_command(np.concatenate([p, q * 0], 1)), simulo.SimuloValueError,
     "command quaternion at index"),
])
def test_bad_ik_commands_raise_and_change_nothing(arm4: Any, call: Any, error: type, message: str) -> None:
    robot, sim = arm4
    pos, quat = targets(robot)
    ik = IK(robot, EE, ARM_JOINTS, command_type="pose")
    ik.move_to(pos, quat)
    before = np.asarray(ik.desired_pose).copy()
    sim.step()
    q_before = np.asarray(robot.get_joint_state()[0]).copy()
    with pytest.raises(error, match=message):
        call(ik, pos, quat)
    np.testing.assert_array_equal(np.asarray(ik.desired_pose), before)
    np.testing.assert_array_equal(np.asarray(robot.get_joint_state()[0]), q_before)


def test_orientation_for_a_position_controller_is_refused(arm4: Any) -> None:
    robot, _ = arm4
    pos, quat = targets(robot)
    ik = IK(robot, EE, ARM_JOINTS, command_type="position")
    with pytest.raises(simulo.SimuloValueError, match="orientation is tracked only by command_type='pose'"):
        ik.move_to(pos, quat)
    assert np.isnan(np.asarray(ik.desired_pose)).all()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"target_types": ("wrench_abs",)}, r"target_types must be \('pose_abs',\) or \('pose_rel',\)"),
    ({"target_types": ("pose_abs", "pose_rel")}, "target_types must be"),
    ({"motion_control_axes": (1, 1, 1)}, "motion_control_axes must be six 0/1 flags"),
    ({"motion_control_axes": (0,) * 6}, "with at least one 1"),
    ({"motion_stiffness": -5.0}, r"motion_stiffness\[0\] must be a finite number >= 0, got -5.0"),
    ({"motion_damping_ratio": (1.0, 1.0)}, "motion_damping_ratio must be a number or 6 numbers"),
    ({"impedance_mode": "adaptive"}, r"impedance_mode must be one of \['fixed', 'variable_kp', 'variable'\]"),
    ({"nullspace_control": "velocity"}, r"nullspace_control must be one of \['none', 'position'\]"),
    ({"motion_stiffness_limits": (10.0, 1.0)}, "min <= max"),
    ({"gravity_compensation": 1}, "gravity_compensation must be True or False"),
    ({"stiffness": 10.0}, r"unknown settings \['stiffness'\]"),
    ({"nullspace_control": "position"}, "needs more joints than controlled axes; .* matches 5 joints for 6 axes"),
])
def test_bad_osc_settings_are_refused(arm4: Any, kwargs: dict[str, Any], message: str) -> None:
    robot, _ = arm4
    with pytest.raises(simulo.SimuloValueError, match=message):
        OSC(robot, EE, ARM_JOINTS, **kwargs)


def test_osc_config_resolves_scalars_to_six_axes() -> None:
    cfg = OperationalSpaceControllerCfg(motion_stiffness=50.0, impedance_mode="variable")
    assert cfg.motion_stiffness == (50.0,) * 6 and cfg.action_dim == 19


def test_bad_osc_commands_raise_and_change_nothing(arm4: Any) -> None:
    robot, _ = arm4
    pos, quat = targets(robot)
    osc = OSC(robot, EE, ARM_JOINTS, impedance_mode="variable_kp")
    osc.set_command(np.concatenate([pos, quat, np.full((4, 6), 50.0)], axis=1))
    before, tau = np.asarray(osc.desired_pose).copy(), np.asarray(osc.compute()).copy()
    with pytest.raises(simulo.ShapeError, match=r"command must have shape \(4, 13\) or \(13,\), got \(4, 7\)"):
        osc.set_command(np.concatenate([pos, quat], axis=1))
    with pytest.raises(simulo.NonFiniteError, match="command contains a non-finite value inf"):
        osc.set_command(np.concatenate([pos, quat, np.full((4, 6), np.inf)], axis=1))
    with pytest.raises(simulo.ShapeError, match=r"joint_positions must have shape \(2, 5\)"):
        osc.set_nullspace_target(np.zeros((2, 4)), env_ids=[0, 3])
    np.testing.assert_array_equal(np.asarray(osc.desired_pose), before)
    np.testing.assert_array_equal(np.asarray(osc.compute()), tau)
