"""A task composed of simulo.ObservationComponent, RewardComponent and TerminationCondition.

The cartpole sample written with components observes, rewards and terminates value for value as the sample's
own ``get_observations``, ``get_rewards`` and ``get_dones``.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simulo
from simulo.errors import TaskError

torch = pytest.importorskip("torch")

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "cartpole"


def _cartpole_task_class() -> Any:
    spec = importlib.util.spec_from_file_location("cartpole_sample_task_components", SAMPLES / "task.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the environment reads the task's module to choose torch tensors
    spec.loader.exec_module(module)
    return module.CartpoleTask


CartpoleTask = _cartpole_task_class()


class _Joints:
    """Resolves the cart's and the pole's joints at initialize."""

    def initialize(self, robot: Any, device: str, num_envs: int) -> None:
        super().initialize(robot, device, num_envs)  # type: ignore[misc]
        self.cart = robot.find_joints("slider_to_cart")[0]
        self.pole = robot.find_joints("cart_to_pole")[0]

    def joint(self, which: str, velocity: bool = False) -> Any:
        state = self.robot.state  # type: ignore[attr-defined]
        values = state.joint_velocities if velocity else state.joint_positions
        return values[:, self.cart if which == "cart" else self.pole]


class JointStates(_Joints, simulo.ObservationComponent):
    def dim(self, robot: Any) -> int:
        return 4

    def compute(self, prev_actions: Any) -> Any:
        return torch.stack([self.joint("pole"), self.joint("pole", True), self.joint("cart"),
                            self.joint("cart", True)], dim=1).float()


class Alive(simulo.RewardComponent):
    def __init__(self, alive: float, terminated: float) -> None:
        self.alive, self.terminated = alive, terminated

    def compute(self, prev_actions: Any, terminated: Any) -> Any:
        ended = terminated.float()
        return self.alive * (1.0 - ended) + self.terminated * ended


class Penalty(_Joints, simulo.RewardComponent):
    def __init__(self, which: str, velocity: bool, weight: float, squared: bool = False) -> None:
        self.which, self.velocity, self.weight, self.squared = which, velocity, weight, squared

    def compute(self, prev_actions: Any, terminated: Any) -> Any:
        value = self.joint(self.which, self.velocity)
        return self.weight * (value ** 2 if self.squared else value.abs())


class Beyond(_Joints, simulo.TerminationCondition):
    def __init__(self, name: str, which: str, limit: float) -> None:
        self.name, self.which, self.limit = name, which, limit

    def check(self) -> Any:
        return self.joint(self.which).abs() > self.limit


class ComponentCartpole(CartpoleTask):  # type: ignore[misc,valid-type]
    """The sample's cartpole, its observations, rewards and terminations from components."""

    get_observations = simulo.Task.get_observations
    get_rewards = simulo.Task.get_rewards
    get_dones = simulo.Task.get_dones

    def on_start(self, env: Any) -> None:
        super().on_start(env)
        self.observation_components = [JointStates()]
        self.reward_components = [
            Alive(self.rew_alive, self.rew_terminated),
            Penalty("pole", False, self.rew_pole_angle, squared=True),
            Penalty("cart", True, self.rew_cart_vel),
            Penalty("pole", True, self.rew_pole_vel),
        ]
        self.termination_conditions = [Beyond("cart out of bounds", "cart", self.max_cart_pos),
                                       Beyond("pole fell", "pole", math.pi / 2)]


def _rollout(task: Any, steps: int = 150) -> list[Any]:
    env = simulo.LearningEnv(task, num_envs=4, seed=3)
    try:
        obs, _ = env.reset()
        out = [obs.clone()]
        actions = torch.as_tensor(np.random.default_rng(0).uniform(-1, 1, (steps, 4, 1)), dtype=torch.float32)
        for k in range(steps):
            obs, rewards, terminated, truncated, info = env.step(actions[k])
            names = {name: mask.clone() for name, mask in info.get("terminations", {}).items()}
            out.append((obs.clone(), rewards.clone(), terminated.clone(), truncated.clone(), names))
        return out
    finally:
        env.close()


def test_the_cartpole_from_components_matches_the_sample_value_for_value() -> None:
    written, composed = _rollout(CartpoleTask()), _rollout(ComponentCartpole())
    assert torch.equal(written[0], composed[0])
    ended = 0
    for a, b in zip(written[1:], composed[1:]):
        for x, y in zip(a[:4], b[:4]):
            assert torch.equal(x, y)
        assert a[4].keys() == b[4].keys() == {"cart out of bounds", "pole fell"}
        assert all(torch.equal(a[4][name], b[4][name]) for name in a[4])
        ended += int(a[2].sum()) + int(a[3].sum())
    assert ended > 0  # episodes ended (terminated or truncated) during the comparison


def test_the_bases_are_subclassable_and_say_what_to_override() -> None:
    for base, member, call in ((simulo.ObservationComponent, "compute(prev_actions)", lambda c: c.compute(None)),
                               (simulo.ObservationComponent, "dim(robot)", lambda c: c.dim(None)),
                               (simulo.RewardComponent, "compute(prev_actions, terminated)",
                                lambda c: c.compute(None, None)),
                               (simulo.TerminationCondition, "check()", lambda c: c.check())):
        term = type("Term", (base,), {})()
        term.initialize("robot", "cpu", 3)
        assert (term.robot, term.device, term.num_envs) == ("robot", "cpu", 3)
        with pytest.raises(NotImplementedError, match=re.escape(f"Term.{member} must be overridden")):
            call(term)
    assert simulo.TerminationCondition.name is None


class _Broken(ComponentCartpole):
    def on_start(self, env: Any) -> None:
        super().on_start(env)
        self.observation_dim = 5


def test_component_widths_must_add_up_to_observation_dim() -> None:
    with pytest.raises(TaskError, match=r"observation_components add up to 4 values, but observation_dim is 5"):
        _rollout(_Broken(), steps=1)


class _NotATerm(ComponentCartpole):
    def on_start(self, env: Any) -> None:
        super().on_start(env)
        self.reward_components = [object()]


def test_a_listed_term_of_the_wrong_kind_is_named() -> None:
    with pytest.raises(TaskError, match=r"reward_components holds <object object at .*>, which is not a "
                                        r"simulo\.RewardComponent"):
        _rollout(_NotATerm(), steps=1)


def test_a_task_with_neither_hooks_nor_components_says_so() -> None:
    with pytest.raises(NotImplementedError, match="or the task must list observation_components"):
        simulo.Task().get_observations()


class _Constant(simulo.ObservationComponent):
    def __init__(self, value: float, width: int) -> None:
        self.value, self.width = value, width

    def dim(self, robot: Any) -> int:
        return self.width

    def compute(self, prev_actions: Any) -> Any:
        return np.full((self.num_envs, self.width), self.value, dtype=np.float32)


class _Numpy(simulo.Task):
    observation_dim = 3
    action_dim = 2
    robot = "the robot"


def test_numpy_components_are_initialized_once_and_concatenated() -> None:
    task = _Numpy()
    task.num_envs, task.device, task.episode_length_buf = 2, "cpu", np.zeros(2, dtype=np.int64)
    first, second = _Constant(1.0, 1), _Constant(2.0, 2)
    task.observation_components = [first, second]
    observed = task.get_observations()
    assert isinstance(observed, np.ndarray) and observed.tolist() == [[1.0, 2.0, 2.0]] * 2
    assert first.robot == "the robot" and task.actions.shape == (2, 2) and not task.actions.any()
    first.robot = None
    task.get_observations()
    assert first.robot is None  # not initialized again
