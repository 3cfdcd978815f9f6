"""Drive a USD race car (the SDK samples' F1TENTH, ``robot/f1tenth:v1``) straight ahead at a set speed.

Observations: forward and sideways speed in the car's frame, yaw rate, and the two steering angles.
Actions: throttle in [-1, 1] (a wheel speed of up to 40 rad/s) and steering in [-1, 1] (up to 0.4 rad).
"""

import torch

import simulo


class UsdCarTask(simulo.Task):
    """Hold 1.5 m/s forward with little yaw: a short job that puts a USD articulation through training."""

    observation_dim = 5
    action_dim = 2
    episode_length_s = 2.0
    physics_dt = 1.0 / 120.0
    physics_steps_per_action = 4

    wheel_speed = 40.0  # rad/s
    steer_angle = 0.4  # rad
    target_speed = 1.5  # m/s

    def build(self, scene):
        self.robot = simulo.Robot(asset=simulo.Asset.from_registry("robot/f1tenth:v1"))
        scene.add(self.robot, at="/World/Car")
        scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)

    def on_start(self, env):
        names = self.robot.get_joint_names()
        self._wheels = [i for i, name in enumerate(names) if name.startswith("wheel")]
        self._steering = [i for i, name in enumerate(names) if name.startswith("rotator")]
        self.actions = torch.zeros(self.num_envs, self.action_dim)

    def on_pre_physics_step(self, actions):
        self.actions = actions.clamp(-1.0, 1.0)

    def apply_actions(self, actions):
        throttle = self.wheel_speed * self.actions[:, :1].expand(-1, len(self._wheels))
        steer = self.steer_angle * self.actions[:, 1:].expand(-1, len(self._steering))
        self.robot.set_joint_velocity_target(throttle, joint_ids=self._wheels)
        self.robot.set_joint_position_target(steer, joint_ids=self._steering)

    def _motion(self):
        velocity = self.robot.state.linear_velocity_in_base_frame
        yaw_rate = self.robot.state.angular_velocity_in_base_frame[:, 2]
        return velocity[:, 0], velocity[:, 1], yaw_rate

    def get_observations(self):
        forward, sideways, yaw_rate = self._motion()
        steering = self.robot.state.joint_positions[:, self._steering]
        return torch.cat([torch.stack([forward, sideways, yaw_rate], dim=1), steering], dim=1).float()

    def get_rewards(self):
        forward, sideways, yaw_rate = self._motion()
        return (1.0 - (forward - self.target_speed).abs() - 0.2 * sideways.abs() - 0.1 * yaw_rate.abs()).float()

    def get_dones(self):
        upside_down = self.robot.state.pose[:, 2] < -0.5
        truncated = self.episode_length_buf >= self.max_episode_length - 1
        return {"left the ground": upside_down}, truncated

    def reset_idx(self, env_ids):
        self.robot.reset(env_ids)
