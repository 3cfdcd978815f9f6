"""Where a training iteration goes: the physics, the task and the learner, in the stats and on the progress line.

The timing assertions are lower bounds (sleeps added to the physics steps and to a task hook) and sums of the
trainer's own figures, never a bound on how fast this machine runs.
"""

from __future__ import annotations

import importlib.util
import json
import runpy
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from rl_toy_envs import PointMassEnv

import simulo
from simulo.platform._child import result_json
from simulo.rl.training import RLTrainer
from simulo.rl.training.collector import InProcessCollector, RunnerCost, policy_package
from simulo.rl.training.progress import progress_text
from simulo.rl.training.time_split import IterationTimes
from simulo.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[3]
CFG = {"rollouts": 8, "mini_batches": 2, "learning_epochs": 2}
ITERATIONS, NUM_ENVS = 2, 8
PHYSICS_NAP, TASK_NAP = 0.01, 0.005  # seconds slept per physics step / per apply_actions and get_rewards call


def _cartpole_module() -> ModuleType:
    """``samples/cartpole/task.py`` as module ``cartpole_sample_task`` (the name the other suites use)."""
    name = "cartpole_sample_task"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "samples" / "cartpole" / "task.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


CartpoleTask: Any = _cartpole_module().CartpoleTask


class NappingCartpole(CartpoleTask):
    """The sample's cartpole whose ``apply_actions`` (once per physics step) and ``get_rewards`` sleep: task time
    of a known lower bound, part of it between the physics steps."""

    def apply_actions(self, actions: Any) -> None:
        time.sleep(TASK_NAP)
        super().apply_actions(actions)

    def get_rewards(self) -> Any:
        time.sleep(TASK_NAP)
        return super().get_rewards()


def _task_naps(env: Any) -> float:
    """The seconds NappingCartpole sleeps in a run: per env step, one get_rewards and an apply_actions per
    physics step."""
    return ITERATIONS * CFG["rollouts"] * (env.physics_steps_per_action + 1) * TASK_NAP


def _train(task: simulo.Task, progress: bool = False, envs_per_world: int | None = None,
           runners: list[tuple[int, int]] | None = None) -> tuple[dict[str, Any], Any]:
    """A tiny run on the sample's cartpole: ITERATIONS iterations of NUM_ENVS (or 16 with runners) environments."""
    env = simulo.LearningEnv(task, num_envs=NUM_ENVS if runners is None else 16, seed=0,
                             envs_per_world=envs_per_world, tensor_library="torch")  # as the sample's module
    trainer = RLTrainer(env, device="cpu", seed=0, checkpoint_dir=tempfile.mkdtemp(), progress=progress,
                        agent_cfg=CFG)
    if runners is not None:
        trainer._collector = InProcessCollector(env, runners, policy_package(trainer.agent), seed=0)
    try:
        return trainer.train(ITERATIONS), env
    finally:
        trainer.close()
        env.close()


