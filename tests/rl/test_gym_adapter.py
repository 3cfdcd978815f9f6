"""Gymnasium adapters: the single-env form passes Gymnasium's checker; the vector form autoresets."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import simulo

gym = pytest.importorskip("gymnasium")
pytest.importorskip("torch")

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "cartpole"
spec = importlib.util.spec_from_file_location("cartpole_sample_task_gym", SAMPLES / "task.py")
module = importlib.util.module_from_spec(spec)
sys.modules["cartpole_sample_task_gym"] = module
spec.loader.exec_module(module)
CartpoleTask = module.CartpoleTask


def test_single_env_passes_gymnasium_env_checker():
    from gymnasium.utils.env_checker import check_env

    env = simulo.GymEnv(CartpoleTask, seed=0)
    check_env(env, skip_render_check=True)
    assert env.observation_space.shape == (4,) and env.action_space.shape == (1,)
    env.close()


def test_single_env_episode_ends_with_final_observation():
    env = simulo.GymEnv(CartpoleTask, seed=0)
    obs, _ = env.reset(seed=3)
    assert obs.dtype == np.float32 and obs.shape == (4,)
    for _ in range(400):
        obs, reward, terminated, truncated, _ = env.step(np.ones(1, dtype=np.float32))
        if terminated or truncated:
            break
    assert terminated  # pushing one way drives the cart off the rail
    assert abs(obs[2]) > 3.0 or abs(obs[0]) > np.pi / 2  # the final state, not a reset one
    assert reward == pytest.approx(-2.0 + -1.0 * obs[0] ** 2 - 0.01 * abs(obs[3]) - 0.005 * abs(obs[1]), abs=1e-5)


def test_vector_env_same_step_autoreset():
    venv = simulo.GymVectorEnv(simulo.LearningEnv(CartpoleTask(), num_envs=3, seed=0))
    assert venv.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, _ = venv.reset(seed=1)
    assert obs.shape == (3, 4) and venv.action_space.shape == (3, 1)
    for _ in range(400):
        obs, rew, term, trunc, info = venv.step(np.ones((3, 1), dtype=np.float32))
        if term.any():
            break
    assert "_final_obs" in info and info["_final_obs"].tolist() == term.tolist()
    i = int(np.argmax(term))
    assert abs(info["final_obs"][i][2]) > 3.0 or abs(info["final_obs"][i][0]) > np.pi / 2
    assert abs(obs[i][2]) < 1e-9  # the reset observation: cart back at the centre
    venv.close()
