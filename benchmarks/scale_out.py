"""Scale-out on Ray: a sharded trial sweep, and PPO training through env runners, with 1 and 2 workers.

Sweep: ``--trials`` pick-and-place trials from random cube starts (``simulo pick-place --trials N --seed S``),
cut into shards of whole PyBullet worlds. One worker runs the shards one after another in this process;
two workers run them as Ray tasks. The per-trial results must be identical (checked). Goal 2.0x.

Training: ``simulo.RLTrainer`` (skrl's PPO, default ``agent_cfg``: 16-step rollouts) on ``--num-envs``
environments of a :class:`~simulo.scale.ray_env.RayLearningEnv` with 1 and with 2 env runners (Ray actors
that hold a copy of the policy and return whole rollouts; the learner updates and broadcasts the weights).
``--robots`` picks the tasks: ``cartpole`` (the cartpole sample: light physics, goal 1.6x), ``arm`` (a
five-joint arm held on position targets, the pick-and-place arm, 4 physics steps per action),
``humanoid`` (the SDK humanoid sample's task, read from ``--samples``; goal 1.8x, meant for
``--engine mujoco``) and ``catalog-humanoid`` (:class:`CatalogHumanoidTask`, for when the samples are not
at hand: the catalog's humanoid with a policy of the sample's size, 19.4k parameters against 19.5k; no
goal). Both trainers start from the same seed and shard layout, so after the same iterations their
policies must be the same bytes (checked, column ``same``). The in-process trainer (``simulo.LearningEnv``,
no Ray) is timed too, as the reference.

Timing: alternating pairs in one run (1 worker then 2, then 2 then 1, ...), each side ``--iterations``
iterations after a warm-up; ratio = median over pairs of (2-worker env-steps/s) / (1-worker env-steps/s).
Ray gets one more logical CPU than workers in use, so the idle trainer's actor can stay up between turns
(it waits, using no CPU). Bytes moved per iteration: the weights (``ray.put`` once, read by every actor)
and the rollout batches coming back. The machine may be shared: the ``load`` column is the 1-minute load
average at the start.

What an iteration costs (printed per task, medians of the last iteration of each timed side): CPU seconds
of the runners (stepping the environments, acting with the policy, and with a sharded update their shards'
gradients) and of the learner (filling skrl's memory, PPO's update), the transfer (the 2-worker
collection's wall time beyond its slowest runner) and the update's wall time. The serial fraction is
the learner's share of the 1-worker iteration's CPU seconds; Amdahl's bound for 2 workers follows from it
(the round trips of a sharded update are not in it: compare the update's wall times). CPU seconds are
what a loaded machine distorts least, so the bound is the figure to quote when other jobs share the
cores. ``--sharded-update`` (default ``auto``: on from 15 M row-parameters, see
``simulo.rl.training.sharded_update.MIN_WORK``) sets ``SIMULO_SHARDED_UPDATE`` for the run.

    python benchmarks/scale_out.py                        # sweep of 200 trials, training at N = 256
    python benchmarks/scale_out.py --only training --num-envs 512 --pairs 7
    python benchmarks/scale_out.py --only training --robots humanoid --engine mujoco --num-envs 1024
    python benchmarks/scale_out.py --only training --robots catalog-humanoid --engine mujoco --num-envs 1024
    python benchmarks/scale_out.py --quick                # tiny sizes (smoke test)
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import simulo
from simulo.rl.training.collector import IterationCost
from simulo.rl.training.sharded_update import ENV_SHARDED_UPDATE
from simulo.scale.ray_env import RayLearningEnv
from simulo.scale.sweep import plan_shards

ROOT = Path(__file__).resolve().parents[1]
ARM_JOINTS = ("base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll")
GOALS: dict[str, float | None] = {"sweep": 2.0, "cartpole": 1.6, "arm": None, "humanoid": 1.8,
                                  "catalog-humanoid": None}
SAMPLE_OPTIONS: dict[str, dict[str, Any]] = {
    "cartpole": {}, "arm": {}, "catalog-humanoid": {},
    "humanoid": {"dt": 1.0 / 120.0, "physics_steps_per_action": 2, "env_spacing": 4.0},  # as its train.py
}
"""The sample's own ``LearningEnv`` arguments (the cartpole task's defaults already are its sample's)."""


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


