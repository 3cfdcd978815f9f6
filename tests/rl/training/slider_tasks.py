"""The catalog cartpole's cart pushed along its rail, as test tasks: a plain one, and one whose policy and
critic read their own inputs under a ``policy_input_schema`` (the trainer's tests and the env runners' tests)."""

from __future__ import annotations

from typing import Any

import torch

import simulo

#: The critic's constant marker input, and the observation value that must reach no network under a schema.
MARKER, UNUSED = 7.0, -123.0


class Slider(simulo.Task):
    """The cart pushed along its rail; reward for staying near the middle; 12-step episodes."""

    observation_dim, action_dim = 2, 1
    episode_length_s = 0.2

    def build(self, scene: Any) -> None:
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
        scene.add(self.robot, at="/World/Robot")

    def on_start(self, env: Any) -> None:
        self.cart = self.robot.find_joints("slider_to_cart")

    def apply_actions(self, actions: Any) -> None:
        self.robot.set_joint_effort_target(20.0 * actions, joint_ids=self.cart)

    def get_observations(self) -> Any:
        return self.robot.state.joint_positions

    def get_rewards(self) -> Any:
        return 1.0 - self.robot.state.joint_positions[:, self.cart[0]] ** 2

    def get_dones(self) -> Any:
        never = self.episode_length_buf < 0
        return never, never

    def reset_idx(self, env_ids: Any) -> None:
        self.robot.reset(env_ids)


class AsymmetricSlider(Slider):
    """The policy sees the joint positions; the critic sees them, the joint velocities and a constant marker."""

    policy_input_schema = simulo.PolicyInputSchema(
        actor=(simulo.PolicyInput(name="positions", shape=(2,)),),
        critic=(simulo.PolicyInput(name="positions", shape=(2,)), simulo.PolicyInput(name="velocities", shape=(2,)),
                simulo.PolicyInput(name="marker", shape=(1,))),
    )

    def get_observations(self) -> Any:
        return torch.full((self.num_envs, 2), UNUSED)  # must not reach the networks under a schema

    def get_policy_inputs(self) -> Any:
        return {"positions": self.robot.state.joint_positions}

    def get_critic_inputs(self) -> Any:
        return {"positions": self.robot.state.joint_positions, "velocities": self.robot.state.joint_velocities,
                "marker": torch.full((self.num_envs, 1), MARKER)}
