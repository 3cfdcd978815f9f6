"""``simulo.FrameTransformer``: target poses relative to a source body, with offsets."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError
from simulo.math.batched import pose_inverse, pose_mul

TIP = simulo.SensorOffset(pos=(0.0, 0.0, 0.1), rot=(0.7071068, 0.0, 0.7071068, 0.0))


def test_targets_in_the_source_frame_match_the_bodies_poses(arm, arm_q) -> None:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(arm)
    frames = simulo.FrameTransformer([simulo.FrameTransformerTarget("tcp"),
                                      simulo.FrameTransformerTarget("hand", name="tip", offset=TIP)],
                                     source_offset=simulo.SensorOffset(pos=(0.1, 0.0, 0.0)))
    robot.add_sensor(frames, attach_to="base_link")
    scene.add(robot, at="/World/Arm")
    with simulo.Simulation(scene):
        robot.set_joint_state(np.tile(arm_q, (2, 1)))
        assert frames.target_names == ["tcp", "tip"]
        source = pose_mul(np.asarray(robot.get_root_pose(), dtype=np.float64),
                          np.tile([0.1, 0, 0, 1, 0, 0, 0], (2, 1)))
        hand = np.asarray(robot.get_body_pose("hand"), dtype=np.float64)
        expected = [np.asarray(robot.get_body_pose("tcp"), dtype=np.float64),
                    pose_mul(hand, np.tile(np.array(TIP.pose()), (2, 1)))]
        pos, quat = np.asarray(frames.read_target_pos_source()), np.asarray(frames.read_target_quat_source())
        assert pos.shape == (2, 2, 3) and quat.shape == (2, 2, 4)
        for k, target in enumerate(expected):
            relative = pose_mul(pose_inverse(source), target)
            np.testing.assert_allclose(pos[:, k], relative[:, :3], atol=1e-9)
            np.testing.assert_allclose(np.abs(np.sum(quat[:, k] * relative[:, 3:], axis=1)), 1.0, atol=1e-9)
            np.testing.assert_allclose(np.asarray(frames.read_target_pos_w())[:, k], target[:, :3], atol=1e-9)
        np.testing.assert_allclose(np.asarray(frames.read_source_pos_w()), source[:, :3], atol=1e-12)


def test_bad_targets_raise_naming_them(arm) -> None:
    with pytest.raises(SimuloValueError, match="non-empty list"):
        simulo.FrameTransformer([])
    with pytest.raises(SimuloValueError, match="unique"):
        simulo.FrameTransformer([simulo.FrameTransformerTarget("hand"), simulo.FrameTransformerTarget("hand")])
    robot = simulo.Robot(arm)
    robot.add_sensor(simulo.FrameTransformer([simulo.FrameTransformerTarget("finger_.*")]), attach_to="base_link")
    scene = simulo.Scene()
    scene.add(robot, at="/World/Arm")
    with pytest.raises(SimuloValueError, match="must match one body"):
        simulo.Simulation(scene)
