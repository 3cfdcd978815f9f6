"""The controllers on a 7-joint arm: the catalog Franka Panda, as the SDK's franka-reach samples drive it.

Skipped while the local catalog has no ``simulo/robot/franka-panda:v1``. Targets are forward kinematics
of postures near a home posture, one per environment.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo

from .arm import TOLERANCE, angle_error

PANDA_HOME = np.array([0.0, -0.5, 0.0, -2.2, 0.0, 1.7, 0.785, 0.02, 0.02])
PANDA_OFFSETS = np.array([[0.3, 0.2, -0.3, 0.25, 0.2, -0.2, 0.3],
                          [-0.35, -0.25, 0.3, -0.2, -0.3, 0.25, -0.2],
                          [0.2, 0.35, 0.2, 0.3, -0.25, 0.2, 0.1],
                          [-0.2, 0.1, -0.25, -0.3, 0.3, -0.3, -0.3]])
HAND = "panda_hand"
ARM = "panda_joint[1-7]"


@pytest.fixture
def panda4(make: Any) -> tuple[simulo.Robot, simulo.Simulation, np.ndarray, np.ndarray]:
    """Four Pandas at home (holding it with position targets) and a hand target for each, base frame."""
    try:
        asset = simulo.Asset.from_registry("simulo/robot/franka-panda:v1")
    except simulo.AssetError:
        pytest.skip("the local catalog has no simulo/robot/franka-panda:v1 yet")
    robot, sim = make(asset, num_envs=4)
    q = np.tile(PANDA_HOME, (4, 1))
    q[:, :7] += PANDA_OFFSETS
    robot.set_joint_state(q)
    pos, quat = (np.array(a) for a in robot.get_body_pose_in_base_frame(HAND))
    robot.set_joint_state(np.tile(PANDA_HOME, (4, 1)))
    robot.set_joint_position_target(np.tile(PANDA_HOME, (4, 1)))
    return robot, sim, pos, quat


def hand(robot: simulo.Robot) -> tuple[np.ndarray, np.ndarray]:
    pos, quat = robot.get_body_pose_in_base_frame(HAND)
    return np.array(pos), np.array(quat)


def run(sim: simulo.Simulation, robot: simulo.Robot, control: Any, pos_des: np.ndarray, steps: int) -> np.ndarray:
    """First step (1-based) each environment's hand is within TOLERANCE of its target; -1 if never."""
    reached = np.full(4, -1)
    for step in range(steps):
        control(step)
        sim.step()
        close = np.linalg.norm(hand(robot)[0] - pos_des, axis=1) < TOLERANCE
        reached[(reached < 0) & close] = step + 1
    return reached


# measured (this catalog model, PyBullet's position motor): dls/pinv/svd 35-50 steps; trans position at
# k_val=4: 80-115 steps
@pytest.mark.parametrize(("method", "params", "command_type", "steps"), [
    ("dls", None, "pose", 120), ("pinv", None, "pose", 120), ("svd", None, "pose", 120),
    ("dls", None, "position", 120), ("trans", {"k_val": 4.0}, "position", 240),
])
def test_ik_reaches_hand_targets(panda4: Any, method: str, params: Any, command_type: str, steps: int) -> None:
    robot, sim, pos_des, quat_des = panda4
    assert np.linalg.norm(hand(robot)[0] - pos_des, axis=1).min() > 0.04
    ik = simulo.DifferentialIKController(robot=robot, end_effector=HAND, joints=ARM, ik_method=method,
                                         command_type=command_type, ik_params=params)
    orientation = quat_des if command_type == "pose" else None
    reached = run(sim, robot, lambda _: ik.move_to(pos_des, orientation=orientation), pos_des, steps)
    pos, quat = hand(robot)
    print(method, command_type, "steps to 5 mm", reached, "final mm", 1000 * np.linalg.norm(pos - pos_des, axis=1))
    assert (reached > 0).all() and np.linalg.norm(pos - pos_des, axis=1).max() < 1e-3
    if command_type == "pose":
        assert angle_error(quat, quat_des).max() < np.radians(0.5)


def test_osc_reaches_the_targets_and_the_nullspace_law_chooses_the_posture(panda4: Any) -> None:
    robot, sim, pos_des, quat_des = panda4
    home = np.tile(PANDA_HOME, (4, 1))
    # the postures the targets came from: the only self-motion (elbow) choice the posture law accepts
    posture = home[:, :7] + PANDA_OFFSETS
    distance = {}
    for mode in ("none", "position"):
        robot.reset()
        robot.set_joint_state(home)
        osc = simulo.OperationalSpaceController(robot, HAND, ARM, nullspace_control=mode)
        if mode == "position":
            osc.set_nullspace_target(posture)
        reached = run(sim, robot, lambda s: osc.move_to(pos_des, quat_des) if s == 0 else osc.apply(),  # noqa: B023
                      pos_des, 480)
        pos, quat = hand(robot)
        print(mode, "steps to 5 mm", reached, "final mm", 1000 * np.linalg.norm(pos - pos_des, axis=1))
        assert ((reached > 0) & (reached <= 240)).all() and np.linalg.norm(pos - pos_des, axis=1).max() < 1e-3
        assert angle_error(quat, quat_des).max() < np.radians(0.5)
        distance[mode] = np.abs(np.asarray(robot.get_joint_state()[0])[:, :7] - posture).max(axis=1)
    print("largest joint distance to the targets' postures (rad)", distance)
    assert distance["position"].max() < 0.05 < distance["none"].min()


def test_the_franka_reach_sample_flow(make: Any) -> None:
    """The sample's controller and calls: goals from its goal box, the hand pointing down ``(0, 1, 0, 0)``.

    The arm starts at Isaac Lab's Panda home posture: from the all-zero posture (stretched straight up, a
    singular posture with ``panda_joint4`` outside its limits) one DLS step per control step swings wildly.
    """
    try:
        franka = simulo.Asset.from_registry("simulo/robot/franka-panda:v1")
    except simulo.AssetError:
        pytest.skip("the local catalog has no simulo/robot/franka-panda:v1 yet")
    home = [0.0, -0.569, 0.0, -2.810, 0.0, 3.037, 0.741, 0.04, 0.04]
    robot, sim = make(franka, num_envs=4, initial_pose=simulo.Pose.identity(),
                      articulation=simulo.ArticulationConfig(default_joint_positions=home))
    ik = simulo.DifferentialIKController(robot=robot, end_effector="panda_hand", joints="panda_joint.*",
                                         ik_method="dls", command_type="pose")
    assert len(ik.joint_ids) == 7  # the fingers are not panda_joint<n>
    goals = np.array([[0.475, 0.0, 0.35], [0.40, -0.20, 0.25], [0.60, 0.20, 0.45], [0.35, 0.25, 0.20]])
    down = (0.0, 1.0, 0.0, 0.0)
    reached = run(sim, robot, lambda _: ik.move_to(goals, orientation=down), goals, 120)
    pos, quat = hand(robot)
    print("sample flow: steps to 5 mm", reached, "final mm", 1000 * np.linalg.norm(pos - goals, axis=1))
    assert (reached > 0).all() and np.linalg.norm(pos - goals, axis=1).max() < 1e-3
    assert angle_error(quat, np.tile(down, (4, 1))).max() < np.radians(0.5)
