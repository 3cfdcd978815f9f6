"""simulo.evaluate: numbered episodes, success rules, and the numbers in the report."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError, TaskError
from simulo.platform.context import RunContext, running


class Slider(simulo.Task):
    """A point on a line, no physics: the action moves it; "too far" ends the episode at x > 1.

    Starts are uniform in [-0.5, 0.5]; episodes last 10 steps and the task truncates at step 9, so an
    episode that survives is 9 steps long. Reward 1 per step.
    """

    observation_dim = 2
    action_dim = 1
    episode_length_s = 0.1
    physics_dt = 0.01
    physics_steps_per_action = 1
    cut_short_at: int | None = None
    nan_env: int | None = None

    def build(self, scene: Any) -> None:
        pass

    def on_start(self, env: Any) -> None:
        self.x = np.zeros(self.num_envs)

    def on_pre_physics_step(self, actions: Any) -> None:
        self.x += np.asarray(actions, dtype=float)[:, 0]  # numpy or torch actions

    def apply_actions(self, actions: Any) -> None:
        pass

    def get_observations(self) -> Any:
        obs = np.stack([self.x, self.episode_length_buf.astype(float)], axis=1)
        if self.nan_env is not None:
            obs[self.nan_env, 0] = np.nan
        return obs

    def get_rewards(self) -> Any:
        return np.ones(self.num_envs)

    def get_dones(self) -> Any:
        limit = self.max_episode_length - 1 if self.cut_short_at is None else self.cut_short_at
        return {"too far": self.x > 1.0}, self.episode_length_buf >= limit

    def reset_idx(self, env_ids: Any) -> None:
        self.x[env_ids] = self.random_uniform(-0.5, 0.5, (), env_ids=env_ids)


def still(obs: Any) -> np.ndarray:
    return np.zeros((obs.shape[0], 1))


def push(obs: Any) -> np.ndarray:
    return np.full((obs.shape[0], 1), 0.5)


def lasted(task: Slider) -> Any:
    return task.check("lasted", task.survived())


def near_and_lasted(task: Slider) -> Any:
    near = task.check("near", np.abs(task.x) < 0.6)
    return near & task.check("lasted", task.survived())


def positive(task: Slider) -> Any:
    return task.check("positive", task.x > 0.0)


def test_policy_that_always_fails_a_check_scores_zero() -> None:
    report = simulo.evaluate(Slider(), push, episodes=6, num_envs=4, success=lasted)
    assert report["report_schema_version"] == "simulo-local.evaluation_report.v1"
    assert (report["episodes"], report["succeeded"], report["failed"]) == (6, 0, 6)
    assert report["success_rate_percent"] == 0.0
    assert report["checks"] == [{"name": "lasted", "passed": 0}]
    assert report["endings"] == [{"ended_by": "too far", "episodes": 6}]
    assert report["failure_groups"] == [{"missed": ["lasted"], "episodes": 6}]
    assert report["likely_range"]["low_percent"] == 0
    # from x0 in [-0.5, 0.5] at +0.5 per step, x > 1 after 2, 3 or 4 steps; reward 1 per step
    assert all(2 <= e["total_reward"] <= 4 for e in report["listed_episodes"])
    assert report["mean_return"] == report["mean_length"]
    assert report["summary"].startswith("0 of 6 episodes succeeded")


def test_policy_that_always_passes_scores_hundred() -> None:
    report = simulo.evaluate(Slider(), still, episodes=5, num_envs=5, success=near_and_lasted)
    assert (report["succeeded"], report["success_rate_percent"]) == (5, 100.0)
    assert report["checks"] == [{"name": "near", "passed": 5}, {"name": "lasted", "passed": 5}]
    assert report["endings"] == [{"ended_by": "time limit", "episodes": 5}]
    assert report["mean_length"] == 9 and report["mean_return"] == 9.0
    assert report["mean_length_s"] == pytest.approx(0.09)
    assert report["failure_groups"] == [] and report["listed_episodes"] == []
    assert report["tested"]["checks"] == ["near", "lasted"]
    assert report["tested"]["end_conditions"] == ["too far"]
    assert report["tested"]["success_function"] == "near_and_lasted"
    assert report["episodes_csv"] is None


def test_each_episode_is_judged_on_its_own_end_and_written_to_csv(tmp_path: Path) -> None:
    app = simulo.App("slider")
    app.success(positive)
    with running(app, RunContext.create(tmp_path, 1, 1)):
        report = simulo.evaluate(Slider(), still, episodes=12, num_envs=5)
    rows = list(csv.DictReader((tmp_path / "episodes.csv").read_text(encoding="utf-8").splitlines()))
    assert report["episodes_csv"] == str(tmp_path / "episodes.csv")
    assert [int(r["episode"]) for r in rows] == list(range(12))
    starts = [json.loads(r["first_observation"])[0] for r in rows]
    assert len(set(starts)) == 12
    expected = ["true" if x > 0 else "false" for x in starts]  # x never moves with the still policy
    assert [r["success"] for r in rows] == expected == [r["check:positive"] for r in rows]
    assert report["succeeded"] == expected.count("true")
    assert report["checks"] == [{"name": "positive", "passed": expected.count("true")}]
    assert {r["ended_by"] for r in rows} == {"time limit"}
    assert {r["length"] for r in rows} == {"9"}


def test_episode_numbers_fix_the_starts_whatever_the_batch() -> None:
    def rows(num_envs: int, seed: int = 0) -> list[tuple[Any, ...]]:
        report = simulo.evaluate(Slider(), push, episodes=7, num_envs=num_envs, success=lasted, seed=seed)
        return sorted((e["episode"], e["total_reward"], e["ended_by"]) for e in report["listed_episodes"])

    assert rows(1) == rows(3) == rows(7)
    assert rows(3, seed=1) != rows(3)


def test_cut_short_and_unnamed_endings() -> None:
    task = Slider()
    task.cut_short_at = 3
    report = simulo.evaluate(task, still, episodes=3, num_envs=3, success=lasted)
    assert report["endings"] == [{"ended_by": "cut short by the task", "episodes": 3}]
    assert report["mean_length"] == 3


def test_nan_observations_count_as_simulation_problems() -> None:
    task = Slider()
    task.nan_env = 1
    report = simulo.evaluate(task, still, episodes=3, num_envs=3, success=near_and_lasted)
    assert report["simulation_problem_episodes"] >= 1
    assert report["succeeded"] == 3 - report["simulation_problem_episodes"]
    problems = [e for e in report["listed_episodes"] if e["simulation_problem"] == "observation_not_finite"]
    assert problems and not any(e["success"] for e in problems)


def test_success_rule_comes_from_the_running_app() -> None:
    with pytest.raises(TaskError, match="no app job is running"):
        simulo.evaluate(Slider(), still, episodes=1, num_envs=1)
    app = simulo.App("two rules")
    app.success(lasted)
    app.success(positive)
    with running(app), pytest.raises(TaskError, match=r"exactly one @app.success rule .* found 2 \(lasted, positive\)"):
        simulo.evaluate(Slider(), still, episodes=1, num_envs=1)


def test_malformed_rules_are_refused() -> None:
    with pytest.raises(TaskError, match=r"shape \(2,\); got shape \(3,\)"):
        simulo.evaluate(Slider(), still, episodes=2, num_envs=2, success=lambda task: np.ones(3, dtype=bool))
    with pytest.raises(TaskError, match="leading or trailing spaces"):
        simulo.evaluate(Slider(), still, episodes=1, num_envs=1,
                        success=lambda task: task.check(" padded", task.survived()))
    with pytest.raises(TaskError, match=r"success rule boom\(\) failed"):
        def boom(task: Slider) -> Any:
            raise KeyError("x")
        simulo.evaluate(Slider(), still, episodes=1, num_envs=1, success=boom)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"episodes": 0}, r"episodes=0"),
        ({"num_envs": 1.5}, r"num_envs=1.5"),
        ({"actions": "greedy"}, r"actions='greedy'.*'best', 'sampled'"),
        ({"env_spacing": float("nan")}, r"env_spacing=nan"),
        ({"actions": "sampled"}, r"needs a trained policy"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(SimuloValueError, match=match):
        simulo.evaluate(Slider(), still, success=lasted, **kwargs)


def test_trained_checkpoint_as_policy(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    env = simulo.LearningEnv(Slider(), num_envs=4, seed=0)
    trainer = simulo.RLTrainer(env, checkpoint_dir=tmp_path, progress=False,
                               agent_cfg={"rollouts": 8, "mini_batches": 2})
    trainer.train(1)
    trainer.close()
    env.close()
    for policy in (str(tmp_path / "latest.pt"), simulo.PolicyCheckpoint.resolve(tmp_path / "latest.pt")):
        for actions in ("best", "sampled"):
            report = simulo.evaluate(Slider(), policy, episodes=4, num_envs=2, actions=actions, success=lasted)
            assert report["episodes"] == 4
            assert report["tested"]["policy"]["path"] == str(tmp_path / "latest.pt")

    class Wider(Slider):
        observation_dim = 3

    with pytest.raises(SimuloValueError, match="maps 2 observations to 1 actions; Wider has observation_dim=3"):
        simulo.evaluate(Wider(), str(tmp_path / "latest.pt"), episodes=1, num_envs=1, success=lasted)
    with pytest.raises(SimuloValueError, match="no such checkpoint file or run folder"):
        simulo.evaluate(Slider(), str(tmp_path / "missing.pt"), episodes=1, num_envs=1, success=lasted)
