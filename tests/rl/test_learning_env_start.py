"""LearningEnv start-up: a failing on_start closes the simulation, and a malformed shard is a SimuloValueError."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import simulo
from simulo.errors import SimuloValueError, TaskError

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "cartpole"


def _cartpole_task_class():
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("cartpole_review_task", SAMPLES / "task.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["cartpole_review_task"] = module
    spec.loader.exec_module(module)
    return module.CartpoleTask


def test_learning_env_closes_its_simulation_when_on_start_fails():
    base = _cartpole_task_class()

    class FailingStart(base):
        def build(self, scene):
            super().build(scene)
            self.built_scene = scene

        def on_start(self, env):
            raise RuntimeError("boom")

    task = FailingStart()
    with pytest.raises(TaskError, match="on_start"):
        simulo.LearningEnv(task, num_envs=2)
    assert task.built_scene.runtime_simulation is None  # the engine worlds were closed
    assert not any(e["item"].runtime_attached for e in task.built_scene.get_items() if e["kind"] == "robot")


@pytest.mark.parametrize("shard", [5, ("a", 4), (0, 2, 3)])
def test_learning_env_malformed_shard_is_a_simulo_error(shard):
    base = _cartpole_task_class()
    with pytest.raises(SimuloValueError, match="shard must be"):
        simulo.LearningEnv(base(), num_envs=2, shard=shard)