class CatalogHumanoidTask(simulo.Task):
    """The catalog's MuJoCo humanoid on effort targets, kept upright (numpy, no torch): 74 observations (torso
    height and orientation, base velocities, joint positions and velocities, the last actions) and 21 actions,
    so the policy and value networks have the humanoid sample's size."""

    observation_dim = 74
    action_dim = 21
    episode_length_s = 8.0
    physics_dt = 1.0 / 120.0
    physics_steps_per_action = 2
    env_spacing = 4.0

    def build(self, scene: Any) -> None:
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/humanoid:v1"))
        scene.add(self.robot, at="/World/Robot")
        scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)

    def on_start(self, env: Any) -> None:
        self.actions = np.zeros((self.num_envs, self.action_dim))

    def on_pre_physics_step(self, actions: Any) -> None:
        self.actions = np.clip(np.asarray(actions, dtype=np.float64), -1.0, 1.0)

    def apply_actions(self, actions: Any) -> None:
        self.robot.set_joint_effort_target(40.0 * self.actions)

    def get_observations(self) -> Any:
        state = self.robot.state
        return np.concatenate([np.asarray(state.pose)[:, 2:7], np.asarray(state.linear_velocity),
                               np.asarray(state.angular_velocity), np.asarray(state.joint_positions),
                               0.1 * np.asarray(state.joint_velocities), self.actions], axis=1).astype(np.float32)

    def get_rewards(self) -> Any:
        height = np.asarray(self.robot.state.pose)[:, 2]
        return (1.0 + height - 0.01 * np.square(self.actions).sum(axis=1)).astype(np.float32)

    def get_dones(self) -> Any:
        fell = np.asarray(self.robot.state.pose)[:, 2] < 0.8
        return fell, self.episode_length_buf >= self.max_episode_length - 1

    def reset_idx(self, env_ids: Any) -> None:
        self.robot.reset(env_ids)
        q = np.asarray(self.robot.default_joint_positions)[env_ids].copy()
        self.robot.set_joint_state(q + self.random_uniform(-0.1, 0.1, (21,), env_ids=env_ids), env_ids=env_ids)


def _sample_task(name: str, path: Path, cls: str) -> simulo.Task:
    """A fresh instance of class ``cls`` of a sample's ``task.py`` (imported once as module ``name``)."""
    if name not in sys.modules:
        if not path.is_file():
            raise SystemExit(f"{path}: no such file (pass --samples: a copy of simulo-org/simulo-samples)")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    task: simulo.Task = getattr(sys.modules[name], cls)()
    return task


def cartpole_task() -> simulo.Task:
    """A fresh instance of the cartpole sample's task."""
    return _sample_task("cartpole_sample_task", ROOT / "samples" / "cartpole" / "task.py", "CartpoleTask")


def humanoid_maker(samples: Path) -> Callable[[], simulo.Task]:
    """Makes fresh instances of the SDK humanoid sample's task (``samples/humanoid/task.py`` under ``samples``)."""
    return lambda: _sample_task("humanoid_sample_task", samples / "samples" / "humanoid" / "task.py",
                                "HumanoidTask")


