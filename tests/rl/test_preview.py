"""simulo.preview: each check passes on a sound task and names the fault of a broken one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError
from simulo.rl.preview import CHECKS


class Walker(simulo.Task):
    """No physics: x follows the actions; "fell" ends an episode at |x| > 2; 20-step episodes."""

    observation_dim = 2
    action_dim = 1
    episode_length_s = 0.2
    physics_dt = 0.01
    physics_steps_per_action = 1

    def build(self, scene: Any) -> None:
        pass

    def on_start(self, env: Any) -> None:
        self.x = np.zeros(self.num_envs)

    def on_pre_physics_step(self, actions: Any) -> None:
        self.x += np.asarray(actions, dtype=float)[:, 0]

    def apply_actions(self, actions: Any) -> None:
        pass

    def get_observations(self) -> Any:
        return np.stack([self.x, self.episode_length_buf / self.max_episode_length], axis=1)

    def get_rewards(self) -> Any:
        return 1.0 - self.x ** 2

    def get_dones(self) -> Any:
        return {"fell": np.abs(self.x) > 2.0}, self.episode_length_buf >= self.max_episode_length - 1

    def reset_idx(self, env_ids: Any) -> None:
        self.x[env_ids] = self.random_uniform(-0.5, 0.5, (), env_ids=env_ids)


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["status"] for c in report["checks"]}


def message(report: dict[str, Any], name: str) -> str:
    return next(c["message"] for c in report["checks"] if c["name"] == name)


def test_sound_task_passes_every_check() -> None:
    task = Walker()
    report = simulo.preview(task, num_envs=4, seed=3)
    assert report["report_schema_version"] == "simulo-local.preview_report.v1"
    assert statuses(report) == {name: "passed" for name in CHECKS}
    assert report["passed"] is True and report["failed"] == []
    assert report["summary"] == "8 of 8 checks passed."
    assert report["steps"] == 21 and report["max_episode_length"] == 20
    assert report["episodes_ended"] >= 4  # the time limit ends every environment's first episode
    assert set(report["endings"]) <= {"fell", "time limit"}
    low, high = report["observation_range"]["min"], report["observation_range"]["max"]
    # an episode truncates at length 19 and is observed after its reset, so lengths 0..18 are seen
    assert len(low) == 2 and low[1] == 0.0 and high[1] == pytest.approx(18 / 20)
    assert "get_observations" not in vars(task)  # the probes are removed


def test_nan_observations_are_caught() -> None:
    class NanWalker(Walker):
        def get_observations(self) -> Any:
            obs = super().get_observations()
            obs[2, 0] = np.nan
            return obs

    report = simulo.preview(NanWalker(), num_envs=4)
    assert report["passed"] is False
    assert report["failed"] == ["reset", "observations", "episode-resets"]
    assert "returned NaN or infinity in environments [2]" in message(report, "observations")
    assert "reset state is not finite" in message(report, "reset")
    assert statuses(report)["rewards"] == "passed"


def test_wrong_observation_shape_is_caught() -> None:
    class NarrowWalker(Walker):
        def get_observations(self) -> Any:
            return super().get_observations()[:, :1]

    report = simulo.preview(NarrowWalker(), num_envs=3)
    assert report["failed"] == ["observations"]
    assert message(report, "observations") == (
        "get_observations() after env.reset() returned shape (3, 1); expected (3, 2) (num_envs, observation_dim=2)"
    )
    assert statuses(report)["random-moves"] == "skipped"
    assert "env.reset() stopped" in message(report, "random-moves")


def test_bad_rewards_and_dones_are_caught() -> None:
    class BadWalker(Walker):
        def get_rewards(self) -> Any:
            rewards = super().get_rewards()
            rewards[0] = np.inf
            return rewards

        def get_dones(self) -> Any:
            named, truncated = super().get_dones()
            return {"time limit": named["fell"]}, truncated.astype(np.float32)

    report = simulo.preview(BadWalker(), num_envs=2, steps=5)
    assert report["failed"] == ["rewards", "dones"]
    assert "NaN or infinity in environments [0]" in message(report, "rewards")
    dones = message(report, "dones")
    assert "'time limit' is reserved" in dones and "truncated has dtype float32; expected bool" in dones


def test_randomness_outside_the_env_breaks_repeatable_starts() -> None:
    class Unseeded(Walker):
        rng = np.random.default_rng()

        def reset_idx(self, env_ids: Any) -> None:
            self.x[env_ids] = self.rng.uniform(-0.5, 0.5, size=len(env_ids))

    report = simulo.preview(Unseeded(), num_envs=2, checks="repeatable-starts")
    assert report["failed"] == ["repeatable-starts"]
    assert "task.random_uniform" in message(report, "repeatable-starts")


def test_hook_errors_and_build_errors_name_the_hook() -> None:
    class Crashing(Walker):
        def apply_actions(self, actions: Any) -> None:
            if self.episode_length_buf.max() >= 3:
                raise RuntimeError("motor on fire")

    report = simulo.preview(Crashing(), num_envs=2)
    assert report["failed"] == ["random-moves"]
    assert "apply_actions() raised RuntimeError at step 4: motor on fire" in message(report, "random-moves")
    assert statuses(report)["episode-resets"] == "skipped"

    class Unstarted(Walker):
        def on_start(self, env: Any) -> None:
            raise ValueError("no joint named slider")

    report = simulo.preview(Unstarted(), num_envs=2)
    assert report["failed"] == ["build"]
    assert "Unstarted.on_start() failed" in message(report, "build") \
        and "no joint named slider" in message(report, "build")
    assert all(status == "skipped" for name, status in statuses(report).items() if name != "build")


def test_too_few_steps_to_see_a_reset() -> None:
    report = simulo.preview(Walker(), num_envs=2, steps=3, checks="observations,episode-resets")
    assert [c["name"] for c in report["checks"]] == ["observations", "episode-resets"]
    assert report["failed"] == ["episode-resets"]
    assert "no episode ended in 3 steps (max_episode_length 20)" in message(report, "episode-resets")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"checks": "observations,settle"}, r"unknown check\(s\) 'settle'"),
        ({"checks": ""}, r"'all' or a comma-separated list"),
        ({"num_envs": 0}, r"num_envs=0"),
        ({"steps": 0}, r"steps=0"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(SimuloValueError, match=match):
        simulo.preview(Walker(), **kwargs)
