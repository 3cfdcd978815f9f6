"""The data-parallel PPO update: skrl's update to float precision, the same bytes for any number of runners."""

from __future__ import annotations

import itertools
import tempfile
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest

import simulo
from simulo.errors import ShapeError, SimuloValueError
from simulo.scale.ray_env import RayLearningEnv

torch = pytest.importorskip("torch")
pytest.importorskip("skrl")

from simulo.rl.training import RLTrainer  # noqa: E402 - after the skips
from simulo.rl.training.collector import (  # noqa: E402
    InProcessCollector,
    IterationCost,
    RunnerCost,
    ShardRunner,
    policy_package,
    policy_weights,
    weights_nbytes,
)
from simulo.rl.training.sharded_update import (  # noqa: E402
    ENV_SHARDED_UPDATE,
    MIN_WORK,
    LossSettings,
    ShardGradient,
    shard_gradient,
    shard_rows,
    sharded_update,
    tree_reduce,
    tree_sum,
    update_weights,
    use_sharded_update,
)

N, PER_WORLD = 24, 8  # three worlds, three rollout shards of 8
SPANS = [(0, 8), (8, 8), (16, 8)]


def _in_process(task: simulo.Task, sharded: bool, iterations: int = 2,
                agent_cfg: dict[str, Any] | None = None) -> tuple[Any, RLTrainer]:
    """A trainer whose rollouts go through an in-process collector over SPANS (skrl's update or the sharded one)."""
    env = simulo.LearningEnv(task, num_envs=N, seed=3, envs_per_world=PER_WORLD)
    trainer = RLTrainer(env, device="cpu", seed=5, checkpoint_dir=tempfile.mkdtemp(), progress=False,
                        agent_cfg=agent_cfg)
    collector = InProcessCollector(env, SPANS, policy_package(trainer.agent), seed=5)
    trainer._collector = collector
    if sharded:
        agent = trainer.agent
        agent._update = lambda timestep, timesteps: sharded_update(agent, collector)
    try:
        trainer.train(iterations, checkpoint_every=10**9)
    finally:
        trainer.close()
        env.close()
    return collector, trainer


def _parameters(trainer: RLTrainer) -> Any:
    agent = trainer.agent
    return torch.cat([p.detach().flatten() for p in (*agent.policy.parameters(), *agent.value.parameters())])


@pytest.mark.parametrize("cfg", [None, {"state_preprocessor": None}, {"entropy_loss_scale": 0.01}],
                         ids=["defaults", "no-state-preprocessor", "entropy-term"])
def test_sharded_update_trains_what_skrls_update_trains_to_float_precision(cartpole_task: ModuleType,
                                                                           cfg: dict[str, Any] | None) -> None:
    _, skrl_trained = _in_process(cartpole_task.CartpoleTask(), sharded=False, agent_cfg=cfg)
    collector, sharded = _in_process(cartpole_task.CartpoleTask(), sharded=True, agent_cfg=cfg)
    start = RLTrainer(simulo.LearningEnv(cartpole_task.CartpoleTask(), num_envs=N, seed=3,
                                         envs_per_world=PER_WORLD), device="cpu", seed=5,
                      checkpoint_dir=tempfile.mkdtemp(), progress=False, agent_cfg=cfg)
    moved = (_parameters(sharded) - _parameters(start)).abs().max().item()
    start.close()
    start.env.close()
    assert moved > 1e-3  # it did learn
    assert torch.allclose(_parameters(sharded), _parameters(skrl_trained), atol=1e-5, rtol=0)
    assert sharded.learning_rate == pytest.approx(skrl_trained.learning_rate, rel=1e-6)
    cost = collector.last_cost
    assert cost is not None and cost.runners.update_cpu_s > 0  # the runner computed the gradients
    assert 0 < cost.learner_cpu_s and 0 < cost.serial_fraction < 1


@pytest.mark.slow  # about 20 s: two Ray layouts of actors
def test_sharded_update_is_the_same_bytes_for_one_and_two_workers_and_in_process(
        ray_cluster: Any, cartpole_task: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_SHARDED_UPDATE, "on")
    trained = {}
    for workers in (1, 2):
        env = RayLearningEnv(cartpole_task.CartpoleTask(), N, seed=3, envs_per_world=PER_WORLD, workers=workers)
        try:
            assert [(s.first, s.count) for s in env.rollout_layout] == SPANS
            trainer = RLTrainer(env, device="cpu", seed=5, checkpoint_dir=tempfile.mkdtemp(), progress=False)
            trainer.train(2, checkpoint_every=10**9)
            collector: Any = trainer._collector
            assert collector.last_cost is not None and collector.last_cost.runners.update_cpu_s > 0
            assert collector.bytes_moved > collector.update_bytes > collector.batch_bytes  # gradients came back
            # per mini-batch: the weights to each actor and one gradient from each (shards 0 and 1..2 of the
            # 3 shards' tree with 2 workers: each a node, added up there); the targets once
            agent = trainer.agent
            grad = 4 * sum(p.numel() for p in (*agent.policy.parameters(), *agent.value.parameters()))
            assert [(s.first, s.count) for s in env.shards] == ([(0, 24)] if workers == 1 else [(0, 8), (8, 16)])
            assert collector.update_bytes == 3 * 4 * agent._rollouts * N + agent._learning_epochs * \
                agent._mini_batches * (weights_nbytes(update_weights(agent)) + grad) * workers
            trained[workers] = (_parameters(trainer), trainer.reward_history)
            trainer.close()
        finally:
            env.close()
    _, local = _in_process(cartpole_task.CartpoleTask(), sharded=True)
    for params, history in (trained[2], (_parameters(local), local.reward_history)):
        assert params.numpy().tobytes() == trained[1][0].numpy().tobytes()
        assert history == trained[1][1]


