"""Per-environment speed of the raw PyBullet loop alone as N grows: how much of the contract's scaling is the engine's.

The raw loop of ``robot_throughput.py`` (the pick arm, ``envs_per_world`` environments per DIRECT client) is built
for every N at once, warmed up, then timed in alternating blocks (N ascending, then descending, ...) over the same
motions and steps (the motions repeat every 16 environments). Each row gives the fastest block's env-steps/s and
the median over the blocks of N's block k over the first N's block k, per environment.

Run::

    python benchmarks/raw_scaling.py                 # N = 16, 32, 64, 256
    python benchmarks/raw_scaling.py --envs 16 128   # other counts (the first is the reference)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from robot_throughput import DEFAULT_ENVS_PER_WORLD, arm_targets, load, raw_run


def measure(envs: list[int], bound: int, steps: int, warmup: int, repeats: int) -> dict[int, list[float]]:
    """Env-steps/s of every timed block of the raw loop at each N, all loops alive at once."""
    runs = {}
    for n in envs:
        side = int(np.ceil(np.sqrt(n)))
        origins = np.array([[(i % side) * 2.5, (i // side) * 2.5, 0.0] for i in range(n)])
        runs[n] = raw_run(n, bound, origins)
    targets = {n: arm_targets(warmup + repeats * steps, n) for n in envs}
    rates: dict[int, list[float]] = {n: [] for n in envs}
    try:
        for n, run in runs.items():
            run.block(targets[n][:warmup])
        for k in range(repeats):
            for n in envs if k % 2 == 0 else envs[::-1]:
                start = time.perf_counter()
                runs[n].block(targets[n][warmup + k * steps: warmup + (k + 1) * steps])
                rates[n].append(steps * n / (time.perf_counter() - start))
    finally:
        for run in runs.values():
            run.close()
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, nargs="+", default=[16, 32, 64, 256],
                        help="environment counts (the first is the reference)")
    parser.add_argument("--bound", type=int, default=DEFAULT_ENVS_PER_WORLD, help="envs_per_world")
    parser.add_argument("--steps", type=int, default=60, help="steps per timed block")
    parser.add_argument("--warmup", type=int, default=30, help="untimed steps first")
    parser.add_argument("--repeats", type=int, default=8, help="timed blocks per N")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the tests")
    args = parser.parse_args(argv)
    if args.quick:
        args.envs, args.steps, args.warmup, args.repeats = [2, 4], 5, 2, 2
    rates = measure(args.envs, args.bound, args.steps, args.warmup, args.repeats)
    ref = rates[args.envs[0]]
    print(f"raw PyBullet loop, pick arm, envs_per_world {args.bound}; {args.repeats} alternating blocks of "
          f"{args.steps} steps; load average {load()}")
    print(f"{'N':>5} {'worlds':>6} {'raw/s':>9} {'vs N=' + str(args.envs[0]):>9}")
    for n in args.envs:
        rel = statistics.median(a / b for a, b in zip(rates[n], ref))
        print(f"{n:>5} {-(-n // args.bound):>6} {max(rates[n]):>9.0f} {rel:>9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
