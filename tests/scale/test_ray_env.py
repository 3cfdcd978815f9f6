"""Rollouts sharded over Ray actors: the same numbers as one process, errors, dead workers."""

from __future__ import annotations

import os
import re
import signal
import time
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError, TaskError, WorkerError
from simulo.rl.env import env_backend
from simulo.rl.local_env import LocalEnv
from simulo.rl.training import RLTrainer
from simulo.rl.training.sharded_update import ENV_SHARDED_UPDATE
from simulo.scale.ray_env import RayLearningEnv, backend_factory

torch = pytest.importorskip("torch")

N = 24
PER_WORLD = 8  # 3 worlds: two actors get shards of 8 and 16 environments


def _assert_same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _assert_same(a[key], b[key], f"{where}[{key!r}]")
        return
    assert type(a) is type(b), where
    if isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and torch.equal(a, b), where
    else:
        np.testing.assert_array_equal(a, b, err_msg=where)


def test_sharded_rollouts_equal_one_process(ray_cluster: Any, cartpole_task: ModuleType) -> None:
    one = simulo.LearningEnv(cartpole_task.CartpoleTask(), num_envs=N, seed=7, envs_per_world=PER_WORLD)
    sharded = RayLearningEnv(cartpole_task.CartpoleTask(), N, seed=7, envs_per_world=PER_WORLD, workers=2)
    try:
        assert [(s.first, s.count) for s in sharded.shards] == [(0, 8), (8, 16)]
        assert len(set(sharded.worker_pids())) == 2 and os.getpid() not in sharded.worker_pids()
        assert (sharded.observation_dim, sharded.action_dim, sharded.dt) == \
            (one.observation_dim, one.action_dim, one.dt)
        one.return_final_observation = sharded.return_final_observation = True
        _assert_same(one.reset()[0], sharded.reset()[0], "reset")
        rng = np.random.default_rng(0)
        finished = 0
        for t in range(120):
            actions = torch.tensor(rng.uniform(-1, 1, (N, 1)), dtype=torch.float32)
            expected, got = one.step(actions), sharded.step(actions)
            for k, name in enumerate(("obs", "rewards", "terminated", "truncated", "info")):
                _assert_same(expected[k], got[k], f"step {t} {name}")
            finished += len(expected[4].get("episode", {}).get("return", ()))
        assert finished > N  # episodes ended (and reset) in both shards, so the merged info was exercised
        _assert_same(one.reset(seed=11)[0], sharded.reset(seed=11)[0], "reseeded reset")
        one.seeded_reset(13, 4)
        sharded.seeded_reset(13, 4)
        _assert_same(one.observations(), sharded.observations(), "observations after seeded_reset")
        zero = torch.zeros(N, 1)
        _assert_same(one.step(zero)[0], sharded.step(zero)[0], "after seeded_reset")
    finally:
        sharded.close()
        one.close()


def test_trainer_on_sharded_env_trains_through_env_runners(ray_cluster: Any, cartpole_task: ModuleType,
                                                          tmp_path: Any) -> None:
    stats, weights = [], []
    for workers in (1, 2):
        env = RayLearningEnv(cartpole_task.CartpoleTask(), 16, seed=3, envs_per_world=4, workers=workers)
        try:
            trainer = RLTrainer(env, seed=1, checkpoint_dir=tmp_path / str(workers), progress=False,
                                agent_cfg={"rollouts": 16, "mini_batches": 2, "learning_epochs": 1})
            assert trainer._collector is not None  # whole rollouts from the actors, not a round trip per step
            stats.append(trainer.train(2))
            weights.append([p.detach().clone() for p in trainer.agent.policy.parameters()])
        finally:
            env.close()
    assert stats[0]["reward_history"] == stats[1]["reward_history"]
    assert all(torch.equal(a, b) for a, b in zip(*weights, strict=True))
    assert stats[0]["reward_history"][-1] is not None and stats[0]["env_steps"] == stats[1]["env_steps"] == 512


def test_learning_env_shards_itself_under_the_runners_backend(ray_cluster: Any, cartpole_task: ModuleType) -> None:
    with env_backend(backend_factory(2, None)):
        env = simulo.LearningEnv(cartpole_task.CartpoleTask(), num_envs=8, seed=0, envs_per_world=4)
        try:
            assert isinstance(env.backend, RayLearningEnv) and env.workers == 2
            assert tuple(env.reset()[0].shape) == (8, 4)
            # the driver describes the scene without simulating it, and its own task gains no robot
            local = simulo.LearningEnv(cartpole_task.CartpoleTask(), num_envs=8, seed=0, envs_per_world=4, shard=(0, 8))
            try:
                assert np.array_equal(np.asarray(env.scene.env_origins), np.asarray(local.scene.env_origins))
            finally:
                local.close()
            assert env.scene is env.scene
            assert "robot" not in vars(env.task)
        finally:
            env.close()
        shard = simulo.LearningEnv(cartpole_task.CartpoleTask(), num_envs=4, seed=0, envs_per_world=4, shard=(4, 8))
        try:
            assert type(shard.backend) is LocalEnv  # a shard is never sharded again
        finally:
            shard.close()
    plain = simulo.LearningEnv(cartpole_task.CartpoleTask(), num_envs=4, seed=0)
    try:
        assert type(plain.backend) is LocalEnv  # outside the block, environments run in this process
    finally:
        plain.close()


