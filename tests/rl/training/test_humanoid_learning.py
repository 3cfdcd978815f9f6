"""The catalog humanoid learns on PyBullet with the trainer's defaults: its return rises over a short run.

The task is written here for the test, in the spirit of the SDK's humanoid sample and smaller: the humanoid is
rewarded for every step its torso stays up (plus the torso's height, less a little for effort) and the episode
ends when the torso drops below 0.8 m; the actions are the sample's joint torques, each joint's gear times the
action. A random policy falls within about a second.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

import simulo
from simulo.rl.training import RLTrainer

#: The humanoid sample's joint gears (N·m), in the catalog humanoid's joint order.
GEARS = torch.tensor([67.5] * 7 + [45.0, 45.0, 45.0, 135.0, 45.0, 45.0, 135.0, 45.0, 90.0, 90.0] + [22.5] * 4)


class StayUpTask(simulo.Task):
    """Humanoid: torques of gear x action; reward 1 + torso height - 0.01 |action|² per step while it is up."""

    observation_dim, action_dim = 5 + 3 + 3 + 21 + 21 + 21, 21
    episode_length_s = 8.0
    physics_dt = 1.0 / 120.0
    physics_steps_per_action = 2
    env_spacing = 4.0

    def build(self, scene: Any) -> None:
        scene.add(simulo.Terrain.plane(name="ground"), at="/World", per_environment=False)
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/humanoid:v1"))
        scene.add(self.robot, at="/World/Robot")

    def on_start(self, env: Any) -> None:
        self.actions = torch.zeros(self.num_envs, self.action_dim)

    def on_pre_physics_step(self, actions: torch.Tensor) -> None:
        self.actions = actions.clamp(-1.0, 1.0)

    def apply_actions(self, actions: torch.Tensor) -> None:
        self.robot.set_joint_effort_target(GEARS * self.actions)

    def get_observations(self) -> torch.Tensor:
        state = self.robot.state
        return torch.cat([state.pose[:, 2:7], state.linear_velocity, state.angular_velocity, state.joint_positions,
                          0.1 * state.joint_velocities, self.actions], dim=1).float()

    def get_rewards(self) -> torch.Tensor:
        return 1.0 + self.robot.state.pose[:, 2] - 0.01 * self.actions.square().sum(dim=1)

    def get_dones(self) -> Any:
        return self.robot.state.pose[:, 2] < 0.8, self.episode_length_buf >= self.max_episode_length - 1

    def reset_idx(self, env_ids: torch.Tensor) -> None:
        self.robot.reset(env_ids)
        q = self.robot.default_joint_positions[env_ids]
        self.robot.set_joint_state(q + self.random_uniform(-0.1, 0.1, (21,), env_ids), env_ids=env_ids)


@pytest.mark.slow
def test_humanoid_return_rises_on_pybullet(tmp_path: Path) -> None:
    env = simulo.LearningEnv(StayUpTask(), num_envs=32, seed=0, tensor_library="torch", engine="pybullet")
    try:
        trainer = RLTrainer(env, device="cpu", seed=0, checkpoint_dir=tmp_path, progress=False)
        stats = trainer.train(30)
        trainer.close()
    finally:
        env.close()
    history = [r for r in stats["reward_history"] if r is not None]
    assert len(history) >= 25
    # the first iteration sees only the episodes that ended soonest (about 31); a random policy's return is about
    # 42 (it falls within a second), as in iterations 2-6; measured 61 over the last three of 30
    start = max(history[1:6])
    assert sum(history[-3:]) / 3 > start + 12.0, history
