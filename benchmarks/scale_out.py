"""Scale-out on Ray: a sharded trial sweep and sharded rollouts, with 1 and 2 workers, on this machine.

Sweep: ``--trials`` pick-and-place trials from random cube starts (``simulo pick-place --trials N --seed S``),
cut into shards of whole PyBullet worlds. One worker runs the shards one after another in this process;
two workers run them as Ray tasks. The per-trial results must be identical (checked).

Rollouts: ``--num-envs`` environments stepped ``--steps`` times with fixed random actions, through a single
``simulo.LearningEnv`` (one worker) and through a :class:`simulo.scale.ray_env.RayLearningEnv` over two Ray
actors (two workers). Two tasks: the cartpole sample (light physics: a step is mostly fixed Python cost)
and a five-joint arm held on position targets (the pick-and-place arm, 4 physics steps per action). The
observations after the last step must be identical (checked).

Times are wall-clock medians of ``--repeats`` runs (the sweep: ``--repeats`` - 2, at least 1), measured after
Ray is up (its start is printed); the rollout actors are built before timing (column ``actors s``), the sweep's
Ray workers start inside its timed run. ratio = 1-worker time / 2-worker time. Goals on a 2-core machine: sweep >= 1.8,
rollouts >= 1.3. The machine may be shared: the ``load`` column is the 1-minute load average at the start.

    python benchmarks/scale_out.py                        # sweep of 200 trials, rollouts at N = 64
    python benchmarks/scale_out.py --only rollouts --steps 200
    python benchmarks/scale_out.py --quick                # tiny sizes (smoke test)
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import simulo
from simulo.scale.ray_env import RayLearningEnv
from simulo.scale.sweep import plan_shards

ROOT = Path(__file__).resolve().parents[1]
ARM_JOINTS = ("base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll")
SWEEP_GOAL = 1.8
ROLLOUT_GOAL = 1.3


class ArmHoldTask(simulo.Task):
    """The pick-and-place arm tracking joint targets near a random start pose (numpy, no torch)."""

    observation_dim = 10
    action_dim = 5
    episode_length_s = 2.0
    physics_dt = 1.0 / 240.0
    physics_steps_per_action = 4
    env_spacing = 2.0

    def build(self, scene: Any) -> None:
        gains = {"|".join(ARM_JOINTS): simulo.MotorGainsConfig(position_gain=0.3)}
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/pick_arm:v1"), actuator_gains=gains)
        scene.add(self.robot, at="/World/Arm")
        scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)

    def on_start(self, env: Any) -> None:
        self.arm = [self.robot.find_joints(name)[0] for name in ARM_JOINTS]
        self.home = np.array([0.0, 0.6, 1.6, 0.9, 0.0])

    def apply_actions(self, actions: Any) -> None:
        self.robot.set_joint_position_target(self.home + 0.4 * np.asarray(actions), joint_ids=self.arm)

    def _q(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.asarray(self.robot.state.joint_positions)[:, self.arm],
                np.asarray(self.robot.state.joint_velocities)[:, self.arm])

    def get_observations(self) -> Any:
        q, qd = self._q()
        return np.concatenate([q, qd], axis=1)

    def get_rewards(self) -> Any:
        q, _ = self._q()
        return -np.linalg.norm(q - self.home, axis=1)

    def get_dones(self) -> Any:
        zeros = np.zeros(self.num_envs, dtype=bool)
        return zeros, zeros

    def reset_idx(self, env_ids: Any) -> None:
        self.robot.reset(env_ids)
        q = np.asarray(self.robot.default_joint_positions)[env_ids].copy()
        q[:, self.arm] = self.home + self.random_uniform(-0.3, 0.3, (5,), env_ids=env_ids)
        self.robot.set_joint_state(q, env_ids=env_ids)


def cartpole_task() -> simulo.Task:
    """A fresh instance of the cartpole sample's task."""
    name = "cartpole_sample_task"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "samples" / "cartpole" / "task.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name].CartpoleTask()


