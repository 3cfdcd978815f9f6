"""Wall time for PPO to reach a mean episode return of 270 on the cartpole sample (ceiling about 300).

Runs the sample task (samples/cartpole/task.py) through simulo.LearningEnv and simulo.RLTrainer on the CPU,
one iteration at a time, and prints the time and env-steps at which the mean return of recent episodes first
reaches the target. Goal: <= 120 s on a 2-core machine.

    python benchmarks/train_cartpole.py [--num-envs 64] [--seeds 0 1 2] [--target 270] [--max-iterations 300]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import simulo

ROOT = Path(__file__).resolve().parents[1]


def load_task_class() -> type:
    """The sample's CartpoleTask class, loaded from its file."""
    spec = importlib.util.spec_from_file_location("cartpole_task", ROOT / "samples" / "cartpole" / "task.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["cartpole_task"] = module
    spec.loader.exec_module(module)
    return module.CartpoleTask


def time_to_target(seed: int, num_envs: int, target: float, max_iterations: int, checkpoint_dir: Path) -> dict:
    """Train until the target is reached (or ``max_iterations``); returns time, iterations, env-steps, best."""
    task_cls = load_task_class()
    env = simulo.LearningEnv(task_cls(), num_envs=num_envs, seed=seed)
    trainer = simulo.RLTrainer(env, algorithm="PPO", seed=seed, progress=False, checkpoint_dir=checkpoint_dir)
    start = time.perf_counter()
    reached = None
    result: dict = {}
    for done in range(1, max_iterations + 1):
        result = trainer.train(max_iterations=done, checkpoint_every=10_000)  # one more iteration
        if result["best_reward"] is not None and result["best_reward"] >= target:
            reached = time.perf_counter() - start
            break
    trainer.close()
    env.close()
    return {"seed": seed, "seconds": reached, "iterations": result.get("iterations"),
            "env_steps": result.get("env_steps"), "best_reward": result.get("best_reward")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--target", type=float, default=270.0)
    parser.add_argument("--max-iterations", type=int, default=300)
    args = parser.parse_args()
    import tempfile

    print(f"{'seed':>4} {'time to target (s)':>19} {'iterations':>10} {'env-steps':>10} {'best return':>11}")
    times = []
    for seed in args.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            row = time_to_target(seed, args.num_envs, args.target, args.max_iterations, Path(tmp))
        shown = "not reached" if row["seconds"] is None else f"{row['seconds']:.1f}"
        print(f"{row['seed']:>4} {shown:>19} {row['iterations']:>10} {row['env_steps']:>10} "
              f"{row['best_reward']:>11.1f}")
        if row["seconds"] is not None:
            times.append(row["seconds"])
    if times:
        times.sort()
        print(f"median time to {args.target:.0f}: {times[len(times) // 2]:.1f} s over {len(times)}/{len(args.seeds)} "
              f"seeds (goal <= 120 s)")


if __name__ == "__main__":
    main()