def _napping_physics(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``Simulation.step`` call sleeps PHYSICS_NAP seconds per physics step first."""
    step = Simulation.step

    def slow_step(self: Simulation, n: int = 1) -> None:
        time.sleep(PHYSICS_NAP * n)
        step(self, n)

    monkeypatch.setattr(Simulation, "step", slow_step)


def test_stats_hold_the_split_and_its_parts_add_up() -> None:
    stats, env = _train(CartpoleTask())
    split = stats["time_split"]
    assert set(split) == {"iterations", "total_s", "physics_s", "task_s", "learner_s", "per_iteration"}
    assert split["iterations"] == ITERATIONS
    parts = [split[k] for k in ("physics_s", "task_s", "learner_s")]
    assert all(type(v) is float and v > 0.0 for v in [*parts, split["total_s"]]), split
    assert sum(parts) == pytest.approx(split["total_s"], rel=1e-9, abs=1e-9)
    assert split["total_s"] <= stats["wall_time_s"]  # the iterations, inside the call's wall time
    assert split["physics_s"] == pytest.approx(env.physics_time_s)  # every physics step of the run, no other
    assert split["per_iteration"] == pytest.approx({k: v / ITERATIONS for k, v in split.items()
                                                    if k.endswith("_s")})
    saved = json.loads(result_json({"num_envs": NUM_ENVS, **stats}))  # what simulo run writes to result.json
    assert saved["time_split"] == split


def test_physics_time_is_physics_and_task_time_is_task(monkeypatch: pytest.MonkeyPatch) -> None:
    _napping_physics(monkeypatch)
    stats, env = _train(NappingCartpole())
    split = stats["time_split"]
    env_steps = ITERATIONS * CFG["rollouts"]
    slept_physics = env_steps * env.physics_steps_per_action * PHYSICS_NAP
    assert split["physics_s"] >= slept_physics, split
    assert split["task_s"] >= _task_naps(env), split
    assert split["learner_s"] > 0.0 and env.physics_time_s >= slept_physics
    assert sum(split[k] for k in ("physics_s", "task_s", "learner_s")) == pytest.approx(split["total_s"], rel=1e-9)


def test_env_runners_split_the_rollout_from_the_learner(monkeypatch: pytest.MonkeyPatch) -> None:
    _napping_physics(monkeypatch)
    stats, env = _train(NappingCartpole(), envs_per_world=8, runners=[(0, 8), (8, 8)])
    split = stats["time_split"]
    assert set(split) == {"iterations", "total_s", "rollout_s", "learner_s", "runners_physics_s",
                          "runners_task_s", "per_iteration"}
    env_steps = ITERATIONS * CFG["rollouts"]
    assert split["runners_physics_s"] >= env_steps * env.physics_steps_per_action * PHYSICS_NAP, split
    assert split["runners_task_s"] >= _task_naps(env), split
    # the runners step in this process, one after another: their environments' time lies inside the rollout's
    assert split["runners_physics_s"] + split["runners_task_s"] <= split["rollout_s"]
    assert split["learner_s"] > 0.0
    assert split["rollout_s"] + split["learner_s"] == pytest.approx(split["total_s"], rel=1e-9)


def test_runners_side_by_side_sum_their_environment_seconds() -> None:
    parts = [RunnerCost(1.0, 0.5, 0.2, 1.5, env_wall_s=0.8, physics_s=0.3),
             RunnerCost(2.0, 1.0, 0.4, 2.5, env_wall_s=1.6, physics_s=0.9)]
    both = RunnerCost.combine(parts)
    assert (both.env_wall_s, both.physics_s, both.wall_s) == (pytest.approx(2.4), pytest.approx(1.2), 2.5)


def test_an_env_without_a_physics_clock_splits_env_and_learner(tmp_path: Path) -> None:
    trainer = RLTrainer(PointMassEnv(num_envs=NUM_ENVS, seed=0), device="cpu", seed=0, checkpoint_dir=tmp_path,
                        progress=False, agent_cfg=CFG)
    split = trainer.train(ITERATIONS)["time_split"]
    assert set(split) == {"iterations", "total_s", "env_s", "learner_s", "per_iteration"}
    assert split["env_s"] > 0.0 and split["learner_s"] > 0.0
    assert split["env_s"] + split["learner_s"] == pytest.approx(split["total_s"], rel=1e-9)


def test_no_iteration_no_parts(tmp_path: Path) -> None:
    trainer = RLTrainer(PointMassEnv(num_envs=NUM_ENVS, seed=0), device="cpu", seed=0, checkpoint_dir=tmp_path,
                        progress=False, agent_cfg=CFG)
    assert trainer.train(0)["time_split"] == {"iterations": 0, "total_s": 0.0}


def test_progress_text_appends_the_split_after_the_fields_scripts_read() -> None:
    times = IterationTimes(2.0, {"physics": 1.22, "task": 0.24, "learner": 0.54})
    text = progress_text(150.04, 201.5, 14_400.2, 3e-4, times)
    assert text == "reward 150.0 best 201.5 steps/s 14,400 lr 3.0e-04 | physics 61% task 12% learner 27%"
    assert progress_text(None, None, 8.0, 1e-3, IterationTimes(1.0, {"rollout": 0.7, "learner": 0.3})) == \
        "reward - best - steps/s 8 lr 1.0e-03 | rollout 70% learner 30%"


def test_progress_line_shows_the_split_and_still_parses(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    _train(CartpoleTask(), progress=True)
    err = capsys.readouterr().err
    pattern = runpy.run_path(str(ROOT / "benchmarks" / "sample_time_to_reward.py"))["PROGRESS"]
    matches = list(pattern.finditer(err))
    assert [m["it"] for m in matches][-1] == str(ITERATIONS), err
    last = err[matches[-1].end():].split("]", 1)[0]
    shares = last.split(" | ", 1)[1].split()
    assert shares[0::2] == ["physics", "task", "learner"], last
    assert all(s.endswith("%") and 0 <= int(s[:-1]) <= 100 for s in shares[1::2]), last
