"""LearningEnv checks what a task returns: NaN/inf observations and rewards, malformed done masks (dtype,
values, shape) raise a TaskError naming the method and the env step; non-finite ones are also
NonFiniteErrors, which the job runner hands to the job's ``on_anomaly``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo
from simulo.errors import NonFiniteError, TaskError, TaskNonFiniteError

N = 3


class Probe(simulo.Task):
    """A numpy cartpole task whose outputs a test replaces after ``bad_from`` env steps."""

    observation_dim = 2
    action_dim = 1
    episode_length_s = 100.0

    def __init__(self, **bad: Any) -> None:
        super().__init__()
        self.bad = bad
        self.bad_from = 2

    def build(self, scene: simulo.Scene) -> None:
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
        scene.add(self.robot, at="/World/Robot")

    def apply_actions(self, actions: Any) -> None:
        self.robot.set_joint_effort_target(actions, joint_ids=[0])

    def _pick(self, key: str, good: Any) -> Any:
        return self.bad[key] if key in self.bad and self.env.step_count >= self.bad_from else good

    def get_observations(self) -> Any:
        return self._pick("obs", np.array(self.robot.state.joint_positions))

    def get_rewards(self) -> Any:
        return self._pick("rewards", np.ones(N))

    def get_dones(self) -> Any:
        return self._pick("terminated", np.zeros(N, dtype=bool)), self._pick("truncated", np.zeros(N, dtype=bool))

    def reset_idx(self, env_ids: Any) -> None:
        self.robot.reset(env_ids)


def run(task: Probe) -> None:
    env = simulo.LearningEnv(task, num_envs=N, seed=0)
    try:
        env.reset()
        for _ in range(4):
            env.step(np.zeros((N, 1)))
    finally:
        env.close()


@pytest.mark.parametrize(("bad", "error", "message"), [
    ({"obs": np.full((N, 2), np.nan)}, TaskNonFiniteError,
     r"Probe.get_observations\(\) returned a non-finite value nan at index \[0, 0\] at env step 2"),
    ({"obs": np.array([[0.0, np.inf]] * N)}, TaskNonFiniteError, r"get_observations\(\) .*inf at index \[0, 1\]"),
    ({"obs": np.array([["a", "b"]] * N)}, TaskError, r"get_observations\(\) returned dtype <U1 at env step 2"),
    ({"rewards": np.array([1.0, np.nan, 0.0])}, TaskNonFiniteError,
     r"Probe.get_rewards\(\) returned a non-finite value nan at index \[1\] at env step 2"),
    ({"rewards": np.full(N, -np.inf)}, TaskNonFiniteError, r"get_rewards\(\) .*-inf"),
    ({"rewards": np.ones(N + 1)}, TaskError, r"get_rewards\(\) returned shape \(4,\) at env step 2"),
    ({"terminated": np.array(["False"] * N)}, TaskError,
     r"get_dones\(\)\[0\] \(terminated\) returned a done mask of dtype <U5 at env step 2"),
    ({"terminated": np.zeros(N)}, TaskError, r"terminated\) returned a done mask of dtype float64 at env step 2"),
    ({"truncated": np.full(N, np.nan)}, TaskError, r"get_dones\(\)\[1\] \(truncated\) .*dtype float64"),
    ({"truncated": np.array([0, 2, 1])}, TaskError, r"truncated\) returned a done mask with 2 at env step 2"),
    ({"terminated": np.zeros((N, 1), dtype=bool)}, TaskError, r"terminated\) returned shape \(3, 1\)"),
    ({"terminated": {"fell": np.zeros(N)}}, TaskError, r"get_dones\(\)\[0\]\['fell'\] .*dtype float64"),
])
def test_malformed_task_outputs_name_the_method_and_the_step(bad, error, message) -> None:
    with pytest.raises(error, match=message) as info:
        run(Probe(**bad))
    assert isinstance(info.value, TaskError)


def test_good_integer_masks_pass() -> None:
    run(Probe(terminated=np.array([0, 1, 0]), truncated=np.zeros(N, dtype=np.int64)))


def test_a_non_finite_error_inside_a_hook_stays_one_for_on_anomaly() -> None:
    class Poisoned(Probe):
        def apply_actions(self, actions: Any) -> None:
            self.robot.set_joint_effort_target(np.full((N, 1), np.nan), joint_ids=[0])

    with pytest.raises(NonFiniteError, match=r"Poisoned.apply_actions\(\) failed at env step 0") as info:
        run(Poisoned())
    assert isinstance(info.value, TaskError)
