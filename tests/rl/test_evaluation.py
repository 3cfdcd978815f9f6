"""simulo.evaluate: numbered episodes, success rules, and the numbers in the report."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from report_shapes import shape_errors

import simulo
from simulo.errors import SimuloValueError, TaskError
from simulo.interfaces.platform.evaluation import episodes_csv_columns
from simulo.platform.context import RunContext, running
from simulo.rl import evaluation_report


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
    assert shape_errors(report, "EvaluationReport") == []
    assert report["report_schema_version"] == "simulo.evaluation_report.v1"
    result = report["result"]
    assert (result["episodes"], result["succeeded"], report["failures"]) == (6, 0, 6)
    assert result["checks"] == [{"name": "lasted", "passed": 0}]
    assert result["endings"] == [{"ended_by": "too far", "episodes": 6}]
    assert result["failure_groups"] == [{"missed": ["lasted"], "episodes": 6}]
    assert result["other_failure_combinations"] == 0
    assert result["likely_range"] == {"low_percent": 0, "high_percent": 40}
    # from x0 in [-0.5, 0.5] at +0.5 per step, x > 1 after 2, 3 or 4 steps; reward 1 per step
    listed = report["listed_episodes"]
    assert len(listed) == 6 and all(2 <= e["total_reward"] <= 4 for e in listed)
    assert all(e["ended_at_s"] == pytest.approx(0.01 * e["total_reward"]) and e["recording"] is None for e in listed)
    assert [e["total_reward"] for e in listed] == sorted(e["total_reward"] for e in listed)  # worst first
    assert report["summary"] == "0 of 6 episodes succeeded. Likely range: 0% to 40%."
    assert [line["rule"] for line in report["next"]] == ["one_check_missed", "more_episodes"]
    assert report["comparison"] is None and report["recorded"] == 0


def test_policy_that_always_passes_scores_hundred() -> None:
    report = simulo.evaluate(Slider(), still, episodes=5, num_envs=5, success=near_and_lasted)
    assert shape_errors(report, "EvaluationReport") == []
    result = report["result"]
    assert result["succeeded"] == 5 and report["failures"] == 0
    assert result["checks"] == [{"name": "near", "passed": 5}, {"name": "lasted", "passed": 5}]
    assert result["endings"] == [{"ended_by": "time limit", "episodes": 5}]
    assert result["failure_groups"] == [] and report["listed_episodes"] == []
    tested = report["tested"]
    assert tested["checks"] == ["near", "lasted"] and tested["success_function"] == "near_and_lasted"
    assert tested["success_file"] == "test_evaluation.py" and tested["actions"] == "best"
    assert (tested["first_episode"], tested["last_episode"], tested["num_envs"]) == (0, 4, 5)
    task = tested["task"]
    assert task["name"] == "Slider" and task["file"] == "test_evaluation.py" and task["end_conditions"] == ["too far"]
    assert task["digest"].startswith("sha256:") and task["trained_digest"] is None and task["changed"] is False
    assert report["task_changed"] is False and report["notice"] is None
    assert tested["checkpoint"]["reference"] == "still" and tested["checkpoint"]["training_reward"] is None
    assert report["runtime_version"].startswith("simulo-local ")
    assert "all_succeeded" in [line["rule"] for line in report["next"]]


def test_each_episode_is_judged_on_its_own_end_and_written_to_csv(tmp_path: Path) -> None:
    app = simulo.App("slider")
    app.success(positive)
    with running(app, RunContext.create(tmp_path, 1, 1)):
        report = simulo.evaluate(Slider(), still, episodes=12, num_envs=5)
    text = (tmp_path / "episodes.csv").read_text(encoding="utf-8").splitlines()
    assert tuple(text[0].split(",")) == episodes_csv_columns(["positive"])
    rows = list(csv.DictReader(text))
    assert [int(r["episode"]) for r in rows] == list(range(12))
    starts = [json.loads(r["first_observation"])[0] for r in rows]
    assert len(set(starts)) == 12
    expected = ["true" if x > 0 else "false" for x in starts]  # x never moves with the still policy
    assert [r["success"] for r in rows] == expected == [r["check:positive"] for r in rows]
    assert report["result"]["succeeded"] == expected.count("true")
    assert report["result"]["checks"] == [{"name": "positive", "passed": expected.count("true")}]
    assert {r["ended_by"] for r in rows} == {"time limit"} and {r["ended_at_s"] for r in rows} == {"0.09"}


def test_episode_numbers_fix_the_starts_whatever_the_batch() -> None:
    def rows(num_envs: int, seed: int = 0) -> list[tuple[Any, ...]]:
        report = simulo.evaluate(Slider(), push, episodes=7, num_envs=num_envs, success=lasted, seed=seed)
        return sorted((e["episode"], e["total_reward"], e["ended_by"]) for e in report["listed_episodes"])

    assert rows(1) == rows(3) == rows(7)
    assert rows(3, seed=1) != rows(3)


def test_a_compared_policy_runs_the_same_episodes() -> None:
    report = simulo.evaluate(Slider(), still, episodes=20, num_envs=5, success=positive, compare=push)
    assert shape_errors(report, "EvaluationReport") == []
    comparison = report["comparison"]
    assert comparison is not None
    assert comparison["compared_with"]["reference"] == "push"
    assert comparison["compared_result"]["checkpoint"] == "push"
    # pushing right makes x positive in every episode; standing still only where the start was positive
    assert comparison["compared_result"]["succeeded"] == 20
    still_wins = report["result"]["succeeded"]
    assert (comparison["improved"], comparison["regressed"]) == (0, 20 - still_wins)
    assert comparison["verdict"] == "did_worse" and comparison["p_value"] < 0.05


def test_mcnemar_and_wilson_numbers() -> None:
    assert evaluation_report.mcnemar_p(0, 0) == 1.0
    assert evaluation_report.mcnemar_p(5, 5) == 1.0
    assert evaluation_report.mcnemar_p(6, 0) == pytest.approx(2 / 64)
    assert evaluation_report.likely_range(87, 100) == {"low_percent": 79, "high_percent": 93}
    assert evaluation_report.likely_range(100, 100)["high_percent"] == 100


def test_cut_short_and_unnamed_endings() -> None:
    task = Slider()
    task.cut_short_at = 3
    report = simulo.evaluate(task, still, episodes=3, num_envs=3, success=lasted)
    assert report["result"]["endings"] == [{"ended_by": "cut short by the task", "episodes": 3}]
    assert [e["ended_at_s"] for e in report["listed_episodes"]] == pytest.approx([0.03] * 3)


def test_nan_observations_count_as_simulation_problems() -> None:
    task = Slider()
    task.nan_env = 1
    report = simulo.evaluate(task, still, episodes=3, num_envs=3, success=near_and_lasted)
    assert shape_errors(report, "EvaluationReport") == []
    problems = report["result"]["simulation_problem_episodes"]
    assert problems >= 1 and report["result"]["succeeded"] == 3 - problems
    listed = [e for e in report["listed_episodes"] if e["simulation_problem"] == "observation_not_finite"]
    assert listed and not any(e["success"] for e in listed)
    assert report["simulation_problems"][0]["problem"] == "observation_not_finite"
    assert report["next"][0]["rule"] == "simulation_problems"


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
    with pytest.raises(TaskError, match="starts or ends with a space"):
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
        ({"actions": "sample"}, r"did you mean 'sampled'"),
        ({"env_spacing": float("nan")}, r"env_spacing=nan"),
        ({"actions": "sampled"}, r"needs a trained policy"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(SimuloValueError, match=match):
        simulo.evaluate(Slider(), still, success=lasted, **kwargs)


@pytest.mark.slow
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
            assert shape_errors(report, "EvaluationReport") == []
            assert report["result"]["episodes"] == 4 and report["tested"]["actions"] == actions
            checkpoint = report["tested"]["checkpoint"]
            assert checkpoint["kind"] == "latest" and checkpoint["iteration"] == 1
            assert len(checkpoint["digest_sha256"]) == 64

    class Wider(Slider):
        observation_dim = 3

    with pytest.raises(SimuloValueError, match="maps 2 observations to 1 actions; Wider has observation_dim=3"):
        simulo.evaluate(Wider(), str(tmp_path / "latest.pt"), episodes=1, num_envs=1, success=lasted)
    with pytest.raises(SimuloValueError, match="no such checkpoint file or run folder"):
        simulo.evaluate(Slider(), str(tmp_path / "missing.pt"), episodes=1, num_envs=1, success=lasted)
