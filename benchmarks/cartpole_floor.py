"""The physics floor of the cartpole sample's default training: raw PyBullet stepping its 4096 cartpoles, against
the ``simulo`` contract doing the same work in the same run.

The SDK's cartpole sample trains 4096 environments at dt 1/120 with 2 physics steps per action, and an episode
lasts 5 s: 300 actions. No episode can end with a return of 270 or more before every environment has stepped
about 270 actions, so the time one full 300-action episode of all the environments takes is a floor under the
sample's time to ``best_reward`` >= 270, whatever the learner does.

Per action, for each environment: one horizontal force on the cart (seeded uniform in +-100 N, the sample's
``action_scale``), two physics steps, then a read of the joint positions and velocities (the observation).

- ``raw``: pybullet only. The catalog cartpole URDF (``simulo/robot/cartpole:v1``) and pybullet_data's plane
  loaded into DIRECT clients of ``--envs-per-world`` environments (16, the PyBullet engine's default, unless
  given; at most 30), each cartpole where the contract put it, its velocity motors off, inertia from the file,
  and one collision-filter bit per environment as the engine gives them (the 8.4 m rails of neighbouring
  environments 4 m apart overlap: unfiltered, carts hit their neighbours' rails); per action
  ``setJointMotorControlArray(TORQUE_CONTROL)`` before each ``stepSimulation`` and one ``getJointStates``.
- ``contract``: ``simulo.Simulation`` of the same scene (a shared plane, the cartpole at ``/World/Robot``,
  ``env_spacing`` 4); per action ``robot.set_joint_effort_target``, ``sim.step(2)`` and ``robot.state``.

Both are built, warmed up, then timed in alternating blocks (contract, raw, raw, contract, ...) of ``--actions``
actions. ``env-steps/s`` is each loop's fastest block (one env-step is one action of one environment);
``episode s`` is 300 actions of every environment at that rate. ``per CPU s`` and ``episode CPU s`` are the
same over the process's CPU time instead of the wall clock: what one core to itself would give, the figure to
read on a shared machine. ``ratio`` is the median contract/raw ratio of
back-to-back block pairs and ``spread`` the range of those ratios over their median. Both loops see the same
seeded forces, so they end on bit-identical joint states (printed as ``same``). PyBullet runs on one core.

    python benchmarks/cartpole_floor.py                      # 4096 environments, 4 block pairs of 20 actions
    python benchmarks/cartpole_floor.py --num-envs 256       # the sample with --num-envs 256
    python benchmarks/cartpole_floor.py --envs-per-world 256 # bigger raw worlds (the contract keeps its default)
    python benchmarks/cartpole_floor.py --quick              # tiny sizes, for the tests
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pybullet as p
import pybullet_data

import simulo

DT = 1.0 / 120.0
PHYSICS_STEPS_PER_ACTION = 2
EPISODE_ACTIONS = 300  # the sample's 5 s episode at 2 x 1/120 s per action
ACTION_SCALE = 100.0  # N, the sample's action_scale
CART_JOINT = "slider_to_cart"


def forces(rng: np.random.Generator, num_envs: int) -> np.ndarray:
    """One action's cart forces (num_envs,) in N."""
    return ACTION_SCALE * rng.uniform(-1.0, 1.0, num_envs)


