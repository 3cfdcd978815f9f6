"""The engine motor on MuJoCo: a Panda on position targets, against MuJoCo's batched torque step and PyBullet.

The engine motor (``MotorGainsConfig``: PyBullet's solver motor, per-joint and per-environment gains and force
limits, solved with the step's contacts and limits) needs Python between ``mj_step1`` and ``mj_step2``, so on
MuJoCo it cannot run inside ``mujoco.rollout``. Since session 11 its law runs for every environment of a step
at once (``MotorLaw.drive_envs``). Three loops over the same scene (pybullet_data's Panda, fixed base, in
``--envs`` environments), each through ``simulo.Simulation``:

* ``mujoco motors``: seeded position targets on every joint, the engine motor on MuJoCo;
* ``mujoco torques``: the same targets turned into PD torques in numpy (``kp (q* - q) - kd qd``, clipped at the
  effort limits), so every step is one batched ``mujoco.rollout`` call: MuJoCo's fastest path for these bodies;
* ``pybullet motors``: the targets on PyBullet's own motor.

Blocks of ``--steps`` steps alternate between the loops (round-robin, the order rotating each round); each
loop's figure is its fastest block in env-steps/s. ``motors/torques`` is what the motor law costs against
MuJoCo's batched step; ``motors/pybullet`` compares the engines on the same motor.

    python benchmarks/motor_law.py                  # 256 environments, 4 rounds of 10 steps
    python benchmarks/motor_law.py --envs 64 1024
    python benchmarks/motor_law.py --quick          # tiny sizes, for the tests
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

import simulo

PANDA = "simulo/robot/franka-panda:v1"
KP, KD = 400.0, 40.0


class Loop:
    """One simulation of the Panda in ``num_envs`` environments, stepped by ``drive`` each step."""

    def __init__(self, name: str, engine: str, num_envs: int, torques: bool) -> None:
        self.name = name
        scene = simulo.Scene(num_envs=num_envs, env_spacing=2.0)
        self.robot = simulo.Robot(simulo.Asset.from_registry(PANDA))
        scene.add(self.robot, at="/World/Arm")
        self.sim = simulo.Simulation(scene, engine=engine)
        self.num_envs = num_envs
        joints = len(self.robot.get_joint_names())
        rng = np.random.default_rng(7)
        self.phase = rng.uniform(0.0, 2.0 * np.pi, (num_envs, joints))
        self.limit = np.asarray(self.robot.data.effort_limit, dtype=float)
        self.count = 0
        self.drive: Callable[[np.ndarray], None] = self._torques if torques else self._positions

    def targets(self) -> np.ndarray:
        """This step's position targets: a slow sine about the zero posture, 0.3 rad."""
        return 0.3 * np.sin(self.phase + 0.02 * self.count)

    def _positions(self, goal: np.ndarray) -> None:
        self.robot.set_joint_position_target(goal)

    def _torques(self, goal: np.ndarray) -> None:
        state = self.robot.state
        q, qd = np.asarray(state.joint_positions), np.asarray(state.joint_velocities)
        self.robot.set_joint_effort_target(np.clip(KP * (goal - q) - KD * qd, -self.limit, self.limit))

    def run(self, steps: int) -> float:
        """Seconds for ``steps`` steps."""
        start = time.perf_counter()
        for _ in range(steps):
            self.drive(self.targets())
            self.sim.step()
            self.count += 1
        _ = self.robot.state.joint_positions
        return time.perf_counter() - start


def measure(num_envs: int, steps: int, rounds: int, warmup: int) -> dict[str, float]:
    """Env-steps/s of each loop's fastest block."""
    loops = [Loop("mujoco motors", "mujoco", num_envs, torques=False),
             Loop("mujoco torques", "mujoco", num_envs, torques=True),
             Loop("pybullet motors", "pybullet", num_envs, torques=False)]
    try:
        for loop in loops:
            loop.run(warmup)
        best = {loop.name: float("inf") for loop in loops}
        for r in range(rounds):
            for loop in loops[r % 3:] + loops[:r % 3]:
                best[loop.name] = min(best[loop.name], loop.run(steps))
        return {name: num_envs * steps / seconds for name, seconds in best.items()}
    finally:
        for loop in loops:
            loop.sim.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, nargs="+", default=[256], help="environments (default 256)")
    parser.add_argument("--steps", type=int, default=10, help="steps per block (default 10)")
    parser.add_argument("--rounds", type=int, default=4, help="blocks per loop (default 4)")
    parser.add_argument("--warmup", type=int, default=10, help="steps before timing (default 10)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the tests")
    args = parser.parse_args(argv)
    if args.quick:
        args.envs, args.steps, args.rounds, args.warmup = [2], 2, 1, 1
    print(f"pybullet_data's Panda on position targets, env-steps/s (fastest of {args.rounds} blocks of "
          f"{args.steps} steps)")
    print(f"{'N':>6} {'mujoco motors':>14} {'mujoco torques':>15} {'pybullet motors':>16} {'motors/torques':>15} "
          f"{'motors/pybullet':>16}")
    for n in args.envs:
        rate = measure(n, args.steps, args.rounds, args.warmup)
        motors = rate["mujoco motors"]
        print(f"{n:>6} {motors:>14,.0f} {rate['mujoco torques']:>15,.0f} {rate['pybullet motors']:>16,.0f} "
              f"{motors / rate['mujoco torques']:>15.2f} {motors / rate['pybullet motors']:>16.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
