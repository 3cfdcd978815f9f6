"""Env runners: Ray actors holding a copy of the policy return whole rollouts, the same bytes for any worker count."""

from __future__ import annotations

import tempfile
from dataclasses import fields
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import simulo
from simulo.errors import ShapeError, SimuloValueError
from simulo.scale.ray_env import ENV_ROLLOUT_SHARDS, RayLearningEnv, backend_factory
from simulo.scale.sweep import Shard, group_shards, plan_shards

torch = pytest.importorskip("torch")
pytest.importorskip("skrl")

from simulo.rl.training import RLTrainer  # noqa: E402 - after the skips
from simulo.rl.training.collector import (  # noqa: E402
    InProcessCollector,
    RolloutBatch,
    ShardRunner,
    feed_rollout,
    policy_package,
    policy_weights,
)
from simulo.rl.training.rollout import RolloutSpan  # noqa: E402

N, PER_WORLD, STEPS = 24, 8, 12  # three worlds, three rollout shards of 8


def _same_bytes(a: RolloutBatch, b: RolloutBatch) -> list[str]:
    """The fields in which two batches differ (dtype, shape or any byte)."""
    differ = []
    for f in fields(RolloutBatch):
        x, y = getattr(a, f.name), getattr(b, f.name)
        pairs = list(zip(x, y, strict=True)) if f.name == "episode_returns" else [(x, y)]
        if not all(p.dtype == q.dtype and p.shape == q.shape and p.tobytes() == q.tobytes() for p, q in pairs):
            differ.append(f.name)
    return differ


def _learner(task: simulo.Task, seed: int) -> tuple[Any, Any]:
    env = simulo.LearningEnv(task, num_envs=N, seed=0, envs_per_world=PER_WORLD)
    trainer = RLTrainer(env, device="cpu", seed=seed, checkpoint_dir=tempfile.mkdtemp(), progress=False)
    return env, trainer


def test_group_shards_joins_whole_rollout_shards() -> None:
    layout = plan_shards(80, 8, parts=5)  # 10 worlds: five shards of two worlds
    assert [(s.first, s.count) for s in group_shards(layout, 2)] == [(0, 32), (32, 48)]
    assert [(s.first, s.count) for s in group_shards(layout, 9)] == [(s.first, s.count) for s in layout]
    assert group_shards(layout, 1) == [Shard(0, 0, 80, 80)]
    with pytest.raises(SimuloValueError, match="parts"):
        group_shards(layout, 0)


@pytest.mark.slow  # about 18 s: two Ray layouts of actors
def test_rollouts_are_the_same_bytes_for_one_and_two_workers_and_in_process(ray_cluster: Any,
                                                                         cartpole_task: ModuleType) -> None:
    env, trainer = _learner(cartpole_task.CartpoleTask(), seed=5)
    package, weights = policy_package(trainer.agent), policy_weights(trainer.agent)
    trainer.close()
    batches: dict[str, list[RolloutBatch]] = {}
    spans: list[tuple[int, int]] = []
    try:
        for workers in (1, 2):
            sharded = RayLearningEnv(cartpole_task.CartpoleTask(), N, seed=3, envs_per_world=PER_WORLD,
                                     workers=workers)
            try:
                assert len(sharded.shards) == workers and len(sharded.rollout_layout) == 3
                collector = sharded.rollout_collector(package, seed=5)
                batches[f"ray{workers}"] = [collector.collect(weights, i, STEPS) for i in (1, 2)]
                assert collector.bytes_moved > batches[f"ray{workers}"][-1].nbytes
                spans = [(s.first, s.count) for s in sharded.rollout_layout]
            finally:
                sharded.close()
        local = simulo.LearningEnv(cartpole_task.CartpoleTask(), num_envs=N, seed=3, envs_per_world=PER_WORLD)
        try:
            in_process = InProcessCollector(local, spans, package, seed=5)
            batches["local"] = [in_process.collect(weights, i, STEPS) for i in (1, 2)]
            assert in_process.bytes_moved == 0
        finally:
            local.close()
    finally:
        env.close()
    first = batches["ray1"]
    assert first[0].states.shape == (STEPS, N, 4) and first[0].last_states.shape == (N, 4)
    assert first[0].actions.dtype == np.float32 and first[0].terminated.dtype == np.bool_
    assert sum(len(r) for b in first for r in b.episode_returns) > 0  # episodes ended and were reported
    for name in ("ray2", "local"):
        for k in range(2):
            assert _same_bytes(first[k], batches[name][k]) == [], (name, k)
    assert not np.array_equal(first[0].actions, first[1].actions)  # each iteration draws anew


def test_feed_rollout_fills_skrl_memory_and_updates(cartpole_task: ModuleType) -> None:
    env, trainer = _learner(cartpole_task.CartpoleTask(), seed=2)
    try:
        agent = trainer.agent
        collector = InProcessCollector(env, [(0, 8), (8, 16)], policy_package(agent), seed=2)
        batch = collector.collect(policy_weights(agent), 1, 16)  # the default rollouts: the update runs
        before = [p.detach().clone() for p in agent.policy.parameters()]
        feed_rollout(agent, batch, RolloutSpan(1, 0, 16, 16))
        stored = agent.memory.get_tensor_by_name("states").reshape(16, N, 4)
        assert torch.equal(stored, torch.from_numpy(batch.states))
        assert torch.equal(agent.memory.get_tensor_by_name("log_prob").reshape(16, N, 1),
                           torch.from_numpy(batch.log_prob))
        assert any(not torch.equal(a, b) for a, b in zip(before, agent.policy.parameters(), strict=True))
        # a fresh copy of the updated policy draws what the agent's own log-probabilities say
        again = InProcessCollector(env, [(0, N)], policy_package(agent), seed=2)
        step = again.collect(policy_weights(agent), 2, 1)
        x = agent._state_preprocessor(torch.from_numpy(step.states[0]))
        _, log_prob, _ = agent.policy.act({"states": x, "taken_actions": torch.from_numpy(step.actions[0])},
                                          role="policy")
        assert torch.allclose(log_prob, torch.from_numpy(step.log_prob[0]), atol=1e-5)
    finally:
        trainer.close()
        env.close()


def test_runner_refuses_shards_that_do_not_cover_the_environments(cartpole_task: ModuleType) -> None:
    env, trainer = _learner(cartpole_task.CartpoleTask(), seed=0)
    try:
        with pytest.raises(ShapeError, match="do not cover"):
            ShardRunner(env, [(0, 8), (16, 8)], [0, 16], policy_package(trainer.agent), 0)
    finally:
        trainer.close()
        env.close()


def test_rollout_shards_are_checked_before_ray_starts(monkeypatch: pytest.MonkeyPatch,
                                                      cartpole_task: ModuleType) -> None:
    with pytest.raises(SimuloValueError, match="rollout_shards"):
        RayLearningEnv(cartpole_task.CartpoleTask(), 8, rollout_shards=0)
    for bad in ("x", "0", "-3"):
        monkeypatch.setenv(ENV_ROLLOUT_SHARDS, bad)
        with pytest.raises(SimuloValueError, match=ENV_ROLLOUT_SHARDS):
            backend_factory(2, None)