def _leaves(count: int, seed: int = 0) -> list[ShardGradient]:
    """``count`` single-shard gradients of values many orders of magnitude apart (so that the order of
    adding them shows in the bytes)."""
    rng = np.random.default_rng(seed)
    return [ShardGradient(rng.standard_normal(1000).astype(np.float32) * np.float32(10.0 ** rng.integers(-6, 6)),
                          rng.standard_normal(4).astype(np.float32), 0.5) for _ in range(count)]


def test_the_shards_are_added_up_in_a_tree_fixed_by_their_number() -> None:
    s = _leaves(5)
    whole = tree_sum(s)
    # 5 shards: [0, 5) splits into [0, 2) and [2, 5), [2, 5) into [2, 3) and [3, 5)
    expected = (s[0].grad + s[1].grad) + (s[2].grad + (s[3].grad + s[4].grad))
    assert whole.grad.tobytes() == expected.tobytes() and whole.shards == 5 and whole.cpu_s == 2.5
    assert whole.sums.tobytes() == ((s[0].sums + s[1].sums) + (s[2].sums + (s[3].sums + s[4].sums))).tobytes()
    in_order = s[0].grad + s[1].grad + s[2].grad + s[3].grad + s[4].grad
    assert whole.grad.tobytes() != in_order.tobytes()  # the order shows in these values' bytes
    assert tree_sum(s[:1]) is s[0]


@pytest.mark.parametrize("total", [1, 2, 3, 5, 8, 13])
def test_any_grouping_of_the_shards_gives_the_same_bytes(total: int) -> None:
    leaves = _leaves(total, seed=total)
    whole = tree_sum(leaves)
    for cuts in range(2 ** (total - 1)):  # every way to cut the shards into consecutive groups
        bounds = [0, *[k + 1 for k in range(total - 1) if cuts >> k & 1], total]
        sent = [node for lo, hi in itertools.pairwise(bounds) for node in tree_reduce(leaves[lo:hi], lo, total)]
        assert sum(node.shards for node in sent) == total
        again = tree_sum(sent)
        assert again.grad.tobytes() == whole.grad.tobytes() and again.sums.tobytes() == whole.sums.tobytes()


def test_a_group_sends_the_largest_nodes_inside_it() -> None:
    leaves = _leaves(8)
    assert [n.shards for n in tree_reduce(leaves[:4], 0, 8)] == [4]  # 2 runners over 8 shards: one sum each
    assert [n.shards for n in tree_reduce(leaves[4:], 4, 8)] == [4]
    assert [n.shards for n in tree_reduce(leaves[:3], 0, 8)] == [2, 1]
    assert [n.shards for n in tree_reduce(leaves[3:6], 3, 8)] == [1, 2]
    assert [n.shards for n in tree_reduce(leaves[1:7], 1, 8)] == [1, 2, 2, 1]


def test_parts_that_do_not_fit_the_tree_are_refused() -> None:
    leaves = _leaves(4)
    not_a_node = r"shard 1 is inside a part of \[1, 2, 1\] shards that is not a node of the 4 shards' tree"
    with pytest.raises(SimuloValueError, match=not_a_node):
        tree_reduce([leaves[0], tree_sum(leaves[1:3]), leaves[3]], 0, 4)  # shards 1..2 are not a node
    with pytest.raises(SimuloValueError, match="expected some of the 4 shards"):
        tree_reduce(leaves[:3], 2, 4)
    with pytest.raises(SimuloValueError, match="expected some of the 4 shards"):
        tree_reduce([], 0, 4)


