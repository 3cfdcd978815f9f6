"""A registered training run of the fixture app ``balance`` (tests/platform/fixtures/policy_app), trained in the
test's process, for the tests that export or load its policy."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import simulo
from simulo.platform import policy_registry
from simulo.platform.training_policy import finish

APP = Path(__file__).parent / "fixtures" / "policy_app" / "app.py"


def train_balance(runs: Path) -> str:
    """Train the fixture app's ``Balance`` task for two iterations as run ``balance/train/0001`` under ``runs``,
    register it, and return its policy ID."""
    spec = importlib.util.spec_from_file_location("policy_fixture_app", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    run = runs / "balance" / "train" / "0001"
    env = simulo.LearningEnv(module.Balance(), num_envs=4, seed=1)
    trainer = simulo.RLTrainer(env, seed=0, device="cpu", progress=False, checkpoint_dir=run / "checkpoints",
                               agent_cfg={"rollouts": 8, "mini_batches": 2, "learning_epochs": 1})
    trainer.train(2)
    trainer.close()
    env.close()
    finish(policy_registry.register(run, "balance", "train"), "completed")
    return policy_registry.all_policies(runs)[0].policy_id


def best_iteration(runs: Path) -> int:
    """The iteration of the ``best.pt`` that :func:`train_balance` left under ``runs``."""
    from simulo.rl.training import PolicyPlayer  # noqa: PLC0415 - needs torch

    return PolicyPlayer.from_checkpoint(runs / "balance" / "train" / "0001" / "checkpoints" / "best.pt").iteration
