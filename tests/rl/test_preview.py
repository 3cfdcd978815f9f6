"""simulo.preview: the SDK's checks pass on a sound task and each names the fault of a broken one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from report_shapes import shape_errors

import simulo
from simulo.errors import SimuloValueError
from simulo.rl.preview import CHECKS, SELECTABLE_CHECKS, selected_checks


class Walker(simulo.Task):
    """No physics: x follows the first action (the second one steers y); "fell" ends at |x| > 2; 20 steps."""

    observation_dim = 3
    action_dim = 2
    episode_length_s = 0.2
    physics_dt = 0.01
    physics_steps_per_action = 1

    def build(self, scene: Any) -> None:
        pass

    def on_start(self, env: Any) -> None:
        self.x = np.zeros(self.num_envs)
        self.y = np.zeros(self.num_envs)

    def on_pre_physics_step(self, actions: Any) -> None:
        self.x += 0.3 * np.asarray(actions, dtype=float)[:, 0]
        self.y += 0.3 * np.asarray(actions, dtype=float)[:, 1]

    def apply_actions(self, actions: Any) -> None:
        pass

    def get_observations(self) -> Any:
        return np.stack([self.x, self.y, self.episode_length_buf / self.max_episode_length], axis=1)

    def get_rewards(self) -> Any:
        return 1.0 - self.x ** 2

    def get_dones(self) -> Any:
        return {"fell": np.abs(self.x) > 2.0}, self.episode_length_buf >= self.max_episode_length - 1

    def reset_idx(self, env_ids: Any) -> None:
        self.x[env_ids] = self.random_uniform(-0.5, 0.5, (), env_ids=env_ids)
        self.y[env_ids] = 0.0


class PushedCartpole(simulo.Task):
    """The catalog cartpole; action 0 pushes the cart, action 1 exists but drives nothing when ``idle_action``."""

    observation_dim = 4
    action_dim = 1
    episode_length_s = 0.5

    def build(self, scene: Any) -> None:
        scene.add(simulo.Terrain.plane(name="ground"), at="/World/ground", per_environment=False)
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
        scene.add(self.robot, at="/World/Robot")

    def on_start(self, env: Any) -> None:
        self.cart = self.robot.find_joints("slider_to_cart")

    def apply_actions(self, actions: Any) -> None:
        self.robot.set_joint_effort_target(20.0 * np.asarray(actions)[:, :1], joint_ids=self.cart)

    def get_observations(self) -> Any:
        return np.concatenate([self.robot.state.joint_positions, self.robot.state.joint_velocities], axis=1)

    def get_rewards(self) -> Any:
        return 1.0 - np.asarray(self.robot.state.joint_positions)[:, 1] ** 2

    def get_dones(self) -> Any:
        return {}, self.episode_length_buf >= self.max_episode_length - 1

    def reset_idx(self, env_ids: Any) -> None:
        self.robot.reset(env_ids)


def stage(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in report["stages"] if s["stage"] == name)


def rows(report: dict[str, Any], status: str | None = None) -> list[dict[str, Any]]:
    return [r for s in report["stages"] for r in s["rows"] if status is None or r["status"] == status]


def failed_titles(report: dict[str, Any]) -> list[str]:
    return [r["title"] for r in rows(report, "fail")]


def test_sound_task_passes_in_the_sdk_report_shape() -> None:
    task = Walker()
    report = simulo.preview(task, num_envs=4, seed=3)
    assert shape_errors(report, "PreviewReport") == []
    assert report["report_schema_version"] == "simulo.preview_report.v1"
    assert report["verdict"] == "passed" and report["made_policy"] is False
    assert [s["stage"] for s in report["stages"]] == list(CHECKS)
    assert report["task"] == "Walker" and report["task_digest"].startswith("sha256:")
    assert rows(report, "fail") == [] and rows(report, "warn") == []
    assert stage(report, "joint-sweep") == {"stage": "joint-sweep", "status": "skipped",
                                            "skip_reason": "the scene has no robot joints to sweep", "rows": []}
    measurements = report["measurements"]
    assert measurements["steps"] == 21 and measurements["max_episode_length"] == 20
    assert measurements["episodes_ended"] >= 4  # the time limit ends every environment's first episode
    assert set(measurements["endings"]) <= {"fell", "time limit"}
    # without a robot the action map names the observations each action moves
    action_rows = [r for r in rows(report) if r["check"] == "action-map"]
    assert [r["title"] for r in action_rows] == ["Action 0 moves observation 0", "Action 1 moves observation 1"]
    assert all(r["owner"] is None and r["problem"] is None for r in rows(report))
    assert report["summary"].startswith("Preview passed: ")
    assert "get_observations" not in vars(task)  # the probes wrap the environment, not the task


def test_the_cartpole_is_swept_joint_by_joint_and_its_action_mapped() -> None:
    report = simulo.preview(PushedCartpole(), num_envs=3)
    assert shape_errors(report, "PreviewReport") == []
    assert report["verdict"] == "passed", report["summary"]
    sweep = [r["title"] for r in stage(report, "joint-sweep")["rows"]]
    assert len(sweep) == 6 and sum("slider_to_cart" in t for t in sweep) == 3
    assert any(t.startswith("slider_to_cart reaches -") for t in sweep)
    assert stage(report, "settle")["status"] == "passed"
    action = next(r for r in rows(report) if r["check"] == "action-map")
    assert action["title"].startswith("Action 0 moves") and "slider_to_cart" in action["title"]


def test_an_action_that_moves_nothing_fails_the_action_map() -> None:
    class Idle(PushedCartpole):
        action_dim = 2

    report = simulo.preview(Idle(), num_envs=3, checks="action-map")
    assert report["verdict"] == "failed"
    assert [s["status"] for s in report["stages"]] == ["skipped", "skipped", "skipped", "failed"]
    assert stage(report, "settle")["skip_reason"] == "not selected (checks='action-map')"
    failed = rows(report, "fail")
    assert [(r["check"], r["title"], r["owner"]) for r in failed] == [("action-map", "Action 1 moves the robot",
                                                                        "task")]
    assert "action 1 at +1 moved nothing" in failed[0]["problem"] and failed[0]["fix"]


def test_nan_observations_fail_the_training_loop() -> None:
    class NanWalker(Walker):
        def get_observations(self) -> Any:
            obs = super().get_observations()
            obs[2, 0] = np.nan
            return obs

    report = simulo.preview(NanWalker(), num_envs=4, checks="training-loop")
    assert report["verdict"] == "failed" and stage(report, "training-loop")["status"] == "failed"
    (row,) = [r for r in rows(report, "fail") if r["title"].startswith("Observations")]
    assert "returned NaN or infinity in environments [2]" in row["problem"] and row["env"] == 2
    assert row["owner"] == "task"


def test_wrong_observation_shape_stops_at_the_reset() -> None:
    class NarrowWalker(Walker):
        def get_observations(self) -> Any:
            return super().get_observations()[:, :1]

    report = simulo.preview(NarrowWalker(), num_envs=3)
    assert failed_titles(report) == ["Observations are finite, shape (num_envs, 3)"]
    assert rows(report, "fail")[0]["problem"].startswith(
        "get_observations() after env.reset() returned shape (3, 1); expected (3, 3)")
    for name in ("settle", "joint-sweep", "random-moves"):
        assert stage(report, name)["skip_reason"] == "not run: env.reset() failed (see Training loop)"


def test_bad_rewards_and_dones_fail_their_rows() -> None:
    class BadWalker(Walker):
        def get_rewards(self) -> Any:
            rewards = super().get_rewards()
            rewards[0] = np.inf
            return rewards

        def get_dones(self) -> Any:
            named, truncated = super().get_dones()
            return {"time limit": named["fell"]}, truncated.astype(np.float32)

    report = simulo.preview(BadWalker(), num_envs=2, checks="training-loop")
    problems = {r["title"]: r["problem"] for r in rows(report, "fail")}
    assert set(problems) == {"Rewards are one finite number per environment",
                             "get_dones() returns boolean masks and valid end-condition names"}
    assert "NaN or infinity in environments [0]" in problems["Rewards are one finite number per environment"]
    dones = problems["get_dones() returns boolean masks and valid end-condition names"]
    assert '"time limit"' in dones and "truncated has dtype float32; expected bool" in dones


def test_randomness_outside_the_env_breaks_repeatable_starts() -> None:
    class Unseeded(Walker):
        rng = np.random.default_rng()

        def reset_idx(self, env_ids: Any) -> None:
            self.x[env_ids] = self.rng.uniform(-0.5, 0.5, size=len(env_ids))
            self.y[env_ids] = 0.0

    report = simulo.preview(Unseeded(), num_envs=2, checks="training-loop")
    assert "Seeded resets repeat their start" in failed_titles(report)


def test_a_failing_action_hook_fails_random_moves() -> None:
    class Crashing(Walker):
        def apply_actions(self, actions: Any) -> None:
            if self.episode_length_buf.max() >= 3:
                raise RuntimeError("motor on fire")

    report = simulo.preview(Crashing(), num_envs=2)
    assert stage(report, "random-moves")["status"] == "failed"
    (row,) = rows(report, "fail")
    assert row["title"] == "The action hooks run" and "apply_actions() raised RuntimeError at step 4: motor on fire" \
        in row["problem"]
    assert stage(report, "training-loop")["status"] == "skipped"


def test_a_task_that_does_not_build_fails_settle() -> None:
    class Unstarted(Walker):
        def on_start(self, env: Any) -> None:
            raise ValueError("no joint named slider")

    report = simulo.preview(Unstarted(), num_envs=2, checks="training-loop")
    assert report["verdict"] == "failed" and stage(report, "settle")["status"] == "failed"
    (row,) = rows(report, "fail")
    assert row["title"] == "The task builds" and "no joint named slider" in row["problem"]
    assert stage(report, "training-loop")["skip_reason"] == "not run: the task did not build (see Settle)"


def test_too_few_steps_to_see_an_episode_end() -> None:
    report = simulo.preview(Walker(), num_envs=2, steps=3, checks="training-loop")
    (row,) = rows(report, "fail")
    assert row["title"] == "Episodes end" and "no episode ended in 3 steps (max_episode_length 20)" in row["problem"]


def test_a_constant_reward_warns_without_failing() -> None:
    class Flat(Walker):
        def get_rewards(self) -> Any:
            return np.ones(self.num_envs)

    report = simulo.preview(Flat(), num_envs=2, checks="training-loop")
    assert report["verdict"] == "passed"
    assert [r["title"] for r in rows(report, "warn")] == ["Rewards vary"]
    assert ", 1 warned" in report["summary"]


def test_check_selection() -> None:
    assert selected_checks("all") == SELECTABLE_CHECKS
    assert selected_checks(" settle , random-moves") == ("settle", "random-moves")
    assert selected_checks("training-loop") == ("training-loop", "action-map")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"checks": "settle,observations"}, r"unknown check\(s\) 'observations'; expected 'all' or a comma-separated "
                                            r"list of settle, joint-sweep, random-moves, training-loop, action-map"),
        ({"checks": ""}, r"'all' or a comma-separated list"),
        ({"num_envs": 0}, r"num_envs=0"),
        ({"steps": 0}, r"steps=0"),
        ({"video": "yes"}, r"video='yes'"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(SimuloValueError, match=match):
        simulo.preview(Walker(), **kwargs)
