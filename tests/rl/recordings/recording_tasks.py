"""Tasks the recording tests record: the catalog cartpole beside a falling cube, with or without a camera."""

from __future__ import annotations

import numpy as np

import simulo


class CubeCartpole(simulo.Task):
    """The catalog cartpole beside a falling cube; episodes are truncated after 5 policy steps."""

    observation_dim, action_dim = 2, 1
    episode_length_s = 5 * 2 / 120.0  # physics_dt 1/120, 2 physics steps per action: 5 policy steps

    def build(self, scene):
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
        scene.add(self.robot, at="/World/Robot")
        scene.add(simulo.Cuboid(name="Cube", size=(0.1,) * 3, pose=simulo.Pose.from_xyz(0.5, 0.5, 1.0),
                                physics=simulo.RigidPhysics(mass=0.2)), at="/World")

    def apply_actions(self, actions):
        self.robot.set_joint_effort_target(10.0 * actions, joint_ids=self.robot.find_joints("slider_to_cart"))

    def get_observations(self):
        return self.robot.state.joint_positions

    def get_rewards(self):
        return np.ones(self.num_envs)

    def get_dones(self):
        return np.zeros(self.num_envs, bool), np.zeros(self.num_envs, bool)

    def reset_idx(self, env_ids):
        self.robot.reset(env_ids)


class CameraCartpole(CubeCartpole):
    """The same with a 64x48 camera in every environment, looking at the cart from the side."""

    def build(self, scene):
        super().build(scene)
        scene.add(simulo.Camera(width=64, height=48, offset=simulo.SensorOffset.look_at(pos=(3, -3, 3),
                                                                                     target=(0, 0, 2))),
                  at="/World/side")


class SharedCameraCartpole(CubeCartpole):
    """The same with one 32x24 camera shared by every environment (``per_environment=False``)."""

    def build(self, scene):
        super().build(scene)
        scene.add(simulo.Camera(width=32, height=24, offset=simulo.SensorOffset.look_at(pos=(3, -3, 3),
                                                                                     target=(0, 0, 2))),
                  at="/World/overview", per_environment=False)
