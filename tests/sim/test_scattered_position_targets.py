"""New position targets reach joints whose position motors are not one run of columns, while another joint's
velocity target is rewritten every step (the flush then sends everything again)."""

from __future__ import annotations

import numpy as np
import pytest

import simulo


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_position_targets_on_scattered_joints_follow_a_change_of_value(engine: str) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/pick_arm:v1"))
    scene.add(robot, at="/World/Arm")
    with simulo.Simulation(scene, engine=engine) as sim:
        scattered = [0, 2]  # position motors on columns 0 and 2, a velocity motor on column 1 between them
        for k in range(240):
            robot.set_joint_velocity_target(np.zeros((2, 1)), joint_ids=[1])
            robot.set_joint_position_target(np.full((2, 2), 0.3 if k >= 60 else 0.0), joint_ids=scattered)
            sim.step()
        q = np.asarray(robot.state.joint_positions)[:, scattered]
    np.testing.assert_allclose(q, 0.3, atol=0.02)
