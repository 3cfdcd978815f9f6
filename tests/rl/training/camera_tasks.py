"""A cartpole balanced from a policy camera, as the SDK's cartpole-from-camera sample poses it (written here).

The actor sees an RGB image of the cart and pole and the two joint velocities: the cart position and the
pole angle reach it only through the pixels. The critic sees the four joint numbers.
"""

from __future__ import annotations

import math
from typing import Any

import torch

import simulo


def camera_cartpole(size: int, preprocessing: str = "center") -> type[simulo.Task]:
    """The task class with a ``size`` x ``size`` policy camera."""

    class CameraCartpole(simulo.Task):
        observation_dim, action_dim = 2, 1
        episode_length_s = 5.0
        policy_input_schema = simulo.PolicyInputSchema(
            actor=(simulo.PolicyInput(name="image", kind="image", shape=(size, size, 3), dtype="uint8",
                                      camera="policy_camera", preprocessing=preprocessing),
                   simulo.PolicyInput(name="velocities", shape=(observation_dim,))),
            critic=(simulo.PolicyInput(name="state", shape=(4,)),),
        )

        def build(self, scene: Any) -> None:
            scene.add(simulo.Terrain.plane(name="ground", size=200.0), at="/", per_environment=False)
            self.robot = simulo.Robot(asset=simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
            scene.add(self.robot, at="/World/Robot")
            self.camera = simulo.Camera(
                purpose="policy", width=size, height=size, data_types=["rgb"], update_period=0.0,
                offset=simulo.SensorOffset(pos=(-5.0, 0.0, 2.0), rot=(1.0, 0.0, 0.0, 0.0), convention="world"),
                spawn=simulo.CameraSpawnConfig(focal_length=24.0, horizontal_aperture=20.955,
                                               clipping_range=(0.1, 20.0)))
            scene.add(self.camera, at="/World/policy_camera")

        def on_start(self, env: Any) -> None:
            self.cart = self.robot.find_joints("slider_to_cart")[0]
            self.pole = self.robot.find_joints("cart_to_pole")[0]

        def get_policy_inputs(self) -> Any:
            velocities = self.robot.state.joint_velocities[:, [self.cart, self.pole]]
            return {"image": self.camera.read_rgb(), "velocities": velocities}

        def get_critic_inputs(self) -> Any:
            return {"state": self.get_observations()}

        def get_observations(self) -> Any:
            pos, vel = self.robot.state.joint_positions, self.robot.state.joint_velocities
            return torch.stack([pos[:, self.pole], vel[:, self.pole], pos[:, self.cart], vel[:, self.cart]], dim=1)

        def get_rewards(self) -> Any:
            pole = self.robot.state.joint_positions[:, self.pole]
            return 1.0 - 3.0 * self.reset_terminated.float() - pole ** 2

        def get_dones(self) -> Any:
            pos = self.robot.state.joint_positions
            fallen = (pos[:, self.pole].abs() > math.pi / 2) | (pos[:, self.cart].abs() > 3.0)
            return fallen, self.episode_length_buf >= self.max_episode_length

        def apply_actions(self, actions: Any) -> None:
            self.robot.set_joint_effort_target(100.0 * actions.clamp(-1.0, 1.0), joint_ids=[self.cart])

        def reset_idx(self, env_ids: Any) -> None:
            self.robot.reset(env_ids)
            pos = self.robot.default_joint_positions[env_ids]
            pos[:, self.pole] += torch.empty(len(env_ids)).uniform_(-0.25 * math.pi, 0.25 * math.pi)
            self.robot.set_joint_state(pos, velocities=self.robot.default_joint_velocities[env_ids], env_ids=env_ids)

    return CameraCartpole