def test_fewer_worlds_than_workers_uses_one_actor_per_world(ray_cluster: Any, cartpole_task: ModuleType) -> None:
    env = RayLearningEnv(cartpole_task.CartpoleTask(), 6, seed=0, workers=2)  # default 16 per world: one world
    try:
        assert [(s.first, s.count) for s in env.shards] == [(0, 6)] and env.workers == 1
    finally:
        env.close()


class _BadObservations(simulo.Task):
    """Returns one column too few."""

    observation_dim = 2
    action_dim = 1

    def build(self, scene: Any) -> None:
        scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)

    def apply_actions(self, actions: Any) -> None:
        pass

    def get_observations(self) -> Any:
        return np.zeros((self.num_envs, 1))

    def reset_idx(self, env_ids: Any) -> None:
        pass


def test_bad_arguments_and_task_errors(ray_cluster: Any, cartpole_task: ModuleType) -> None:
    with pytest.raises(SimuloValueError, match="shard"):
        RayLearningEnv(cartpole_task.CartpoleTask(), 8, shard=(0, 8))
    with pytest.raises(SimuloValueError, match="LearningEnv's arguments"):
        RayLearningEnv(cartpole_task.CartpoleTask(), 8, colour="red")
    with pytest.raises(SimuloValueError, match="num_envs"):
        RayLearningEnv(cartpole_task.CartpoleTask(), 0)
    with pytest.raises(SimuloValueError, match="workers"):
        RayLearningEnv(cartpole_task.CartpoleTask(), 8, workers=0)
    no_actions = _BadObservations()
    no_actions.action_dim = 0
    with pytest.raises(TaskError, match="_BadObservations.action_dim must be a positive integer, got 0"):
        RayLearningEnv(no_actions, 4, envs_per_world=2, workers=2)  # raised by the actors, as itself
    env = RayLearningEnv(_BadObservations(), 4, envs_per_world=2, workers=2)
    try:
        with pytest.raises(TaskError, match=r"get_observations\(\) returned shape \(2, 1\)"):
            env.reset()
        with pytest.raises(NotImplementedError, match="pre-reset hooks"):
            env.add_pre_reset_hook(lambda ids: None)
    finally:
        env.close()


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _assert_all_stopped(pids: list[int], within: float = 15.0) -> None:
    """Every process of ``pids`` is gone within ``within`` seconds (Ray kills actors asynchronously)."""
    deadline = time.monotonic() + within
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)], f"actor processes left of {pids}"


LOST = (r"Ray worker 1 \(pid {pid}\) of this RayLearningEnv died during {what} \(\w+\): "
        r"its shard 1 \(4 envs: 4..7 of 8\)")
RESUME = r"the other 1 worker was stopped\. To continue, resume from the last checkpoint: .*--from latest:latest"


def test_dead_worker_raises_worker_error(ray_cluster: Any, cartpole_task: ModuleType) -> None:
    env = RayLearningEnv(cartpole_task.CartpoleTask(), 8, seed=0, envs_per_world=4, workers=2)
    pids = env.worker_pids()
    try:
        env.reset()
        env.step(torch.zeros(8, 1))
        os.kill(pids[1], signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(WorkerError, match=LOST.format(pid=pids[1], what=r"step\(\) at env step 1")) as lost:
            env.step(torch.zeros(8, 1))
        assert time.monotonic() - started < 30
        assert re.search(RESUME, str(lost.value))
        _assert_all_stopped(pids)
        with pytest.raises(WorkerError, match="Ray worker 1 .* died"):  # later calls repeat why, never hang
            env.step(torch.zeros(8, 1))
    finally:
        env.close()


@pytest.mark.slow  # about 10 s each: a trainer on two actors
@pytest.mark.parametrize(("phase", "what"), [
    pytest.param("rollout", "the rollout of iteration 2", id="rollout"),  # the actors' Ray calls
    pytest.param("update", r"(handing out the update's targets|the gradients of memory rows \d+\.\.\d+)",
                 id="update"),  # their direct channels
])
def test_worker_killed_mid_training_fails_clearly_and_stops_the_others(
        ray_cluster: Any, cartpole_task: ModuleType, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, phase: str,
        what: str) -> None:
    monkeypatch.setenv(ENV_SHARDED_UPDATE, "on")
    env = RayLearningEnv(cartpole_task.CartpoleTask(), 8, seed=3, envs_per_world=4, workers=2)
    pids = env.worker_pids()
    started = 0.0

    def kill() -> None:
        nonlocal started
        os.kill(pids[1], signal.SIGKILL)
        started = time.monotonic()

    try:
        trainer = RLTrainer(env, device="cpu", seed=1, checkpoint_dir=tmp_path, progress=False,
                            agent_cfg={"rollouts": 16, "mini_batches": 2, "learning_epochs": 1})
        trainer.train(1)
        collector: Any = trainer._collector
        if phase == "rollout":
            kill()
        else:  # between iteration 2's rollout and its update
            set_targets = collector.set_targets

            def kill_then_set_targets(*args: Any) -> None:
                kill()
                set_targets(*args)

            monkeypatch.setattr(collector, "set_targets", kill_then_set_targets)
        with pytest.raises(WorkerError, match=LOST.format(pid=pids[1], what=what)) as lost:
            trainer.train(2)
        assert 0 < time.monotonic() - started < 30
        assert re.search(RESUME, str(lost.value))
        _assert_all_stopped(pids)
    finally:
        env.close()
