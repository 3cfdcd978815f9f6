"""LearningEnv and Task lifecycle: shapes, resets, episode statistics, errors, sharding, device fallback."""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.errors import NonFiniteError, ShapeError, SimuloValueError, TaskError

torch = pytest.importorskip("torch")

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "cartpole"


def _cartpole_task_class():
    spec = importlib.util.spec_from_file_location("cartpole_sample_task", SAMPLES / "task.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["cartpole_sample_task"] = module
    spec.loader.exec_module(module)
    return module.CartpoleTask


CartpoleTask = _cartpole_task_class()


class Lifecycle(CartpoleTask):
    """Records the order of lifecycle calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def build(self, scene):
        self.calls.append("build")
        super().build(scene)

    def on_start(self, env):
        self.calls.append("on_start")
        super().on_start(env)

    def on_pre_physics_step(self, actions):
        self.calls.append("pre")
        super().on_pre_physics_step(actions)

    def apply_actions(self, actions):
        self.calls.append("apply")
        super().apply_actions(actions)

    def on_post_physics_step(self):
        self.calls.append("post")

    def reset_idx(self, env_ids):
        self.calls.append(f"reset{len(env_ids)}")
        super().reset_idx(env_ids)


def test_lifecycle_order_and_runtime_fields():
    task = Lifecycle()
    env = simulo.LearningEnv(task, num_envs=3, seed=0)
    assert task.calls == ["build", "on_start"]
    assert task.num_envs == 3 and task.device == "cpu"
    assert task.max_episode_length == 300  # 5 s at 1/120 s x 2
    assert env.dt == pytest.approx(1 / 60)
    env.reset()
    task.calls.clear()
    env.step(torch.zeros(3, 1))
    assert task.calls == ["pre", "apply", "apply", "post"]
    assert task.episode_length_buf.tolist() == [1, 1, 1]
    env.close()


def test_reset_returns_observations_with_randomised_pole_and_torch_tensors():
    env = simulo.LearningEnv(CartpoleTask(), num_envs=8, seed=1)
    obs, info = env.reset()
    assert isinstance(obs, torch.Tensor) and obs.shape == (8, 4) and obs.dtype == torch.float32
    assert info == {}
    pole = obs[:, 0].numpy()
    assert np.all(np.abs(pole) <= 0.25 * np.pi) and np.ptp(pole) > 0.1  # drawn, not constant
    assert np.allclose(obs[:, 1:].numpy(), 0.0)
    env.close()


def test_same_seed_same_bytes_and_other_seed_differs():
    def run(seed):
        env = simulo.LearningEnv(CartpoleTask(), num_envs=4, seed=seed)
        obs, _ = env.reset()
        rows = [obs.numpy().copy()]
        for k in range(30):
            obs, rew, *_ = env.step(torch.full((4, 1), 0.3 if k % 2 else -0.2))
            rows.append(obs.numpy().copy())
        env.close()
        return np.stack(rows)

    a, b, c = run(7), run(7), run(8)
    assert a.tobytes() == b.tobytes()
    assert not np.array_equal(a, c)


def test_terminated_envs_reset_and_report_episode_statistics():
    env = simulo.LearningEnv(CartpoleTask(), num_envs=4, seed=0)
    env.reset()
    finished = None
    for _ in range(200):
        obs, rew, term, trunc, info = env.step(torch.ones(4, 1))  # full push: the cart leaves the rail
        if "episode" in info:
            finished = (term.clone(), info)
            break
    assert finished is not None, "pushing at full force must end an episode"
    term, info = finished
    ids = np.nonzero(term.numpy())[0]
    assert len(info["episode"]["return"]) == len(ids) and len(ids) > 0
    assert set(info["terminations"]) == {"cart out of bounds", "pole fell"}
    assert (info["episode"]["length"] > 0).all()
    # the finished environments start over: their step counters are back to zero
    assert all(env.task.episode_length_buf[i] == 0 for i in ids)


def test_time_limit_truncates_at_max_episode_length():
    class Short(CartpoleTask):
        episode_length_s = 0.1  # 6 env steps

        def get_dones(self):
            zeros = torch.zeros(self.num_envs, dtype=torch.bool)
            return zeros, zeros

    for backstop in (False, True):  # the SDK's time_limit_backstop: the time limit truncates here either way
        env = simulo.LearningEnv(Short(), num_envs=2, seed=0, time_limit_backstop=backstop)
        env.reset()
        truncs = []
        for _ in range(6):
            _, _, term, trunc, info = env.step(torch.zeros(2, 1))
            truncs.append(bool(trunc[0]))
        assert truncs == [False] * 5 + [True]
        assert info["episode"]["length"].tolist() == [6, 6]
        env.close()


@pytest.mark.parametrize("actions, error", [
    (np.zeros((3, 1)), ShapeError),
    (np.zeros((4, 2)), ShapeError),
    (np.full((4, 1), np.nan), NonFiniteError),
    (np.full((4, 1), np.inf), NonFiniteError),
])
def test_bad_actions_are_refused(actions, error):
    env = simulo.LearningEnv(CartpoleTask(), num_envs=4, seed=0)
    env.reset()
    before = env.task.episode_length_buf.clone()
    with pytest.raises(error, match="actions"):
        env.step(actions)
    assert torch.equal(env.task.episode_length_buf, before)  # nothing half-applied
    env.close()


def test_observation_dim_mismatch_names_the_method_and_step():
    class Wrong(CartpoleTask):
        observation_dim = 5

    env = simulo.LearningEnv(Wrong(), num_envs=2, seed=0)
    with pytest.raises(TaskError, match=r"get_observations\(\) returned shape \(2, 4\).*observation_dim=5"):
        env.reset()


def test_crash_inside_a_task_reports_method_and_step():
    class Crashing(CartpoleTask):
        def get_rewards(self):
            if self.episode_length_buf[0] >= 3:
                raise ZeroDivisionError("boom")
            return super().get_rewards()

    env = simulo.LearningEnv(Crashing(), num_envs=2, seed=0)
    env.reset()
    env.step(torch.zeros(2, 1))
    env.step(torch.zeros(2, 1))
    with pytest.raises(TaskError, match=r"Crashing.get_rewards\(\) failed at env step 3: ZeroDivisionError: boom"):
        env.step(torch.zeros(2, 1))


@pytest.mark.parametrize("kwargs, message", [
    ({"num_envs": 0}, "num_envs"),
    ({"physics_steps_per_action": 0}, "physics_steps_per_action"),
    ({"device": "tpu"}, "device"),
    ({"tensor_library": "jax"}, "tensor_library"),
    ({"seed": 1.5}, "seed"),
])
def test_bad_env_arguments(kwargs, message):
    with pytest.raises(SimuloValueError, match=message):
        simulo.LearningEnv(CartpoleTask(), **kwargs)


def test_task_without_dimensions_is_refused():
    class NoDims(simulo.Task):
        def build(self, scene):
            pass

    with pytest.raises(TaskError, match="observation_dim must be a positive integer"):
        simulo.LearningEnv(NoDims())


def test_cuda_without_cuda_warns_once_and_runs_on_cpu(monkeypatch):
    import simulo.rl.devices as env_module

    monkeypatch.setattr(env_module, "_CUDA_WARNED", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = simulo.LearningEnv(CartpoleTask(), num_envs=1, device="cuda")
        env2 = simulo.LearningEnv(CartpoleTask(), num_envs=1, device="cuda:0")
    assert env.device == "cpu" and env2.device == "cpu"
    assert sum("CUDA is not available" in str(w.message) for w in caught) == 1


def test_numpy_task_gets_numpy_tensors():
    spec = importlib.util.spec_from_file_location(
        "numpy_task_fixture", Path(__file__).parent / "fixtures" / "numpy_task.py"
    )
    fixture = importlib.util.module_from_spec(spec)
    sys.modules["numpy_task_fixture"] = fixture
    spec.loader.exec_module(fixture)
    env = simulo.LearningEnv(fixture.NumpyCartpole(), num_envs=2, seed=0)
    obs, _ = env.reset()
    assert isinstance(obs, np.ndarray) and obs.dtype == np.float32
    obs, rew, term, trunc, _ = env.step(np.ones((2, 1)))
    assert isinstance(rew, np.ndarray) and obs[0, 0] > 0  # pushed along +x


def test_shards_reproduce_a_single_process_run():
    full = simulo.LearningEnv(CartpoleTask(), num_envs=8, seed=3, envs_per_world=4)
    a = simulo.LearningEnv(CartpoleTask(), num_envs=4, seed=3, envs_per_world=4, shard=(0, 8))
    b = simulo.LearningEnv(CartpoleTask(), num_envs=4, seed=3, envs_per_world=4, shard=(4, 8))
    o1, _ = full.reset()
    oa, _ = a.reset()
    ob, _ = b.reset()
    assert torch.equal(o1, torch.cat([oa, ob]))
    rng = np.random.default_rng(0)
    for _ in range(120):
        act = torch.tensor(rng.uniform(-1, 1, (8, 1)), dtype=torch.float32)
        o1, r1, *_ = full.step(act)
        oa, ra, *_ = a.step(act[:4])
        ob, rb, *_ = b.step(act[4:])
    assert torch.equal(o1, torch.cat([oa, ob])) and torch.equal(r1, torch.cat([ra, rb]))


def test_shard_must_start_on_a_world_boundary():
    with pytest.raises(simulo.SceneError, match="multiple of envs_per_world=4"):
        simulo.LearningEnv(CartpoleTask(), num_envs=2, envs_per_world=4, shard=(2, 8))


def test_seeded_reset_repeats_an_episode_start():
    env = simulo.LearningEnv(CartpoleTask(), num_envs=2, seed=0)
    env.reset()
    env.seeded_reset(1, episode_number=5)
    first = env.task.robot.state.joint_positions[1].clone()
    env.step(torch.zeros(2, 1))
    env.seeded_reset(1, episode_number=5)
    assert torch.equal(env.task.robot.state.joint_positions[1], first)
    env.seeded_reset(1, episode_number=6)
    assert not torch.equal(env.task.robot.state.joint_positions[1], first)


def test_build_failure_reports_the_real_error():
    class Broken(CartpoleTask):
        def build(self, scene):
            raise KeyError("no such robot")

    with pytest.raises(TaskError, match=r"Broken.build\(\) failed at env step 0: KeyError"):
        simulo.LearningEnv(Broken(), num_envs=1)


def test_survived_counts_only_the_time_limit():
    class CutShort(CartpoleTask):
        episode_length_s = 0.1  # max_episode_length 6: the time limit is reached at step 5

        def get_dones(self):
            zeros = torch.zeros(self.num_envs, dtype=torch.bool)
            cut = self.episode_length_buf >= 2
            cut[1] = False  # environment 1 runs to the time limit
            return zeros, cut

    task = CutShort()
    env = simulo.LearningEnv(task, num_envs=2, seed=0)
    env.reset()
    _, _, _, trunc, _ = env.step(torch.zeros(2, 1))
    _, _, _, trunc, _ = env.step(torch.zeros(2, 1))
    assert trunc.tolist() == [True, False]
    assert task.survived().tolist() == [False, False]  # cut short by the task is not survival
    for _ in range(3):
        env.step(torch.zeros(2, 1))
    assert task.survived().tolist()[1] is True


def _mock_engine_class() -> type:
    path = Path(__file__).resolve().parents[1] / "sim" / "contract" / "mock_engine.py"
    spec = importlib.util.spec_from_file_location("rl_test_mock_engine", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MockEngine


def test_learning_env_runs_its_task_on_the_engine_it_names():
    from simulo.engine.registry import register_engine, unregister_engine

    register_engine("mock-for-rl", _mock_engine_class())
    try:
        env = simulo.LearningEnv(CartpoleTask(), num_envs=3, seed=0, engine="mock-for-rl")
        try:
            assert env.sim.engine_name == "mock-for-rl"
            obs, _ = env.reset()
            obs, rewards, terminated, truncated, _ = env.step(torch.zeros(3, 1))
            assert tuple(obs.shape) == (3, 4) and tuple(rewards.shape) == (3,)
        finally:
            env.close()
    finally:
        unregister_engine("mock-for-rl")


def test_learning_env_refuses_an_unknown_engine_name():
    from simulo.engine.registry import UnknownEngineError

    with pytest.raises(UnknownEngineError, match=r"unknown engine 'warp'; registered engines: \[.*'pybullet'"):
        simulo.LearningEnv(CartpoleTask(), num_envs=1, engine="warp")


def test_task_env_is_the_environment_running_it():
    task = CartpoleTask()
    assert task.env is None
    env = simulo.LearningEnv(task, num_envs=2)
    try:
        assert task.env is env.backend and task.env.num_envs == 2
    finally:
        env.close()


class NeverEnds(CartpoleTask):
    """Names no end condition at all: an empty dict means the episode never terminates."""

    def get_dones(self):
        _, truncated = super().get_dones()
        return {}, truncated


def _terminations(task, steps: int = 60) -> int:
    env = simulo.LearningEnv(task, num_envs=4, seed=0)
    try:
        env.reset()
        ended = 0
        for _ in range(steps):
            _, _, terminated, _, info = env.step(torch.ones(4, 1))  # full push: the poles fall
            ended += int(terminated.sum())
            assert ("terminations" in info) == (not isinstance(task, NeverEnds))
        return ended
    finally:
        env.close()


def test_an_empty_dict_of_end_conditions_never_terminates():
    assert _terminations(CartpoleTask()) > 0  # the same pushes end the named conditions' episodes
    assert _terminations(NeverEnds()) == 0


class TorchDrawnStarts(CartpoleTask):
    """Draws its start states from torch's global generator instead of task.random_uniform."""

    def reset_idx(self, env_ids):
        super().reset_idx(env_ids)
        self.drawn = torch.empty(len(env_ids)).uniform_(-1.0, 1.0)


def test_seeded_reset_also_seeds_torch_so_torch_draws_repeat():
    env = simulo.LearningEnv(TorchDrawnStarts(), num_envs=2, seed=5)
    try:
        env.reset()
        env.seeded_reset(1, 17)
        first = env.task.drawn.clone()
        torch.rand(10)  # anything drawn in between does not matter
        env.seeded_reset(0, 17)
        assert torch.equal(env.task.drawn, first)
        env.seeded_reset(0, 18)
        assert not torch.equal(env.task.drawn, first)
    finally:
        env.close()


def test_scene_is_the_scene_the_task_built() -> None:
    task = Lifecycle()
    env = simulo.LearningEnv(task, num_envs=3, seed=0, env_spacing=5.0)
    try:
        scene = env.scene
        assert scene is env.scene
        robots = [item for item in scene.get_items() if item["item"] is task.robot]
        assert len(robots) == 1 and robots[0]["per_environment"] is True
        origins = np.asarray(scene.env_origins)
        assert origins.shape == (3, 3)
        gaps = np.linalg.norm(origins[:, None, :] - origins[None, :, :], axis=-1)
        assert np.isclose(gaps[gaps > 0].min(), 5.0)
    finally:
        env.close()


class Spaced(CartpoleTask):
    env_spacing = 7.0


@pytest.mark.parametrize(("task", "kwargs", "spacing"), [
    (CartpoleTask, {}, 4.0),  # the task's own default, the SDK's 4.0
    (Spaced, {}, 7.0),  # a task's own spacing, when the caller passes none
    (Spaced, {"env_spacing": 4.0}, 4.0),  # a value passed, the SDK's default included, wins
    (Spaced, {"env_spacing": 2.5}, 2.5),
])
def test_env_spacing_is_the_tasks_unless_passed(task, kwargs, spacing):
    env = simulo.LearningEnv(task(), num_envs=2, seed=0, **kwargs)
    assert env.scene.env_spacing == spacing
    env.close()


def test_the_default_device_is_the_sdks_cuda_and_runs_on_the_cpu_without_a_warning(monkeypatch):
    import simulo.rl.devices as env_module

    monkeypatch.setattr(env_module, "_CUDA_WARNED", False)
    assert inspect.signature(simulo.LearningEnv).parameters["device"].default == "cuda"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = simulo.LearningEnv(CartpoleTask(), num_envs=1)
    assert env.device == "cpu"
    env.close()


@pytest.mark.parametrize(("kwargs", "fragment"), [
    ({"render_mode": "rgb_array"}, "render_mode='rgb_array'"),
    ({"scene_usd": "stage.usd"}, "scene_usd='stage.usd'"),
    ({"viewstream": True}, "viewstream=True"),
    ({"viewstream": False}, "simulo run --viewstream"),
    ({"time_limit_backstop": "yes"}, "time_limit_backstop"),
])
def test_the_sdks_parameters_without_a_local_meaning_are_refused(kwargs, fragment):
    with pytest.raises(SimuloValueError, match=re.escape(fragment)):
        simulo.LearningEnv(CartpoleTask(), num_envs=1, **kwargs)


def test_simulo_locals_own_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        simulo.LearningEnv(CartpoleTask(), 1, "cpu", None, None, None, True, 0, None, None, None, False, False, "torch")
    env = simulo.LearningEnv(CartpoleTask(), 1, "cpu", None, None, 3.0, True, 0, None, None, None, False, False,
                             tensor_library="torch")
    assert env.scene.env_spacing == 3.0 and isinstance(env.reset()[0], torch.Tensor)
    env.close()
