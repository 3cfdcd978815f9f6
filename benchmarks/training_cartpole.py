"""Time and env-steps for RLTrainer (skrl's PPO, default agent_cfg) to reach a cartpole return of 270, per num_envs.

Trains the repository's cartpole task (samples/cartpole/task.py, the SDK sample's task) one iteration at a time
and prints, for each number of environments, the wall time, iterations and env-steps at which the best reward
(mean return of the last 100 episodes; the ceiling is about 300) first reaches the target, and the env-steps/s
of the whole run. Env-steps to target do not depend on the machine's load; seconds do (the dev machine is
shared: run it twice).

    python benchmarks/training_cartpole.py [--num-envs 64 256] [--target 270] [--max-iterations 150] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import simulo

ROOT = Path(__file__).resolve().parents[1]


def task_class() -> type:
    """The cartpole task class, loaded from the repository's sample."""
    spec = importlib.util.spec_from_file_location("training_cartpole_task", ROOT / "samples" / "cartpole" / "task.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.CartpoleTask  # type: ignore[no-any-return]


def run(num_envs: int, target: float, max_iterations: int, seed: int) -> dict[str, Any]:
    """Train until the best reward reaches ``target`` or ``max_iterations``; returns the figures."""
    env = simulo.LearningEnv(task_class()(), num_envs=num_envs, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        trainer = simulo.RLTrainer(env, device="cpu", seed=seed, checkpoint_dir=tmp, progress=False)
        start = time.perf_counter()
        stats: dict[str, Any] = {}
        reached: float | None = None
        done = 0
        try:
            while done < max_iterations:
                stats = trainer.train(max_iterations=1, checkpoint_every=10_000)
                done += 1
                if stats["best_reward"] is not None and stats["best_reward"] >= target:
                    reached = time.perf_counter() - start
                    break
        finally:
            trainer.close()
            env.close()
        wall = time.perf_counter() - start
    return {"num_envs": num_envs, "seconds": reached, "iterations": done, "env_steps": stats["env_steps"],
            "best": stats["best_reward"], "steps_per_s": stats["env_steps"] / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--target", type=float, default=270.0)
    parser.add_argument("--max-iterations", type=int, default=150)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--quick", action="store_true", help="8 environments, 2 iterations (checks the script)")
    args = parser.parse_args()
    sizes, iterations = ([8], 2) if args.quick else (args.num_envs, args.max_iterations)
    print(f"{'num_envs':>8} {'s to target':>11} {'iterations':>10} {'env-steps':>10} {'best':>7} {'steps/s':>8}")
    for num_envs in sizes:
        row = run(num_envs, args.target, iterations, args.seed)
        seconds = "-" if row["seconds"] is None else f"{row['seconds']:.1f}"
        best = "-" if row["best"] is None else f"{row['best']:.1f}"
        print(f"{row['num_envs']:>8} {seconds:>11} {row['iterations']:>10} {row['env_steps']:>10} {best:>7} "
              f"{row['steps_per_s']:>8.0f}")


if __name__ == "__main__":
    main()