def _median_time(run: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def _trainer(env: Any) -> simulo.RLTrainer:
    return simulo.RLTrainer(env, device="cpu", seed=0, checkpoint_dir=tempfile.mkdtemp(), progress=False)


def _steps_per_s(trainer: simulo.RLTrainer, iterations: int) -> float:
    return float(trainer.train(iterations, checkpoint_every=10**9)["env_steps_per_s"])


def bench_training(name: str, make_task: Callable[[], simulo.Task], num_envs: int, iterations: int,
                   pairs: int, engine: str | None = None) -> dict[str, Any]:
    """Train through 1 and 2 env runners in alternating pairs (and in-process); check the policies agree."""
    options = {**SAMPLE_OPTIONS[name], "engine": engine}
    start = time.perf_counter()
    trainers = {w: _trainer(RayLearningEnv(make_task(), num_envs, seed=0, workers=w, **options)) for w in (1, 2)}
    build = time.perf_counter() - start
    local = _trainer(simulo.LearningEnv(make_task(), num_envs=num_envs, seed=0, **options))
    rates: dict[Any, list[float]] = {1: [], 2: [], "local": []}
    costs: dict[int, list[IterationCost]] = {1: [], 2: []}
    try:
        for trainer in (*trainers.values(), local):
            trainer.train(1, checkpoint_every=10**9)  # warm-up: first reset, first update
        for k in range(pairs):
            for key in ((1, 2, "local") if k % 2 == 0 else ("local", 2, 1)):
                rates[key].append(_steps_per_s(trainers[key] if key != "local" else local, iterations))
                if key != "local":
                    costs[key].append(_last_cost(trainers[key]))
        one, two = (trainers[w].agent.policy.state_dict() for w in (1, 2))
        same = all(torch_equal(one[key], two[key]) for key in one) and \
            trainers[1].reward_history == trainers[2].reward_history
        collector = trainers[2]._collector
        assert collector is not None
        moved = (collector.weights_bytes, collector.batch_bytes, collector.update_bytes, collector.bytes_moved)
        shards = "+".join(str(s.count) for s in trainers[2].env.shards)
    finally:
        for trainer in (*trainers.values(), local):
            trainer.close()
            trainer.env.close()
    ratios = [b / a for a, b in zip(rates[1], rates[2], strict=True)]
    on = "" if engine is None else f" on {engine}"
    return {"what": f"train {name}{on} N={num_envs} ({pairs} pairs x {iterations} it)",
            "t1": statistics.median(rates[1]), "t2": statistics.median(rates[2]), "ratio": statistics.median(ratios),
            "unit": "steps/s", "same": same, "setup": build, "goal": GOALS[name], "costs": describe_costs(costs),
            "detail": f"shards {shards}; in-process {statistics.median(rates['local']):,.0f} env-steps/s; "
                      f"ratios {min(ratios):.2f}-{max(ratios):.2f}; per iteration: weights {moved[0] / 1e3:.1f} kB "
                      f"(once per actor), batches {moved[1] / 1e3:.1f} kB, sharded update {moved[2] / 1e3:.1f} kB, "
                      f"total {moved[3] / 1e3:.1f} kB"}


def _last_cost(trainer: simulo.RLTrainer) -> IterationCost:
    collector = trainer._collector
    assert collector is not None and collector.last_cost is not None
    return collector.last_cost


def describe_costs(costs: dict[int, list[IterationCost]]) -> str:
    """One line: the medians of what an iteration cost with 1 worker, the transfer with 2, the serial fraction
    and Amdahl's bound for 2 workers."""
    def med(workers: int, value: Callable[[IterationCost], float]) -> float:
        return statistics.median(value(c) for c in costs[workers])

    runners = med(1, lambda c: c.runners.cpu_s)
    step, act = med(1, lambda c: c.runners.step_cpu_s), med(1, lambda c: c.runners.act_cpu_s)
    gradients = med(1, lambda c: c.runners.update_cpu_s)
    learner, update = med(1, lambda c: c.learner_cpu_s), med(1, lambda c: c.update_cpu_s)
    transfer = med(2, lambda c: c.collect_wall_s - c.runners.wall_s)
    update_wall = {w: med(w, lambda c: c.update_wall_s) for w in (1, 2)}
    serial = med(1, lambda c: c.serial_fraction)
    bound = med(1, lambda c: c.speedup_bound(2))
    sharded = f", the shards' gradients {gradients:.3f}" if gradients else ""
    return (f"CPU s per iteration (1 worker): runners {runners:.3f} (step {step:.3f}, act {act:.3f}, other "
            f"{runners - step - act:.3f}){sharded}; learner {learner:.3f} (update {update:.3f}, memory and "
            f"weights {learner - update:.3f}); wall s: the collection's transfer with 2 workers {transfer:.3f}, "
            f"the update with 1 and 2 workers {update_wall[1]:.3f} and {update_wall[2]:.3f}; "
            f"serial fraction {serial:.3f}, Amdahl bound for 2 workers {bound:.2f}x")


def torch_equal(a: Any, b: Any) -> bool:
    """Same dtype, shape and bytes."""
    import torch  # noqa: PLC0415 - the train extra

    return a.dtype == b.dtype and bool(torch.equal(a, b))


def bench_sweep(trials: int, seed: int, repeats: int) -> dict[str, Any]:
    """Time the pick-and-place trial sweep with 1 worker (in-process) and 2 (Ray); check the trials agree."""
    from simulo.apps.pick_place.experiments.trials import sweep_trials  # noqa: PLC0415

    t1, res1 = _median_time(lambda: sweep_trials(trials, seed, workers=1, progress=False), repeats)
    t2, res2 = _median_time(lambda: sweep_trials(trials, seed, workers=2, progress=False), repeats)
    return {"what": f"sweep {trials} pick-place trials (seed {seed})", "t1": t1, "t2": t2, "ratio": t1 / t2,
            "unit": "s", "same": res1.to_json() == res2.to_json(), "setup": None, "goal": GOALS["sweep"],
            "detail": f"{len(plan_shards(trials))} shards; {res1.passed}/{trials} passed"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--iterations", type=int, default=3, help="training iterations per side of a pair")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=1, help="sweep runs per worker count")
    parser.add_argument("--only", choices=("sweep", "training"), default=None)
    parser.add_argument("--robots", default="cartpole,arm",
                        help="training tasks: cartpole, arm, humanoid, catalog-humanoid")
    parser.add_argument("--engine", choices=("pybullet", "mujoco"), default=None, help="physics engine of training")
    parser.add_argument("--sharded-update", choices=("auto", "on", "off"), default="auto",
                        help="PPO's update data-parallel over the runners (SIMULO_SHARDED_UPDATE)")
    parser.add_argument("--samples", type=Path, default=Path(os.environ.get("SIMULO_SAMPLES", "/tmp/simulo-samples")),
                        help="a copy of simulo-org/simulo-samples (for --robots humanoid)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one pair")
    args = parser.parse_args(argv)
    if args.quick:
        args.trials, args.num_envs, args.iterations, args.pairs = 32, 32, 1, 1
    robots = [r for r in args.robots.split(",") if r]
    if not robots or any(r not in GOALS or r == "sweep" for r in robots):
        parser.error(f"--robots {args.robots!r}: expected a comma-separated list of cartpole, arm, humanoid, "
                     "catalog-humanoid")
    os.environ[ENV_SHARDED_UPDATE] = args.sharded_update
    import ray  # noqa: PLC0415

    load = os.getloadavg()[0]
    start = time.perf_counter()
    ray.init(num_cpus=3, include_dashboard=False, logging_level=logging.WARNING)
    ray_start = time.perf_counter() - start
    rows = []
    try:
        if args.only in (None, "sweep"):
            rows.append(bench_sweep(args.trials, args.seed, args.repeats))
        if args.only in (None, "training"):
            makers = {"cartpole": cartpole_task, "arm": ArmHoldTask, "humanoid": humanoid_maker(args.samples),
                      "catalog-humanoid": CatalogHumanoidTask}
            for robot in robots:
                rows.append(bench_training(robot, makers[robot], args.num_envs, args.iterations, args.pairs,
                                           args.engine))
    finally:
        ray.shutdown()
    print(f"\nscale-out on {os.cpu_count()} cores (load {load:.2f} at start); Ray start {ray_start:.1f} s\n")
    print(f"| {'what':<44} | {'1 worker':>12} | {'2 workers':>12} | ratio | goal | same | actors s | notes")
    print(f"|{'-' * 46}|{'-' * 13}:|{'-' * 13}:|------:|-----:|:----:|---------:|------")
    for row in rows:
        goal = "-" if row["goal"] is None else f"{row['goal']:.1f}"
        setup = "-" if row["setup"] is None else f"{row['setup']:.2f}"
        one, two = (f"{row[k]:,.2f} s" if row["unit"] == "s" else f"{row[k]:,.0f}/s" for k in ("t1", "t2"))
        print(f"| {row['what']:<44} | {one:>12} | {two:>12} | {row['ratio']:5.2f} | {goal:>4} | "
              f"{'yes' if row['same'] else 'NO':^4} | {setup:>8} | {row['detail']}")
    for row in rows:
        if "costs" in row:
            print(f"\n{row['what']}: {row['costs']}")
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