def _median_time(run: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def _rollout(env: Any, actions: np.ndarray, torch_actions: bool) -> np.ndarray:
    env.reset()
    obs = None
    for a in actions:
        if torch_actions:
            import torch  # noqa: PLC0415

            a = torch.from_numpy(a)
        obs = env.step(a)[0]
    return np.asarray(obs)


def bench_rollouts(name: str, make_task: Callable[[], simulo.Task], num_envs: int, steps: int, repeats: int,
                   torch_actions: bool) -> dict[str, Any]:
    """Time ``steps`` env steps in one process and over two Ray actors; check the observations agree."""
    task = make_task()
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, (steps, num_envs, task.action_dim)).astype(np.float32)
    one = simulo.LearningEnv(task, num_envs=num_envs, seed=0)
    start = time.perf_counter()
    two = RayLearningEnv(make_task(), num_envs, seed=0, workers=2)
    build = time.perf_counter() - start
    try:
        _rollout(one, actions[:10], torch_actions)
        _rollout(two, actions[:10], torch_actions)
        t1, obs1 = _median_time(lambda: _rollout(one, actions, torch_actions), repeats)
        t2, obs2 = _median_time(lambda: _rollout(two, actions, torch_actions), repeats)
        shards = "+".join(str(s.count) for s in two.shards)
    finally:
        two.close()
        one.close()
    return {"what": f"rollouts {name} N={num_envs} x {steps} steps", "t1": t1, "t2": t2,
            "same": np.array_equal(obs1, obs2), "setup": build,
            "detail": f"shards {shards}; {num_envs * steps / t1:,.0f} vs {num_envs * steps / t2:,.0f} env-steps/s"}


def bench_sweep(trials: int, seed: int, repeats: int) -> dict[str, Any]:
    """Time the pick-and-place trial sweep with 1 worker (in-process) and 2 (Ray); check the trials agree."""
    from simulo.apps.pick_place.experiments.trials import sweep_trials  # noqa: PLC0415

    t1, res1 = _median_time(lambda: sweep_trials(trials, seed, workers=1, progress=False), repeats)
    t2, res2 = _median_time(lambda: sweep_trials(trials, seed, workers=2, progress=False), repeats)
    return {"what": f"sweep {trials} pick-place trials (seed {seed})", "t1": t1, "t2": t2,
            "same": res1.to_json() == res2.to_json(), "setup": None,
            "detail": f"{len(plan_shards(trials))} shards; {res1.passed}/{trials} passed"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=("sweep", "rollouts"), default=None)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.trials, args.num_envs, args.steps, args.repeats = 32, 32, 20, 1
    import ray  # noqa: PLC0415

    load = os.getloadavg()[0]
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    ray_start = time.perf_counter() - start
    rows = []
    try:
        if args.only in (None, "sweep"):
            rows.append(bench_sweep(args.trials, args.seed, max(1, args.repeats - 2)))
        if args.only in (None, "rollouts"):
            rows.append(bench_rollouts("cartpole", cartpole_task, args.num_envs, args.steps, args.repeats, True))
            rows.append(bench_rollouts("arm", ArmHoldTask, args.num_envs, args.steps, args.repeats, False))
    finally:
        ray.shutdown()
    print(f"\nscale-out on {os.cpu_count()} cores (load {load:.2f} at start); Ray start {ray_start:.1f} s\n")
    print(f"| {'what':<44} | 1 worker s | 2 workers s | ratio | goal | same | actors s | notes")
    print(f"|{'-' * 46}|-----------:|------------:|------:|-----:|:----:|---------:|------")
    for row in rows:
        goal = SWEEP_GOAL if row["what"].startswith("sweep") else ROLLOUT_GOAL
        ratio = row["t1"] / row["t2"]
        setup = "-" if row["setup"] is None else f"{row['setup']:.2f}"
        print(f"| {row['what']:<44} | {row['t1']:10.2f} | {row['t2']:11.2f} | {ratio:5.2f} | {goal:4.1f} | "
              f"{'yes' if row['same'] else 'NO':^4} | {setup:>8} | {row['detail']}")
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
