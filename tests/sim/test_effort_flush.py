"""A flush of new effort targets alone sends only the torques (``apply_efforts``), beside a position motor that
runs in every environment, and moves the robot as full flushes do; new position targets as well take ``apply``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo
from simulo.sim.command_changes import EFFORTS


def _run(engine: str, full: bool, record_calls: Any) -> tuple[bytes, list[str]]:
    """40 steps of the cartpole: its cart on a position motor, its pole on efforts (new ones every step, new cart
    targets every tenth step); ``full`` makes every flush take the drives' path."""
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
    scene.add(robot, at="/World/Cartpole")
    with simulo.Simulation(scene, engine=engine) as sim:
        robot.set_joint_position_target(np.full((2, 1), 0.1), joint_ids=[0])
        robot.set_joint_effort_target(np.zeros((2, 1)), joint_ids=[1])
        sim.step()  # a full flush: the cart's motor and the pole's torque now run in both environments
        calls = record_calls(robot.data.batch, ("apply", "apply_positions", "apply_efforts"))
        for k in range(40):
            robot.set_joint_effort_target(np.array([[2.0 * np.sin(0.2 * k)], [-1.0 + 0.05 * k]]), joint_ids=[1])
            if k % 10 == 5:
                robot.set_joint_position_target(np.array([[0.1 + 0.01 * k], [-0.2]]), joint_ids=[0])
            if full:
                robot.data.changes.note(EFFORTS)  # the same targets through the drives
            sim.step()
        state = robot.state
        arrays = [np.asarray(a) for a in (state.joint_positions, state.joint_velocities, state.joint_efforts)]
        assert abs(arrays[0][0, 0] - 0.1) > 0.01 and abs(arrays[0][1, 1]) > 1e-3  # the cart and the pole moved
        return b"".join(a.tobytes() for a in arrays), calls


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_new_efforts_alone_send_only_torques_and_act_as_full_flushes_do(engine: str, record_calls: Any) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    state, calls = _run(engine, full=False, record_calls=record_calls)
    full_state, full_calls = _run(engine, full=True, record_calls=record_calls)
    assert calls == ["apply" if k % 10 == 5 else "apply_efforts" for k in range(40)]
    assert full_calls == ["apply"] * 40
    assert state == full_state
