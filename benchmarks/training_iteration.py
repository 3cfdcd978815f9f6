"""What one training iteration costs, and skrl's own PPO update against the trainer's (LeanPPO), in alternating pairs.

Builds two identical trainers over a task's environments (same seed, same engine) in one process: one runs
skrl 1.4.3's ``PPO._update`` with its optimiser's default per-parameter Adam (the trainer before LeanPPO), the
other the trainer as it is. They train one iteration each in turn (the order swapped every pair), and the
script prints each side's median CPU milliseconds per iteration, split into the rollout's parts (``env.step``,
skrl's ``act`` and ``record_transition``, the rest of the loop) and the PPO update, the median ratio of the
paired iterations, and ``same``: whether both ended on the same reward history and the same network bytes.

    python benchmarks/training_iteration.py                          # the repository's cartpole, 64 envs, MuJoCo
    python benchmarks/training_iteration.py --task /tmp/simulo-samples/samples/cartpole/task.py --num-envs 256
    python benchmarks/training_iteration.py --engine pybullet --iterations 10
    python benchmarks/training_iteration.py --quick                  # 8 environments, 2 iterations

``--task FILE`` loads ``CartpoleTask`` (or ``--task-class``) from FILE with FILE's folder on ``sys.path``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import torch
from skrl.agents.torch.ppo import PPO

import simulo

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("env.step", "act", "record", "update")


def task_class(path: Path, name: str) -> type:
    """The task class ``name`` of the file ``path`` (its folder importable, as ``simulo run`` makes it)."""
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"bench_task_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)  # type: ignore[no-any-return]


class Side:
    """One trainer of the comparison, with CPU-time counters around the parts of its iteration."""

    def __init__(self, label: str, cls: type, args: argparse.Namespace, directory: str) -> None:
        self.label = label
        self.env = simulo.LearningEnv(task=cls(), num_envs=args.num_envs, dt=1 / 120, physics_steps_per_action=2,
                                      env_spacing=4.0, seed=42, engine=args.engine)
        self.trainer = simulo.RLTrainer(env=self.env, device="cpu", seed=42, progress=False, checkpoint_dir=directory)
        agent = self.trainer.agent
        if label == "skrl":
            agent.__class__ = PPO
            for group in agent.optimizer.param_groups:
                group["foreach"] = None
        self.parts: dict[str, float] = {}
        self.rows: list[dict[str, float]] = []
        self._wrap(self.env, "step", "env.step")
        self._wrap(agent, "act", "act")
        self._wrap(agent, "record_transition", "record")
        self._wrap(agent, "_update", "update")

    def _wrap(self, owner: Any, name: str, key: str) -> None:
        inner = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                self.parts[key] = self.parts.get(key, 0.0) + time.process_time() - start

        setattr(owner, name, timed)

    def iteration(self) -> None:
        """Train one iteration; record its CPU and wall seconds and its parts."""
        self.parts = {}
        cpu, wall = time.process_time(), time.perf_counter()
        self.trainer.train(max_iterations=1, checkpoint_every=1_000_000)
        row = {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, **self.parts}
        row["rest"] = row["cpu"] - sum(self.parts.values())
        self.rows.append(row)

    def fingerprint(self) -> tuple[list[Any], list[bytes]]:
        """The reward history and the bytes of the policy and value networks."""
        agent = self.trainer.agent
        tensors = [*agent.policy.state_dict().values(), *agent.value.state_dict().values()]
        return list(self.trainer.reward_history), [t.detach().numpy().tobytes() for t in tensors]

    def close(self) -> None:
        self.trainer.close()
        self.env.close()


def main() -> None:
    """Run the pairs, print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--task", type=Path, default=ROOT / "samples" / "cartpole" / "task.py")
    parser.add_argument("--task-class", default="CartpoleTask")
    parser.add_argument("--engine", default="mujoco")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--iterations", type=int, default=12, help="iterations of each trainer (default 12)")
    parser.add_argument("--quick", action="store_true", help="8 environments, 2 iterations (checks the script)")
    args = parser.parse_args()
    if args.quick:
        args.num_envs, args.iterations = 8, 2
    warnings.simplefilter("ignore")  # device="cuda" fallbacks and skrl's notices
    torch.set_num_threads(1)
    cls = task_class(args.task.resolve(), args.task_class)
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        sides = [Side("skrl", cls, args, f"{tmp}/skrl"), Side("lean", cls, args, f"{tmp}/lean")]
        for i in range(args.iterations):
            for side in sides if i % 2 == 0 else sides[::-1]:
                side.iteration()
        same = sides[0].fingerprint() == sides[1].fingerprint()
        for side in sides:
            side.close()
    rollout = 16 * args.num_envs
    print(f"task {args.task} ({args.task_class}), {args.engine}, {args.num_envs} environments, {args.iterations} "
          f"iterations each ({rollout} env-steps an iteration), alternating; load average "
          f"{load_start[0]:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print("median CPU ms per iteration (first iteration left out)")
    print(f"{'update':<8}{'iteration':>10}{'wall':>8}" + "".join(f"{p:>10}" for p in (*PARTS, "rest"))
          + f"{'env-steps/CPU-s':>17}")
    skip = 1 if args.iterations > 1 else 0
    for side in sides:
        rows = side.rows[skip:]
        med = {key: statistics.median(r[key] for r in rows) * 1e3 for key in ("cpu", "wall", *PARTS, "rest")}
        print(f"{side.label:<8}{med['cpu']:>10.1f}{med['wall']:>8.1f}"
              + "".join(f"{med[p]:>10.1f}" for p in (*PARTS, "rest")) + f"{rollout / med['cpu'] * 1e3:>17,.0f}")
    pairs = list(zip(sides[0].rows[skip:], sides[1].rows[skip:], strict=True))
    for key in ("cpu", "update"):
        ratios = sorted(a[key] / b[key] for a, b in zip(*zip(*pairs, strict=True), strict=True))
        print(f"skrl/lean {key}: median {statistics.median(ratios):.2f} (range {ratios[0]:.2f}-{ratios[-1]:.2f}, "
              f"{len(ratios)} pairs)")
    print(f"same: {'yes' if same else 'NO'} (reward history and network bytes)")


if __name__ == "__main__":
    main()
