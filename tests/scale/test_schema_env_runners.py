"""A task with a policy_input_schema trains through env runners: its inputs are read next to its environments."""

from __future__ import annotations

import tempfile
from typing import Any

import pytest

from simulo.scale.ray_env import RayLearningEnv

pytest.importorskip("torch")
pytest.importorskip("skrl")

from simulo.rl.training import RLTrainer
from tests.rl.training.slider_tasks import MARKER, UNUSED, AsymmetricSlider

CFG = {"rollouts": 4, "mini_batches": 2, "learning_epochs": 2}


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