class ContractLoop:
    """The sample's scene through ``simulo.Simulation`` on PyBullet."""

    def __init__(self, num_envs: int, seed: int) -> None:
        scene = simulo.Scene(num_envs=num_envs, env_spacing=4.0)
        scene.add(simulo.Terrain.plane(name="ground"), at="/", per_environment=False)
        self.robot = simulo.Robot(asset=simulo.Asset.from_registry("simulo/robot/cartpole:v1"),
                                  initial_pose=simulo.Pose.identity())
        scene.add(self.robot, at="/World/Robot")
        self.sim = simulo.Simulation(scene, dt=DT, engine="pybullet")
        self.cart = self.robot.find_joints(CART_JOINT)
        self.num_envs = num_envs
        self.rng = np.random.default_rng(seed)
        self.obs = np.zeros((num_envs, 4))

    def base_positions(self) -> np.ndarray:
        """Every cartpole's base position (num_envs, 3) in world coordinates, as the engine placed it."""
        return np.asarray(self.robot.state.pose)[:, :3].copy()

    def run(self, actions: int) -> None:
        robot = self.robot
        for _ in range(actions):
            robot.set_joint_effort_target(forces(self.rng, self.num_envs)[:, None], joint_ids=self.cart)
            self.sim.step(PHYSICS_STEPS_PER_ACTION)
            state = robot.state
            self.obs[:, :2] = np.asarray(state.joint_positions)
            self.obs[:, 2:] = np.asarray(state.joint_velocities)

    def close(self) -> None:
        self.sim.close()


class RawLoop:
    """The same cartpoles in raw PyBullet DIRECT clients, stepped from Python."""

    def __init__(self, urdf: Path, positions: np.ndarray, envs_per_world: int, seed: int) -> None:
        self.num_envs = len(positions)
        self.clients: list[int] = []
        self.bodies: list[list[int]] = []
        plane = str(Path(pybullet_data.getDataPath()) / "plane.urdf")
        for first in range(0, self.num_envs, envs_per_world):
            cid = p.connect(p.DIRECT)
            p.setGravity(0.0, 0.0, -9.81, physicsClientId=cid)
            p.setTimeStep(DT, physicsClientId=cid)
            ground = p.loadURDF(plane, useFixedBase=True, physicsClientId=cid)
            p.setCollisionFilterGroupMask(ground, -1, 1, -1, physicsClientId=cid)
            bodies = []
            for k, pos in enumerate(positions[first:first + envs_per_world]):
                body = p.loadURDF(str(urdf), basePosition=pos.tolist(), useFixedBase=True,
                                  flags=p.URDF_USE_INERTIA_FROM_FILE, physicsClientId=cid)
                bit = 1 << (k + 1)  # one filter bit per environment: it touches its own links and the ground
                for link in (-1, 0, 1):
                    p.setCollisionFilterGroupMask(body, link, bit, bit | 1, physicsClientId=cid)
                p.setJointMotorControlArray(body, [0, 1], p.VELOCITY_CONTROL, targetVelocities=[0.0, 0.0],
                                            forces=[0.0, 0.0], physicsClientId=cid)
                bodies.append(body)
            self.clients.append(cid)
            self.bodies.append(bodies)
        self.rng = np.random.default_rng(seed)
        self.obs = np.zeros((self.num_envs, 4))

    def run(self, actions: int) -> None:
        torque, joints = p.TORQUE_CONTROL, [0, 1]
        for _ in range(actions):
            force = forces(self.rng, self.num_envs).tolist()
            states: list[tuple[float, float, tuple[float, ...], float]] = []
            env = 0
            for cid, bodies in zip(self.clients, self.bodies):
                mine = force[env:env + len(bodies)]
                for _ in range(PHYSICS_STEPS_PER_ACTION):
                    for body, f in zip(bodies, mine):
                        p.setJointMotorControlArray(body, [0], torque, forces=[f], physicsClientId=cid)
                    p.stepSimulation(physicsClientId=cid)
                for body in bodies:
                    states += p.getJointStates(body, joints, physicsClientId=cid)
                env += len(bodies)
            pos, vel, _, _ = zip(*states)
            self.obs[:, :2] = np.array(pos).reshape(self.num_envs, 2)
            self.obs[:, 2:] = np.array(vel).reshape(self.num_envs, 2)

    def close(self) -> None:
        for cid in self.clients:
            p.disconnect(physicsClientId=cid)


def _timed(run: Callable[[int], None], actions: int) -> tuple[float, float]:
    """Wall and process CPU seconds of one block."""
    start, cpu = time.perf_counter(), time.process_time()
    run(actions)
    return time.perf_counter() - start, time.process_time() - cpu


