"""Resident memory per environment: the contract against the raw engine holding the same bodies.

For each model (the cartpole, the pick arm and, with ``--models panda``, pybullet_data's Panda) at ``N``
environments (default 1024), two fresh processes,
each measuring its own resident set (``VmRSS``) after its imports and again after building and stepping:

* ``contract``: a :class:`simulo.Scene` with a shared ground plane and the robot in every environment, a
  :class:`simulo.Simulation` (the default ``envs_per_world``), a few steps with position targets and reads of
  ``robot.state`` (so every buffer exists);
* ``raw``: the same URDF loaded ``N`` times with direct PyBullet calls on the same client layout (DIRECT
  clients of at most ``envs_per_world`` copies, a plane in each), the same few steps. As the contract without
  ``visuals=True``, the copies from the 17th on are loaded with ``URDF_IGNORE_VISUAL_SHAPES``
  (:data:`simulo.sim.simulation.DRAWN_ENVS`): PyBullet's renderer keeps a copy of every visual mesh of every
  body, which for the Panda is most of its memory.

Both import ``simulo``, ``numpy`` and ``pybullet`` before the first reading, so the difference of the two
readings is what the bodies and the runtime's bookkeeping cost. The table gives that delta per environment
for each side and the ratio contract/raw; each pair of processes runs ``--repeats`` times (alternating),
and the medians are shown. Goal: ratio <= 1.2.

Run::

    python benchmarks/memory.py                 # N = 1024, 3 pairs per model
    python benchmarks/memory.py --envs 256      # another N
    python benchmarks/memory.py --envs 256 --models panda
    python benchmarks/memory.py --quick         # N = 8, 1 pair (used by the tests)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

RATIO_GOAL = 1.2
MODELS = {"cartpole": "simulo/robot/cartpole:v1", "pick_arm": "simulo/robot/pick_arm:v1",
          "panda": "simulo/robot/franka-panda:v1"}
#: the models measured unless ``--models`` says otherwise
DEFAULT_MODELS = ("cartpole", "pick_arm")
STEPS = 5


def rss_kib() -> int:
    """This process's resident set size in KiB (``/proc/self/status``; the peak from ``getrusage`` elsewhere)."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    import resource  # noqa: PLC0415 (only where /proc is missing)

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def build_contract(ref: str, num_envs: int) -> None:
    """The robot in ``num_envs`` environments through the contract, stepped and read."""
    import numpy as np  # noqa: PLC0415

    import simulo  # noqa: PLC0415

    scene = simulo.Scene(num_envs=num_envs)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(simulo.Asset.from_registry(ref))
    scene.add(robot, at="/World/Robot")
    sim = simulo.Simulation(scene)
    for _ in range(STEPS):
        robot.set_joint_position_target(np.zeros((num_envs, robot.num_joints)))
        sim.step()
        _ = robot.state.joint_positions, robot.state.pose, robot.state.joint_velocities
    _ = robot.state.joint_efforts, robot.state.linear_velocity, robot.state.angular_velocity
    HOLD.append(sim)  # measured while the simulation is alive


def build_raw(ref: str, num_envs: int) -> None:
    """The same URDF ``num_envs`` times with direct PyBullet calls, on the engine's default client layout."""
    import pybullet as p  # noqa: PLC0415
    import pybullet_data  # noqa: PLC0415

    import simulo  # noqa: PLC0415
    from simulo.engine.registry import engine_factory  # noqa: PLC0415
    from simulo.sim.simulation import DRAWN_ENVS  # noqa: PLC0415

    bound = engine_factory("pybullet").default_envs_per_world
    urdf = str(simulo.Asset.from_registry(ref).urdf_path())
    plane = os.path.join(pybullet_data.getDataPath(), "plane.urdf")
    clients: list[int] = []
    bodies: list[tuple[int, int]] = []
    for i in range(num_envs):
        if i % bound == 0:
            cid = p.connect(p.DIRECT)
            p.setGravity(0, 0, -9.81, physicsClientId=cid)
            p.loadURDF(plane, useFixedBase=True, physicsClientId=cid)
            clients.append(cid)
        body = p.loadURDF(urdf, basePosition=[2.0 * (i % bound), 2.0 * (i // bound), 0.0], useFixedBase=True,
                          flags=0 if i < DRAWN_ENVS else p.URDF_IGNORE_VISUAL_SHAPES, physicsClientId=clients[-1])
        bodies.append((clients[-1], body))
    cid, body = bodies[0]
    joints = [j for j in range(p.getNumJoints(body, physicsClientId=cid))
              if p.getJointInfo(body, j, physicsClientId=cid)[2] != p.JOINT_FIXED]
    zeros = [0.0] * len(joints)
    for _ in range(STEPS):
        for cid, body in bodies:
            p.setJointMotorControlArray(body, joints, p.POSITION_CONTROL, targetPositions=zeros,
                                        physicsClientId=cid)
            p.getJointStates(body, joints, physicsClientId=cid)
            p.getBasePositionAndOrientation(body, physicsClientId=cid)
        for cid in clients:
            p.stepSimulation(physicsClientId=cid)
    HOLD.append(clients)


#: what a child keeps alive until it has measured
HOLD: list[object] = []


def child(side: str, model: str, num_envs: int) -> None:
    """Run one side in this process and print ``{"before": KiB, "after": KiB}``."""
    import numpy  # noqa: F401, PLC0415
    import pybullet  # noqa: F401, PLC0415

    import simulo.sim.simulation  # noqa: F401, PLC0415

    before = rss_kib()
    (build_contract if side == "contract" else build_raw)(MODELS[model], num_envs)
    print(json.dumps({"before": before, "after": rss_kib()}))


def measure(side: str, model: str, num_envs: int) -> float:
    """KiB per environment that one fresh process of ``side`` adds by building ``num_envs`` environments."""
    done = subprocess.run([sys.executable, __file__, "--child", side, model, str(num_envs)], capture_output=True,
                          text=True, check=False, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"the {side} process for {model} exited with {done.returncode}:\n{done.stderr}")
    reading = json.loads(done.stdout.strip().splitlines()[-1])
    return (reading["after"] - reading["before"]) / num_envs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=1024, help="environments (default 1024)")
    parser.add_argument("--repeats", type=int, default=3, help="process pairs per model (default 3)")
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(DEFAULT_MODELS),
                        help="models to measure (default: cartpole pick_arm)")
    parser.add_argument("--quick", action="store_true", help="tiny size, for the tests")
    parser.add_argument("--child", nargs=3, metavar=("SIDE", "MODEL", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return 0
    if args.quick:
        args.envs, args.repeats = 8, 1
    print(f"resident memory per environment at N = {args.envs}: the RSS a fresh process adds by building and "
          f"stepping\n(imports excluded), median of {args.repeats} alternating process pairs")
    print(f"{'model':>9} {'contract KiB/env':>17} {'raw KiB/env':>12} {'ratio':>6}")
    worst = 0.0
    for model in args.models:
        per: dict[str, list[float]] = {"contract": [], "raw": []}
        for k in range(args.repeats):
            for side in ("contract", "raw") if k % 2 == 0 else ("raw", "contract"):
                per[side].append(measure(side, model, args.envs))
        contract, raw = statistics.median(per["contract"]), statistics.median(per["raw"])
        ratio = contract / raw if raw > 0 else float("inf")
        worst = max(worst, ratio)
        print(f"{model:>9} {contract:>17.1f} {raw:>12.1f} {ratio:>6.2f}", flush=True)
    print(f"goal contract/raw <= {RATIO_GOAL}: {'met' if worst <= RATIO_GOAL else 'MISSED'} (highest {worst:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
