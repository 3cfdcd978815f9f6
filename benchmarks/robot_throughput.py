"""Pick-arm throughput through the ``simulo`` contract against a raw PyBullet loop, in the same run.

Every step of either loop, for each of N environments: position targets for the arm's 5 joints (smooth,
time-varying, different per environment), a read of the 7 joint positions and of the ``tcp`` link pose,
then one physics step. The contract loop calls ``robot.set_joint_position_target``, reads
``robot.state.joint_positions`` and ``robot.get_body_pose("tcp")`` and calls ``sim.step()``. The raw loop
uses the same client layout (N environments split into DIRECT clients of at most ``envs_per_world``
environments, the same origins, collision-filter bits, passive fingers and motor settings) and calls
``setJointMotorControlArray(POSITION_CONTROL)``, ``getJointStates`` and ``getLinkState`` per environment and
``stepSimulation`` per client. Both loops therefore simulate the same physics: the script checks that their
joint positions agree bit for bit at the end (column ``same``).

Timing: both simulations are built side by side, warmed up, then timed in alternation (contract, raw,
raw, contract, ...) for ``--repeats`` blocks of a fixed number of steps with ``time.perf_counter``. Other
work on the machine only ever slows a block down, so the throughput columns give each loop's fastest block
and ``ratio`` the median of the back-to-back block pairs' ratios; ``spread`` (range of those ratios over
their median) shows how noisy the run was.

Scaling: a step's cost depends on where the arms are in their motion (blocks differ by up to 1.9x), so the
motions repeat every 16 environments and every N >= 16 times the same steps (60 per block by default,
8 blocks spanning the slowest joint's period). ``vs N=16`` is then the median over the blocks of
N's block k over N = 16's block k, per environment: the same motions, the same simulated time.

Goals: contract/raw >= 0.9 at every N; env-steps/s at N = 256 >= 0.8x that at N = 16. A second table
times N environments over several bounds ``envs_per_world`` (the engine's DEFAULT_ENVS_PER_WORLD is
chosen with it).

Floor: at N = 1 (``--floor-envs``) a third loop is timed with the other two: the raw loop plus the least a
contract that checks its input and hands out numpy arrays must add (:func:`floor_block`). ``floor/raw`` bounds
what ``ratio`` can reach there.

Run::

    python benchmarks/robot_throughput.py                  # N = 1, 16, 64, 256; bounds at N = 64
    python benchmarks/robot_throughput.py --bound-envs 256 # the bounds table at N = 256
    python benchmarks/robot_throughput.py --profile 64     # cProfile of the contract loop at N = 64
    python benchmarks/robot_throughput.py --quick          # tiny sizes (for the tests)
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pybullet as p
import pybullet_data

import simulo
from simulo.engine.registry import engine_factory

DEFAULT_ENVS_PER_WORLD = engine_factory("pybullet").default_envs_per_world
MAX_ENVS_PER_WORLD = engine_factory("pybullet").max_envs_per_world

ARM = ("base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll")
POSITION_GAIN = 0.3
DT = 1.0 / 240.0
RATIO_GOAL = 0.9
SCALING_GOAL = 0.8
#: environments with different motions; environment i moves as environment i % PHASES
PHASES = 16


def arm_targets(steps: int, num_envs: int) -> np.ndarray:
    """Smooth joint targets (steps, num_envs, 5): a slow sine per joint, phase-shifted per environment.

    The phases repeat every :data:`PHASES` environments, so N = 256 simulates 16 copies of what N = 16 does:
    how long a step takes depends on where the arms are in their motion (by up to 1.9x between blocks), and
    the scaling figure compares the same motions.
    """
    t = np.arange(steps)[:, None, None] * DT
    env = (np.arange(num_envs) % PHASES)[None, :, None]
    joint = np.arange(len(ARM))[None, None, :]
    amplitude = np.array([0.8, 0.5, 0.6, 0.7, 1.0])[None, None, :]
    return amplitude * np.sin(2.0 * np.pi * (0.5 + 0.1 * joint) * t + 0.37 * env + joint)


@dataclass
class Run:
    """One built simulation: ``block`` runs one step per row of targets; ``q`` gives the joint positions."""

    block: Callable[[np.ndarray], None]
    q: Callable[[], np.ndarray]
    close: Callable[[], None]
    origins: np.ndarray


def contract_run(num_envs: int, bound: int) -> Run:
    """The pick arm in ``num_envs`` environments, driven through the contract."""
    scene = simulo.Scene(num_envs=num_envs)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/pick_arm:v1"),
                         actuator_gains={"|".join(ARM): simulo.MotorGainsConfig(position_gain=POSITION_GAIN)})
    scene.add(robot, at="/World/Arm")
    sim = simulo.Simulation(scene, dt=DT, envs_per_world=bound)
    arm_ids = [robot.find_joints(name)[0] for name in ARM]

    def block(targets: np.ndarray) -> None:
        for target in targets:
            robot.set_joint_position_target(target, joint_ids=arm_ids)
            q = robot.state.joint_positions  # noqa: F841  (the read is the work being measured)
            tcp = robot.get_body_pose("tcp")  # noqa: F841
            sim.step()

    return Run(block, lambda: np.array(robot.state.joint_positions), sim.close, np.asarray(sim.env_origins))


def raw_run(num_envs: int, bound: int, origins: np.ndarray, floor: bool = False) -> Run:
    """The same arms, layout and motor settings, driven with direct PyBullet calls.

    With ``floor``, each step also does the least any contract that checks its input and hands out numpy
    arrays must add to the raw loop (see :func:`floor_block`): the bound on what ``ratio`` can reach.
    """
    urdf = str(simulo.Asset.from_registry("simulo/robot/pick_arm:v1").urdf_path())
    plane = os.path.join(pybullet_data.getDataPath(), "plane.urdf")
    clients: list[int] = []
    handles: list[tuple[int, int]] = []
    for i in range(num_envs):
        if i % bound == 0:
            cid = p.connect(p.DIRECT)
            p.setGravity(0, 0, -9.81, physicsClientId=cid)
            p.setTimeStep(DT, physicsClientId=cid)
            p.loadURDF(plane, useFixedBase=True, physicsClientId=cid)
            clients.append(cid)
        cid = clients[-1]
        body = p.loadURDF(urdf, basePosition=origins[i].tolist(), useFixedBase=True, physicsClientId=cid)
        if bound > 1 and num_envs > 1:  # one collision-filter bit per environment of a world, as the engine does
            bit = 1 << (2 + i % bound)
            for link in range(-1, p.getNumJoints(body, physicsClientId=cid)):
                p.setCollisionFilterGroupMask(body, link, bit, bit | 2, physicsClientId=cid)
        handles.append((cid, body))
    cid, body = handles[0]
    infos = [p.getJointInfo(body, j, physicsClientId=cid) for j in range(p.getNumJoints(body, physicsClientId=cid))]
    by_name = {info[1].decode(): info for info in infos}
    joints = [info[0] for info in infos if info[2] != p.JOINT_FIXED]
    arm = [by_name[name][0] for name in ARM]
    tcp = next(info[0] for info in infos if info[12].decode() == "tcp")
    forces = [by_name[name][10] for name in ARM]
    zeros7 = [0.0] * len(joints)
    gains = [POSITION_GAIN] * len(arm)  # velocity targets 0 and velocity gains 1 are the motor's defaults
    for cid, body in handles:  # passive joints: PyBullet's default velocity motors off
        p.setJointMotorControlArray(body, joints, p.VELOCITY_CONTROL, targetVelocities=zeros7, forces=zeros7,
                                    physicsClientId=cid)
    q = np.zeros((num_envs, len(joints)))
    tcp_pose = np.zeros((num_envs, 7))

    def block(targets: np.ndarray) -> None:
        for target in targets:
            rows = target.tolist()
            for i, (cid, body) in enumerate(handles):
                p.setJointMotorControlArray(body, arm, p.POSITION_CONTROL, targetPositions=rows[i],
                                            forces=forces, positionGains=gains, physicsClientId=cid)
                q[i] = [s[0] for s in p.getJointStates(body, joints, physicsClientId=cid)]
                link = p.getLinkState(body, tcp, computeForwardKinematics=1, physicsClientId=cid)
                tcp_pose[i, :3] = link[4]
                tcp_pose[i, 3:] = link[5]
            for cid in clients:
                p.stepSimulation(physicsClientId=cid)

    def positions() -> np.ndarray:
        """Joint positions after the last step (the contract refreshes its buffer after each step)."""
        return np.array([[s[0] for s in p.getJointStates(body, joints, physicsClientId=cid)]
                         for cid, body in handles])

    def close() -> None:
        for cid in clients:
            p.disconnect(physicsClientId=cid)

    if floor:
        return Run(floor_block(handles, clients, arm, joints, tcp, (forces, gains)), positions, close, origins)
    return Run(block, positions, close, origins)


def floor_block(handles: list[tuple[int, int]], clients: list[int], arm: list[int], joints: list[int], tcp: int,
                motor: tuple[list[float], ...]) -> Callable[[np.ndarray], None]:
    """The raw loop's steps plus the least a checking contract adds, in the contract loop's order.

    Per step: a glance at the targets (an ndarray of the block's shape, float, finite and bounded by the sum of
    its magnitudes, as ``simulo.sim.tensors.fits``) and a write into a target buffer; the joint buffers
    (positions, velocities and efforts: one engine read fills all three) refreshed in place; the tcp pose as a
    new (N, 7) array; then the buffered targets sent and the physics stepped. No layers, no modes, no drives,
    no held-buffer bookkeeping: what is left is the work itself.
    """
    forces, gains = motor
    num_envs, width = len(handles), len(arm)
    pos_t = np.zeros((num_envs, width))
    q, qd, effort = (np.zeros((num_envs, len(joints))) for _ in range(3))
    shape = (num_envs, width)

    def block(targets: np.ndarray) -> None:
        for target in targets:
            if not (type(target) is np.ndarray and target.shape == shape and target.dtype.kind == "f"
                    and sum(map(abs, target.ravel().tolist())) <= 1e15):
                raise ValueError(f"targets must be a float array of shape {shape}")
            pos_t[:, :] = target
            for i, (cid, body) in enumerate(handles):
                pos, vel, _, eff = zip(*p.getJointStates(body, joints, physicsClientId=cid))
                q[i], qd[i], effort[i] = pos, vel, eff
            pose = np.array([link[4] + link[5] for link in  # noqa: F841  (the read is the work being measured)
                             (p.getLinkState(body, tcp, computeForwardKinematics=1, physicsClientId=cid)
                              for cid, body in handles)])
            for (cid, body), row in zip(handles, pos_t.tolist()):
                p.setJointMotorControlArray(body, arm, p.POSITION_CONTROL, targetPositions=row,
                                            forces=forces, positionGains=gains, physicsClientId=cid)
            for cid in clients:
                p.stepSimulation(physicsClientId=cid)

    return block


@dataclass
class Result:
    """Timings of both loops for one layout.

    Attributes:
        contract: Env-steps/s of the contract loop's fastest block (the one least disturbed by other work).
        raw: Env-steps/s of the raw loop's fastest block.
        ratio: Median over the blocks of contract/raw, each pair timed back to back.
        fast_ratio: ``contract / raw`` of the fastest blocks.
        spread: (max - min) / median of the per-block ratios: the noise of this measurement.
        same: Whether both loops (and the floor loop, if timed) end with bit-identical joint positions.
        floor: Median over the blocks of floor/raw (see :func:`floor_block`), None when the floor was not timed.
        blocks: Env-steps/s of every timed block of each loop (``"contract"``, ``"raw"``), in simulated-time
            order: block k of any N covers the same steps of the same motions (see :func:`scaling`).
    """

    num_envs: int
    bound: int
    contract: float
    raw: float
    ratio: float
    fast_ratio: float
    spread: float
    same: bool
    blocks: dict[str, list[float]]
    floor: float | None = None


def compare(num_envs: int, bound: int, steps: int, warmup: int, repeats: int, floor: bool = False) -> Result:
    """Build both loops (and with ``floor`` the floor loop), warm them up, then time ``repeats`` blocks of
    ``steps`` steps each, alternating the order from block to block."""
    contract = contract_run(num_envs, bound)
    runs = {"contract": contract, "raw": raw_run(num_envs, bound, contract.origins)}
    if floor:
        runs["floor"] = raw_run(num_envs, bound, contract.origins, floor=True)
    try:
        targets = arm_targets(warmup + repeats * steps, num_envs)
        for run in runs.values():
            run.block(targets[:warmup])
        rates: dict[str, list[float]] = {name: [] for name in runs}
        for k in range(repeats):
            chunk = targets[warmup + k * steps: warmup + (k + 1) * steps]
            order = list(runs.items())
            for name, run in order if k % 2 == 0 else order[::-1]:
                start = time.perf_counter()
                run.block(chunk)
                rates[name].append(steps * num_envs / (time.perf_counter() - start))
        ratios = [c / r for c, r in zip(rates["contract"], rates["raw"])]
        q = contract.q()
        same = all(np.array_equal(q, run.q()) for run in runs.values())
    finally:
        for run in runs.values():
            run.close()
    ratio = statistics.median(ratios)
    best_c, best_r = max(rates["contract"]), max(rates["raw"])
    floor_ratio = statistics.median(f / r for f, r in zip(rates["floor"], rates["raw"])) if floor else None
    return Result(num_envs, bound, best_c, best_r, ratio, best_c / best_r, (max(ratios) - min(ratios)) / ratio, same,
                  {"contract": rates["contract"], "raw": rates["raw"]}, floor_ratio)


def scaling(big: Result, ref: Result, loop: str) -> float:
    """Per-environment speed of ``big`` relative to ``ref`` for ``loop``: the median over the blocks of
    ``big``'s block k over ``ref``'s block k. Both ran the same steps of the same motions in block k (when
    they have the same steps per block), so each pair compares like with like; the median drops the pairs
    that other work on the machine disturbed."""
    return statistics.median(b / r for b, r in zip(big.blocks[loop], ref.blocks[loop]))


def steps_for(num_envs: int, steps: int, min_env_steps: int) -> int:
    """Steps per timed block: ``steps``, raised so that a block holds at least ``min_env_steps`` env-steps
    (with the defaults, 960 steps at N = 1 and 60 at every N >= 16, so that N = 16 to 256 time the same
    steps: their blocks pair up in :func:`scaling`)."""
    return max(steps, -(-min_env_steps // num_envs))


def profile(num_envs: int, bound: int, steps: int) -> None:
    """Print the functions that take the most time in the contract loop."""
    run = contract_run(num_envs, bound)
    targets = arm_targets(steps + 20, num_envs)
    run.block(targets[:20])
    prof = cProfile.Profile()
    prof.enable()
    run.block(targets[20:])
    prof.disable()
    run.close()
    pstats.Stats(prof).sort_stats("tottime").print_stats(18)


def load() -> str:
    """The machine's load averages, for judging noise."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 16, 64, 256], help="environment counts")
    parser.add_argument("--bound", type=int, default=DEFAULT_ENVS_PER_WORLD,
                        help=f"envs_per_world for the first table (default {DEFAULT_ENVS_PER_WORLD})")
    parser.add_argument("--bounds", type=int, nargs="+", default=[1, 4, 8, 16, MAX_ENVS_PER_WORLD],
                        help=f"envs_per_world values for the second table (at most {MAX_ENVS_PER_WORLD})")
    parser.add_argument("--bound-envs", type=int, default=64, help="environments for the bounds table")
    parser.add_argument("--steps", type=int, default=60,
                        help="steps per timed block (default 60: 8 blocks span the slowest joint's 2 s period)")
    parser.add_argument("--min-env-steps", type=int, default=960,
                        help="raise the steps per block so a block holds at least this many env-steps")
    parser.add_argument("--warmup", type=int, default=30, help="untimed steps first (default 30)")
    parser.add_argument("--repeats", type=int, default=8, help="timed blocks per loop (default 8)")
    parser.add_argument("--floor-envs", type=int, nargs="*", default=[1],
                        help="environment counts at which the floor loop is timed too (default 1)")
    parser.add_argument("--profile", type=int, metavar="N", help="only profile the contract loop at N envs")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the tests")
    args = parser.parse_args(argv)
    if args.quick:
        args.envs, args.bounds, args.bound_envs = [1, 16], [4, 16], 16
        args.steps, args.min_env_steps, args.warmup, args.repeats = 10, 0, 2, 2
    if args.profile:
        profile(args.profile, args.bound, args.steps * 4)
        return 0

    print(f"pick arm, dt {DT:.5f} s; {args.repeats} alternating blocks per loop after {args.warmup} warm-up steps; "
          f"{os.cpu_count()} CPUs, load average {load()}")
    print("contract/s, raw/s: env-steps per second of the fastest block; ratio: median of the paired block "
          "ratios;\nfast: ratio of the fastest blocks; spread: range of the block ratios over their median")
    print(f"\nthroughput, envs_per_world = {args.bound}")
    print(f"{'N':>5} {'steps':>6} {'contract/s':>11} {'raw/s':>9} {'ratio':>6} {'fast':>6} {'spread':>7} "
          f"{'vs N=16':>8} {'raw vs 16':>10} {'same':>5}")
    results: list[Result] = []
    for n in args.envs:
        steps = steps_for(n, args.steps, args.min_env_steps)
        res = compare(n, args.bound, steps, args.warmup, args.repeats, floor=n in args.floor_envs)
        results.append(res)
        ref = next((r for r in results if r.num_envs == 16), None)
        paired = ref is not None and len(ref.blocks["raw"]) == len(res.blocks["raw"])
        rel = f"{scaling(res, ref, 'contract'):.2f}" if ref is not None and paired else "-"
        raw_rel = f"{scaling(res, ref, 'raw'):.2f}" if ref is not None and paired else "-"
        print(f"{n:>5} {steps:>6} {res.contract:>11.0f} {res.raw:>9.0f} {res.ratio:>6.3f} {res.fast_ratio:>6.3f} "
              f"{res.spread:>7.1%} {rel:>8} {raw_rel:>10} {'yes' if res.same else 'NO':>5}", flush=True)
    for res in results:
        if res.floor is not None:
            print(f"floor at N={res.num_envs}: floor/raw {res.floor:.3f} (the raw loop plus the least a checking "
                  f"contract adds; contract/raw {res.ratio:.3f})")
    worst = min(results, key=lambda r: r.ratio)
    print(f"goal contract/raw >= {RATIO_GOAL}: {'met' if worst.ratio >= RATIO_GOAL else 'MISSED'} "
          f"(lowest {worst.ratio:.3f}, at N={worst.num_envs})")
    ref = next((r for r in results if r.num_envs == 16), None)
    big = next((r for r in results if r.num_envs == 256), None)
    if ref is not None and big is not None:
        if steps_for(16, args.steps, args.min_env_steps) != steps_for(256, args.steps, args.min_env_steps):
            print("(N=16 and N=256 timed different steps: no scaling figure; keep --min-env-steps <= 16 * --steps)")
        else:
            ratio = scaling(big, ref, "contract")
            print(f"goal env-steps/s at N=256 >= {SCALING_GOAL}x N=16: {'met' if ratio >= SCALING_GOAL else 'MISSED'} "
                  f"({ratio:.2f}x; the raw loop: {scaling(big, ref, 'raw'):.2f}x)")

    n = args.bound_envs
    steps = steps_for(n, args.steps, args.min_env_steps)
    print(f"\nenvs_per_world at N = {n} ({steps} steps per block)")
    print(f"{'bound':>5} {'worlds':>6} {'contract/s':>11} {'raw/s':>9} {'ratio':>6} {'fast':>6} {'spread':>7} "
          f"{'same':>5}")
    for bound in args.bounds:
        res = compare(n, bound, steps, args.warmup, args.repeats)
        print(f"{bound:>5} {-(-n // bound):>6} {res.contract:>11.0f} {res.raw:>9.0f} {res.ratio:>6.3f} "
              f"{res.fast_ratio:>6.3f} {res.spread:>7.1%} {'yes' if res.same else 'NO':>5}", flush=True)
    print(f"\nload average at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
