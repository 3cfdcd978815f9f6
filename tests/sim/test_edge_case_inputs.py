"""Regression tests for defects found in review of the runtime (each failed before its fix)."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import simulo
from simulo.errors import SceneError, SimuloValueError, TaskError

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "cartpole"


def _sim(cartpole: simulo.Asset, num_envs: int = 2, **robot_kwargs):
    scene = simulo.Scene(num_envs=num_envs)
    robot = simulo.Robot(asset=cartpole, **robot_kwargs)
    scene.add(robot, at="/World/Robot")
    return scene, robot, simulo.Simulation(scene)


@pytest.mark.parametrize("values", [0.0, ("a", 0.0), (float("nan"), 0.0), (0.0, float("inf"))])
def test_bad_default_joint_positions_are_a_simulo_error(cartpole, values):
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(asset=cartpole, articulation=simulo.ArticulationConfig(default_joint_positions=values))
    scene.add(robot, at="/World/Robot")
    with pytest.raises(SimuloValueError, match=r"default_joint_positions must have one value per joint \(2: .*\), each a finite number"):
        simulo.Simulation(scene)
    assert scene._simulation is None and robot._rt is None


def test_complex_targets_are_refused_not_truncated(cartpole):
    _, robot, sim = _sim(cartpole)
    with sim, warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SimuloValueError, match="positions must be numeric, got dtype complex128"):
            robot.set_joint_position_target(np.array([[1 + 2j, 0.0], [0.0, 0.0]]))
        assert np.isnan(robot._rt.pos_t).all()


def test_transform_with_a_bad_child_is_not_half_added(cartpole):
    scene = simulo.Scene(num_envs=1)
    transform = simulo.Transform(name="t", pose=simulo.Pose.from_xyz(1, 0, 0))
    transform.add(simulo.Robot(asset=cartpole), at="Robot").add("not an item", at="x")
    with pytest.raises(SceneError, match="cannot add str"):
        scene.add(transform, at="/Stage/T")
    assert scene.get_items() == []
    assert scene.root == "/World"  # the refused path did not become the root


@pytest.mark.parametrize("kwargs", [{"eye": (1.0, 2.0)}, {"eye": "abc"}, {"target": (0.0, float("nan"), 0.0)}])
def test_render_checks_eye_and_target(cartpole, kwargs):
    _, _, sim = _sim(cartpole, num_envs=1)
    with sim:
        name = next(iter(kwargs))
        with pytest.raises(SimuloValueError, match=f"render {name} must be three finite numbers"):
            sim.render(width=8, height=8, **kwargs)


@pytest.mark.parametrize("shard", [5, (0,), (0, 1, 2)])
def test_malformed_shard_is_a_scene_error(shard):
    scene = simulo.Scene(num_envs=1)
    with pytest.raises(SceneError, match="shard must be"):
        simulo.Simulation(scene, shard=shard)
    assert scene._simulation is None


def test_closing_an_old_simulation_again_keeps_the_new_one_attached(cartpole):
    scene, robot, first = _sim(cartpole, num_envs=1)
    first.close()
    second = simulo.Simulation(scene)
    first.close()  # e.g. an explicit close followed by a context manager's exit
    assert scene._simulation is second and scene.env_origins is not None
    with pytest.raises(SceneError, match="already simulated"):
        scene.add(simulo.Robot(asset=cartpole), at="/World/Other")
    second.close()


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
    assert task.built_scene._simulation is None  # the PyBullet clients were disconnected
    assert all(e["item"]._rt is None for e in task.built_scene.get_items() if e["kind"] == "robot")


@pytest.mark.parametrize("shard", [5, ("a", 4), (0, 2, 3)])
def test_learning_env_malformed_shard_is_a_simulo_error(shard):
    base = _cartpole_task_class()
    with pytest.raises(SimuloValueError, match="shard must be"):
        simulo.LearningEnv(base(), num_envs=2, shard=shard)


def test_cuda_request_runs_on_the_cpu_even_where_cuda_exists(monkeypatch):
    torch = pytest.importorskip("torch")
    import simulo.rl.local_env as env_module

    monkeypatch.setattr(env_module, "_CUDA_WARNED", False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert env_module.resolve_device("cuda:0") == "cpu"  # the state buffers are CPU memory
    assert any("running on the CPU" in str(w.message) for w in caught)


def test_gripper_joints_must_be_two_names():
    with pytest.raises(SimuloValueError, match="ParallelGripper.joints must be two joint names"):
        simulo.ParallelGripper(joints=None)
    with pytest.raises(SimuloValueError, match="ParallelGripper.joints must be two joint names"):
        simulo.ParallelGripper(joints="ab")