def test_each_runner_sends_its_shards_added_up_in_the_tree(cartpole_task: ModuleType) -> None:
    env = simulo.LearningEnv(cartpole_task.CartpoleTask(), num_envs=N, seed=3, envs_per_world=PER_WORLD)
    trainer = RLTrainer(env, device="cpu", seed=5, checkpoint_dir=tempfile.mkdtemp(), progress=False)
    try:
        agent, steps = trainer.agent, 4
        settings = LossSettings.of(agent)
        whole = ShardRunner(env, SPANS, [0, 8, 16], policy_package(agent), seed=5)
        # as if the 3 shards were shards 2..4 of a layout of 6 over 48 environments
        middle = ShardRunner(env, SPANS, [16, 24, 32], policy_package(agent), seed=5, layout=(2, 6))
        rng = np.random.default_rng(1)
        for runner in (whole, middle):
            runner.collect(policy_weights(agent), 1, steps)
            runner.set_targets({k: rng.standard_normal((steps, N, 1)).astype(np.float32)
                                for k in ("values", "returns", "advantages")}, settings)
        summed = whole.gradients(update_weights(agent), 8, 40, N)
        again = whole.gradients(update_weights(agent), 8, 40, N)  # the mini-batch's rows, kept
        apart = middle.gradients(update_weights(agent), 0, 4 * 48, 48)
        assert [g.shards for g in summed] == [3] and [g.shards for g in apart] == [1, 1, 1]  # 2 | 3 | 4..5
        assert summed[0].grad.tobytes() == again[0].grad.tobytes()
        each = [shard_gradient(whole.package, settings, shard_rows({k: v[:, lo:lo + n] for k, v in whole._rows.items()},
                                                                     lo, N, 8, 40), 32) for lo, n in SPANS]
        assert summed[0].grad.tobytes() == tree_sum(each).grad.tobytes()
        assert summed[0].sums.tobytes() == tree_sum(each).sums.tobytes()
        with pytest.raises(ShapeError, match="do not fit in a layout of 4 shards"):
            ShardRunner(env, SPANS, [0, 8, 16], policy_package(agent), seed=5, layout=(2, 4))
    finally:
        trainer.close()
        env.close()


def test_the_choice_depends_on_the_layout_and_the_setting_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def model() -> SimpleNamespace:
        return SimpleNamespace(parameters=lambda: [torch.zeros(500), torch.zeros(500)])  # 1,000 parameters

    agent = SimpleNamespace(policy=model(), value=model(), _mixed_precision=False, _rollouts=16, _mini_batches=4)
    enough = MIN_WORK // 2000 * 4 // 16  # environments a shard needs: rows in a mini-batch x 2,000 parameters
    monkeypatch.delenv(ENV_SHARDED_UPDATE, raising=False)
    assert use_sharded_update(agent, [enough] * 8)
    assert not use_sharded_update(agent, [enough] * 7 + [enough - 1])  # the smallest shard decides
    monkeypatch.setenv(ENV_SHARDED_UPDATE, "on")
    assert use_sharded_update(agent, [1])
    monkeypatch.setenv(ENV_SHARDED_UPDATE, "off")
    assert not use_sharded_update(agent, [enough] * 8)
    monkeypatch.setenv(ENV_SHARDED_UPDATE, "on")
    shared = SimpleNamespace(**{**vars(agent), "value": agent.policy})
    assert not use_sharded_update(shared, [enough])  # one model for both: skrl's update
    monkeypatch.setenv(ENV_SHARDED_UPDATE, "sometimes")
    with pytest.raises(SimuloValueError, match=ENV_SHARDED_UPDATE):
        use_sharded_update(agent, [enough])


def test_shard_rows_are_the_shards_rows_of_a_memory_range_in_memory_order() -> None:
    num_envs, steps = 6, 3
    flat = torch.arange(steps * num_envs, dtype=torch.float32).view(steps, num_envs, 1)  # value = memory row
    block = {"x": flat[:, 2:4]}  # a shard of global environments 2 and 3
    assert shard_rows(block, 2, num_envs, 0, 18)["x"].flatten().tolist() == [2, 3, 8, 9, 14, 15]
    assert shard_rows(block, 2, num_envs, 3, 9)["x"].flatten().tolist() == [3, 8]
    assert shard_rows(block, 2, num_envs, 4, 8)["x"].shape == (0, 1)
    assert shard_rows(block, 2, num_envs, 6, 18)["x"].flatten().tolist() == [8, 9, 14, 15]  # whole steps
    assert shard_rows(block, 2, num_envs, 9, 13)["x"].flatten().tolist() == [9]


def test_iteration_cost_gives_the_serial_fraction_and_amdahls_bound() -> None:
    runners = RunnerCost(cpu_s=2.0, step_cpu_s=1.5, act_cpu_s=0.3, wall_s=2.1, update_cpu_s=1.0)
    cost = IterationCost(runners, collect_wall_s=2.2, learner_cpu_s=1.0, update_cpu_s=0.9)
    assert cost.serial_fraction == pytest.approx(0.25)
    assert cost.speedup_bound(2) == pytest.approx(1.6)
    assert cost.speedup_bound(1) == pytest.approx(1.0)
    both = RunnerCost.combine([runners, RunnerCost(1.0, 0.5, 0.2, 3.0)])
    assert (both.cpu_s, both.step_cpu_s, both.wall_s, both.update_cpu_s) == (3.0, 2.0, 3.0, 1.0)
