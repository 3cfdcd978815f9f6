"""A task with a policy_input_schema trains through env runners: its inputs are read next to its environments."""

from __future__ import annotations

import tempfile
from typing import Any

import pytest

import simulo
from simulo.scale.ray_env import RayLearningEnv

torch = pytest.importorskip("torch")
pytest.importorskip("skrl")

from simulo.rl.training import RLTrainer  # noqa: E402 - after the skips

MARKER, UNUSED = 7.0, -123.0
CFG = {"rollouts": 4, "mini_batches": 2, "learning_epochs": 2}


class AsymmetricSlider(simulo.Task):
    """The catalog cartpole's cart pushed along its rail: the policy sees the joint positions, the critic
    also the joint velocities and a constant marker; the observations must reach no network."""

    observation_dim, action_dim = 2, 1
    episode_length_s = 0.2
    policy_input_schema = simulo.PolicyInputSchema(
        actor=(simulo.PolicyInput(name="positions", shape=(2,)),),
        critic=(simulo.PolicyInput(name="positions", shape=(2,)), simulo.PolicyInput(name="velocities", shape=(2,)),
                simulo.PolicyInput(name="marker", shape=(1,))),
    )

    def build(self, scene: Any) -> None:
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
        scene.add(self.robot, at="/World/Robot")

    def on_start(self, env: Any) -> None:
        self.cart = self.robot.find_joints("slider_to_cart")

    def apply_actions(self, actions: Any) -> None:
        self.robot.set_joint_effort_target(20.0 * actions, joint_ids=self.cart)

    def get_observations(self) -> Any:
        return torch.full((self.num_envs, 2), UNUSED)

    def get_policy_inputs(self) -> Any:
        return {"positions": self.robot.state.joint_positions}

    def get_critic_inputs(self) -> Any:
        return {"positions": self.robot.state.joint_positions, "velocities": self.robot.state.joint_velocities,
                "marker": torch.full((self.num_envs, 1), MARKER)}

    def get_rewards(self) -> Any:
        return 1.0 - self.robot.state.joint_positions[:, self.cart[0]] ** 2

    def get_dones(self) -> Any:
        never = self.episode_length_buf < 0
        return never, never

    def reset_idx(self, env_ids: Any) -> None:
        self.robot.reset(env_ids)


@pytest.mark.slow  # about 25 s: two Ray layouts of actors
def test_a_schema_task_trains_through_env_runners_the_same_bytes_for_one_and_two_workers(ray_cluster: Any) -> None:
    trained = []
    for workers in (1, 2):
        env = RayLearningEnv(AsymmetricSlider(), 16, seed=0, envs_per_world=8, workers=workers)
        try:
            trainer = RLTrainer(env, device="cpu", seed=1, checkpoint_dir=tempfile.mkdtemp(), progress=False,
                                agent_cfg=CFG)
            assert trainer._collector is not None  # env runners, not the lock-step path
            trainer.train(2, checkpoint_every=10**9)
            memory = trainer.agent.memory.get_tensor_by_name("states")
            assert memory.shape[-1] == 2 + 5  # policy inputs, then critic inputs
            assert bool((memory[..., -1] == MARKER).all()) and not bool((memory == UNUSED).any())
            agent = trainer.agent
            assert agent.policy.net[0].in_features == 2 and agent.value.net[0].in_features == 5
            trained.append(b"".join(p.detach().numpy().tobytes()
                                    for p in (*agent.policy.parameters(), *agent.value.parameters())))
            trainer.close()
        finally:
            env.close()
    assert trained[0] == trained[1]
