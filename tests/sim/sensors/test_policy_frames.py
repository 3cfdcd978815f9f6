"""A LearningEnv with cameras is the SDK's PolicyFrameSource: policy camera names, snapshots, refreshes."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import NameNotFoundError
from simulo.interfaces.runtime.policy_frames import PolicyFrameSource

SIZE = 24


class CubeWatch(simulo.Task):
    """A red cube in front of a policy camera; ``reset_idx`` puts it at a height the test chooses."""

    observation_dim = 1
    action_dim = 1
    episode_length_s = 0.01  # one step: every step ends every episode
    env_spacing = 0.5  # neighbours in plain view unless each camera hides them

    def __init__(self) -> None:
        self.height = 0.3

    def build(self, scene: simulo.Scene) -> None:
        self.cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.2,) * 3, pose=simulo.Pose.from_xyz(1.0, 0.0, 0.3),
                                              material=simulo.Material(color=(1.0, 0.0, 0.0)),
                                              physics=simulo.RigidPhysics(kinematic=True)))
        scene.add(self.cube, at="/World/cube")
        look = simulo.SensorOffset.look_at(pos=(0.0, 0.0, 0.3), target=(1.0, 0.0, 0.3))
        self.camera = simulo.Camera(width=SIZE, height=SIZE, offset=look, purpose="policy")
        scene.add(self.camera, at="/World/policy_camera")
        scene.add(simulo.Camera(width=SIZE, height=SIZE, offset=look), at="/World/observer")

    def get_observations(self):
        return np.zeros((self.num_envs, 1))

    def get_rewards(self):
        return np.zeros(self.num_envs)

    def apply_actions(self, actions):
        pass

    def get_dones(self):
        self.camera.read_rgb()  # drawn after physics, before the reset that follows
        return np.zeros(self.num_envs, dtype=bool), np.zeros(self.num_envs, dtype=bool)

    def reset_idx(self, env_ids):
        ids = np.asarray(env_ids)
        poses = np.tile([1.0, 0.0, self.height, 1.0, 0.0, 0.0, 0.0], (len(ids), 1))
        poses[:, :3] += np.asarray(self.env.scene.env_origins)[ids]
        self.cube.set_pose(poses, env_ids=ids)


def _cube_row(frame: np.ndarray) -> float:
    ys, _ = np.nonzero((frame[..., 0] > 150) & (frame[..., 1] < 80))
    return float(ys.mean())


@pytest.fixture
def env():
    made = simulo.LearningEnv(CubeWatch(), num_envs=3, enable_cameras=True, tensor_library="numpy",
                              envs_per_world=3)
    made.reset()
    yield made
    made.close()


def test_the_env_is_a_policy_frame_source_of_its_policy_cameras(env) -> None:
    assert isinstance(env, PolicyFrameSource)
    assert env.camera_names == ("policy_camera",)
    frames = env.read_policy_frames("policy_camera")
    assert frames.shape == (3, SIZE, SIZE, 3) and frames.dtype == np.uint8 and frames.flags["C_CONTIGUOUS"]
    for k in range(1, 3):  # every environment sees its own cube only, the same picture
        np.testing.assert_array_equal(frames[k], frames[0])
    np.testing.assert_array_equal(env.read_policy_frames("policy_camera", [2, 0]), frames[[2, 0]])
    with pytest.raises(NameNotFoundError, match="no policy camera named 'observer'"):
        env.read_policy_frames("observer")


def test_snapshots_never_change_and_a_refresh_redraws_only_its_rows(env) -> None:
    before = env.read_policy_frames("policy_camera")
    kept = before.copy()
    env.task.height = 0.45
    env.task.reset_idx(np.array([1]))  # moved without a physics step
    env.refresh_policy_frames(np.array([1]))
    after = env.read_policy_frames("policy_camera")
    np.testing.assert_array_equal(before, kept)  # the earlier snapshot is untouched
    np.testing.assert_array_equal(after[[0, 2]], kept[[0, 2]])  # bit-identical rows
    assert _cube_row(after[1]) < _cube_row(kept[1]) - 1  # the raised cube sits higher in the image


def test_environments_reset_by_a_step_are_redrawn_before_their_next_observation(env) -> None:
    low = env.read_policy_frames("policy_camera")
    env.task.height = 0.45
    env.step(np.zeros((3, 1)))  # get_dones draws the cube low; the resets then raise it
    high = env.read_policy_frames("policy_camera")
    for k in range(3):
        assert _cube_row(high[k]) < _cube_row(low[k]) - 1
