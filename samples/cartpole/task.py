"""Cartpole balancing task: push the cart so the pole stays upright.

Observations: pole angle, pole angular velocity, cart position, cart velocity.
Action: one value in [-1, 1], scaled to a force of up to 100 N on the cart.
"""

import math

import torch

import simulo


class CartpoleTask(simulo.Task):
    """Balance a pole on a cart with forces on the cart's slider joint."""

    observation_dim = 4
    action_dim = 1
    episode_length_s = 5.0
    physics_dt = 1.0 / 120.0
    physics_steps_per_action = 2

    action_scale = 100.0  # N
    max_cart_pos = 3.0  # m
    initial_pole_angle_range = (-0.25 * math.pi, 0.25 * math.pi)
    rew_alive = 1.0
    rew_terminated = -2.0
    rew_pole_angle = -1.0
    rew_cart_vel = -0.01
    rew_pole_vel = -0.005

    def build(self, scene):
        cartpole = simulo.Asset.from_registry("simulo/robot/cartpole:v1")
        self.robot = simulo.Robot(asset=cartpole, initial_pose=simulo.Pose.identity())
        scene.add(self.robot, at="/World/Robot")
        scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)

    def on_start(self, env):
        self._cart_dof_idx = self.robot.find_joints("slider_to_cart")
        self._pole_dof_idx = self.robot.find_joints("cart_to_pole")
        self.actions = torch.zeros(self.num_envs, self.action_dim)

    def on_pre_physics_step(self, actions):
        self.actions = actions.clamp(-1.0, 1.0)

    def apply_actions(self, actions):
        self.robot.set_joint_effort_target(self.action_scale * self.actions, joint_ids=self._cart_dof_idx)

    def _joint_state(self):
        q = self.robot.state.joint_positions
        qd = self.robot.state.joint_velocities
        cart, pole = self._cart_dof_idx[0], self._pole_dof_idx[0]
        return q[:, cart], qd[:, cart], q[:, pole], qd[:, pole]

    def get_observations(self):
        cart_pos, cart_vel, pole_pos, pole_vel = self._joint_state()
        return torch.stack([pole_pos, pole_vel, cart_pos, cart_vel], dim=1).float()

    def get_rewards(self):
        _cart_pos, cart_vel, pole_pos, pole_vel = self._joint_state()
        terminated = self.reset_terminated.float()
        return (self.rew_alive * (1.0 - terminated)
                + self.rew_terminated * terminated
                + self.rew_pole_angle * pole_pos ** 2
                + self.rew_cart_vel * cart_vel.abs()
                + self.rew_pole_vel * pole_vel.abs()).float()

    def get_dones(self):
        cart_pos, _, pole_pos, _ = self._joint_state()
        out_of_bounds = cart_pos.abs() > self.max_cart_pos
        fell = pole_pos.abs() > math.pi / 2
        truncated = self.episode_length_buf >= self.max_episode_length - 1
        return {"cart out of bounds": out_of_bounds, "pole fell": fell}, truncated

    def reset_idx(self, env_ids):
        self.robot.reset(env_ids)  # default pose and joint state, targets cleared
        positions = self.robot.default_joint_positions[env_ids]
        velocities = self.robot.default_joint_velocities[env_ids]
        low, high = self.initial_pole_angle_range
        positions[:, self._pole_dof_idx] += self.random_uniform(low, high, (1,), env_ids=env_ids).double()
        self.robot.set_joint_state(positions, velocities, env_ids=env_ids)
