"""How long the cartpole sample's scene takes to be ready, and the memory it holds, on each engine.

Each measurement is a fresh process that builds the SDK cartpole sample's scene as its training job does (a
``simulo.LearningEnv`` of the repository's cartpole task at dt 1/120 with 2 physics steps per action, a shared
plane, ``env_spacing`` 4), resets every environment and takes one step: the time from the ``LearningEnv`` call
to the end of that step (imports excluded), and the process's peak resident memory. With ``--baseline SRC``
the same runs alternate with ones importing ``simulo`` from SRC (another checkout's ``src``), so both trees are
timed in the same minutes. Goals (issue 24): 4,096 cartpoles ready in under 5 s on MuJoCo and under 20 s on
PyBullet.

    python benchmarks/build_time.py                                  # 4096 environments, both engines
    python benchmarks/build_time.py --baseline /tmp/before/src       # and the other tree, alternating
    python benchmarks/build_time.py --quick                          # 4 environments, one round (the tests)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The child: build, reset, one step; print the seconds and the peak resident memory as JSON.
CHILD = """
import json, resource, sys, time
sys.path.insert(0, {task_dir!r})
import torch
import simulo
from task import CartpoleTask
start = time.perf_counter()
env = simulo.LearningEnv(task=CartpoleTask(), num_envs={num_envs}, engine={engine!r}, env_spacing=4.0, seed=0)
env.reset(seed=0)
env.step(torch.zeros({num_envs}, 1))
seconds = time.perf_counter() - start
env.close()
print(json.dumps({{"seconds": seconds, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

GOALS = {"mujoco": 5.0, "pybullet": 20.0}


def measure(engine: str, num_envs: int, src: str | None) -> dict[str, float]:
    """One fresh process's build time and peak memory (``src``: import simulo from there)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    code = CHILD.format(task_dir=str(ROOT / "samples" / "cartpole"), num_envs=num_envs, engine=engine)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"the {engine} build failed:\n{done.stderr[-2000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """Print each engine's (and tree's) median build time and peak memory."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--engines", nargs="+", default=["mujoco", "pybullet"], choices=sorted(GOALS))
    parser.add_argument("--rounds", type=int, default=3, help="processes per engine and tree (default 3)")
    parser.add_argument("--baseline", help="another checkout's src folder, run alternately")
    parser.add_argument("--quick", action="store_true", help="4 environments, one round")
    args = parser.parse_args()
    num_envs, rounds = (4, 1) if args.quick else (args.num_envs, args.rounds)
    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if args.baseline:
        trees.append(("baseline", args.baseline))
    print(f"{'engine':<10}{'tree':<11}{'N':>6}{'ready s':>9}{'peak MB':>9}  goal")
    for engine in args.engines:
        runs: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
        for k in range(rounds):
            for name, src in (trees if k % 2 == 0 else trees[::-1]):
                runs[name].append(measure(engine, num_envs, src))
        for name, _ in trees:
            seconds = statistics.median(r["seconds"] for r in runs[name])
            peak = statistics.median(r["rss_mb"] for r in runs[name])
            verdict = "met" if seconds < GOALS[engine] else "MISSED"
            print(f"{engine:<10}{name:<11}{num_envs:>6}{seconds:9.2f}{peak:9.0f}  < {GOALS[engine]:.0f} s: {verdict}")
    print(f"load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