def bench(num_envs: int, envs_per_world: int, actions: int, pairs: int, seed: int) -> dict[str, float]:
    """Build both loops side by side, warm them up, time them in alternating blocks; returns the figures."""
    start = time.perf_counter()
    contract = ContractLoop(num_envs, seed)
    built_contract = time.perf_counter() - start
    urdf = Path(simulo.Asset.from_registry("simulo/robot/cartpole:v1").urdf_path())
    start = time.perf_counter()
    raw = RawLoop(urdf, contract.base_positions(), envs_per_world, seed)
    built_raw = time.perf_counter() - start
    try:
        contract.run(2)
        raw.run(2)
        times: dict[str, list[float]] = {"contract": [], "raw": []}
        cpu: dict[str, list[float]] = {"contract": [], "raw": []}
        order = [("contract", contract.run), ("raw", raw.run)]
        for k in range(2 * pairs):
            key, run = order[(k + k // 2) % 2]  # contract, raw, raw, contract, contract, raw, ...
            wall, used = _timed(run, actions)
            times[key].append(wall)
            cpu[key].append(used)
        ratios = [r / c for c, r in zip(times["contract"], times["raw"])]
        ratio = statistics.median(ratios)
        rate = {key: num_envs * actions / min(t) for key, t in times.items()}
        cpu_rate = {key: num_envs * actions / min(t) for key, t in cpu.items()}
        same = float(contract.obs.tobytes() == raw.obs.tobytes())
        return {"same": same, "raw": rate["raw"], "contract": rate["contract"], "ratio": ratio,
                "cpu_raw": cpu_rate["raw"], "cpu_contract": cpu_rate["contract"],
                "spread": (max(ratios) - min(ratios)) / ratio, "built_raw": built_raw,
                "built_contract": built_contract}
    finally:
        raw.close()
        contract.close()


def main() -> None:
    """Print the two loops' rates, the one-episode floor and the contract/raw ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--envs-per-world", type=int, default=16, choices=range(1, 31), metavar="1..30",
                        help="raw environments per PyBullet client")
    parser.add_argument("--actions", type=int, default=20, help="actions per timed block")
    parser.add_argument("--pairs", type=int, default=4, help="block pairs (contract and raw)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the tests")
    args = parser.parse_args()
    num_envs, actions, pairs = (8, 3, 1) if args.quick else (args.num_envs, args.actions, args.pairs)
    row = bench(num_envs, args.envs_per_world, actions, pairs, args.seed)
    print(f"cartpole, {num_envs} environments, dt 1/120 s, {PHYSICS_STEPS_PER_ACTION} physics steps per action, "
          f"raw worlds of {args.envs_per_world}; {pairs} block pairs of {actions} actions")
    print(f"{'loop':<10}{'env-steps/s':>12}{'episode s':>11}{'per CPU s':>11}{'episode CPU s':>15}{'build s':>9}")
    for key in ("raw", "contract"):
        rate, cpu_rate = row[key], row["cpu_" + key]
        print(f"{key:<10}{rate:12.0f}{EPISODE_ACTIONS * num_envs / rate:11.1f}{cpu_rate:11.0f}"
              f"{EPISODE_ACTIONS * num_envs / cpu_rate:15.1f}{row['built_' + key]:9.1f}")
    print(f"contract/raw: {row['ratio']:.2f} (spread {row['spread']:.2f}); same joint states at the end: "
          f"{'yes' if row['same'] else 'NO'}")
    print(f"one {EPISODE_ACTIONS}-action episode of all {num_envs} environments needs at least "
          f"{EPISODE_ACTIONS * num_envs / row['raw']:.1f} s of raw PyBullet stepping here "
          f"({EPISODE_ACTIONS * num_envs / row['contract']:.1f} s through the contract)")


if __name__ == "__main__":
    main()
