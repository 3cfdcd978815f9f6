"""What the networks see: a numpy task trains; policy and critic inputs under a policy_input_schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from rl_toy_envs import PointMassEnv
from slider_tasks import MARKER, UNUSED, AsymmetricSlider, Slider

import simulo
from simulo.rl.training import PolicyPlayer, RLTrainer

CFG = {"rollouts": 4, "mini_batches": 2, "learning_epochs": 1}


class _NumpySlider(Slider):
    seen: set[type]

    def apply_actions(self, actions: Any) -> None:
        self.seen.add(type(actions))
        super().apply_actions(actions)


def test_numpy_task_trains_on_numpy_actions(tmp_path: Path) -> None:
    task = _NumpySlider()
    task.seen = set()
    env = simulo.LearningEnv(task, num_envs=4, seed=0, tensor_library="numpy")
    try:
        stats = RLTrainer(env, device="cpu", checkpoint_dir=tmp_path, progress=False, agent_cfg=CFG).train(4)
        assert task.seen == {np.ndarray}
        obs, *_ = env.step(np.zeros((4, 1)))
        assert isinstance(obs, np.ndarray)  # a numpy environment stays numpy after the trainer's torch actions
    finally:
        env.close()
    assert stats["iterations"] == 4 and stats["reward_history"][-1] is not None


def _recording(module: torch.nn.Module, seen: list[torch.Tensor]) -> None:
    module.register_forward_pre_hook(lambda _, args: seen.append(args[0].detach().clone()))


def test_policy_and_critic_get_their_own_inputs(tmp_path: Path) -> None:
    env = simulo.LearningEnv(AsymmetricSlider(), num_envs=4, seed=0)
    try:
        trainer = RLTrainer(env, device="cpu", checkpoint_dir=tmp_path, progress=False,
                            agent_cfg={**CFG, "state_preprocessor": None})
        policy_seen: list[torch.Tensor] = []
        value_seen: list[torch.Tensor] = []
        _recording(trainer.agent.policy.net, policy_seen)
        _recording(trainer.agent.value.net, value_seen)
        trainer.train(2)
        assert trainer.observation_dim == 2
        assert trainer.agent.policy.net[0].in_features == 2 and trainer.agent.value.net[0].in_features == 5
        assert all(x.shape[1] == 2 for x in policy_seen) and all(x.shape[1] == 5 for x in value_seen)
        assert all(bool((x[:, 4] == MARKER).all()) for x in value_seen)
        assert torch.equal(value_seen[0][:, :2], policy_seen[0])  # the shared input, the same values
        assert not any(bool((x == UNUSED).any()) for x in policy_seen + value_seen)
        trainer.save(tmp_path / "asym.pt")
    finally:
        env.close()
    player = PolicyPlayer.from_checkpoint(tmp_path / "asym.pt")
    assert player.observation_dim == 2
    payload = torch.load(tmp_path / "asym.pt", weights_only=True)
    assert payload["state_dim"] == 2 + 5 and payload["policy_input_schema"]["critic"][2]["name"] == "marker"


class _CameraOnly(Slider):
    policy_input_schema = simulo.PolicyInputSchema(
        actor=(simulo.PolicyInput(name="rgb", shape=(8, 8, 3), dtype="uint8", kind="image", camera="cam"),))


class _WrongWidth(Slider):
    observation_dim = 3  # the actor's numeric inputs are 2 wide
    policy_input_schema = simulo.PolicyInputSchema(actor=(simulo.PolicyInput(name="positions", shape=(2,)),))


class _OnToyEnv(PointMassEnv):
    task = AsymmetricSlider()


def test_camera_only_actor_and_wrong_observation_dim_refused_as_the_sdk_does() -> None:
    with pytest.raises(simulo.errors.TaskError, match=r"declares no numeric input \(\['rgb'\]"):
        simulo.LearningEnv(_CameraOnly(), num_envs=2, seed=0)
    with pytest.raises(simulo.errors.TaskError, match=r"observation_dim=3: .* numeric inputs \['positions'\], 2"):
        simulo.LearningEnv(_WrongWidth(), num_envs=2, seed=0)


def test_env_observations_are_the_actors_numeric_inputs_under_a_schema() -> None:
    env = simulo.LearningEnv(AsymmetricSlider(), num_envs=3, seed=0)
    try:
        obs, _ = env.reset()
        assert torch.equal(obs, env.task.robot.state.joint_positions.float())  # not get_observations()' UNUSED
    finally:
        env.close()


def test_remote_envs_not_implemented(tmp_path: Path) -> None:
    with pytest.raises(NotImplementedError, match="in this process only"):
        RLTrainer(_OnToyEnv(num_envs=2), device="cpu", checkpoint_dir=tmp_path, progress=False)
