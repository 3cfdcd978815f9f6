"""Env-steps/s of the pick arm, the cartpole and the humanoid through the ``simulo`` contract on each engine,
against MuJoCo's own batched C-level stepping doing the same work, in the same run.

Every step, for each of N environments: joint efforts from a PD law on the joint positions and velocities read
the step before (targets smooth, time-varying, different per environment), then one physics step, then a read
of the joint positions and velocities. Through the contract: ``robot.set_joint_effort_target``, ``sim.step()``,
``robot.state``. Two raw loops build the very model the MuJoCo engine compiles (its ``SceneSpec``, the same
poses) and clip the efforts at the URDF limits as the contract does:

* **floor** (the anchor): every environment's state in one array, stepped by one ``mujoco.rollout`` call per
  step on MuJoCo's thread pool (``--threads``, default every usable core; the efforts as ``qfrc_applied``
  controls), the joints read back with numpy: the engine's own batched path, no Python per environment. It
  carries the constraint solver's warm start from step to step as ``(qvel_after - qvel_before) / dt`` (a rollout
  returns no accelerations), as the engine's batched step does.
* **loop**: one ``MjData`` per environment in a Python loop (write ``qfrc_applied``, ``mj_step``, read
  ``qpos``/``qvel``), on one core.

The column ``same`` checks that the contract ended on joint positions bit-identical to the floor's (and, where
no constraint acts, as on the pick arm and the cartpole, to the loop's: MuJoCo's solver starts from the loop's
exact accelerations there).

Timing: the simulations are built side by side and warmed up for ``--warmup`` steps (1 s of simulated time by
default, the same for every N, so that every row times the same phase of the motion: the humanoid has fallen and
lies on the floor, with its contacts), then timed in alternating blocks (contract, floor, loop, loop, floor,
contract, ...; PyBullet once per block round) for ``--repeats`` blocks of ``--steps`` steps. Throughput columns
give each loop's fastest block, ``ratio`` the median of the back-to-back contract/floor block ratios. Goals
(issue 24): the contract >= 0.8x the floor for N >= 64; the humanoid on MuJoCo >= 15x PyBullet (issue 12).

``--warp`` adds two columns: ``warp/s``, the contract on the MuJoCo Warp engine (``engine="mujoco_warp"``, the
``gpu`` extra) on Warp's default device (``SIMULO_WARP_DEVICE``: ``cuda`` when Warp sees a GPU, else ``cpu``), and
``wfloor/s``, that engine's own batched path on the same device (**warp floor**: the very model, put on the device
with ``mujoco_warp.put_model`` and ``make_data(nworld=N)``, the efforts written into ``qfrc_applied``, one
``mujoco_warp.step`` a step, the joints read back with numpy), built, warmed up and timed in the same block rounds
(the first step compiles Warp's kernels, or loads them from Warp's kernel cache, during the warm-up); ``w-ratio``
is the median of the back-to-back Warp contract/warp floor block ratios, and ``w-diff`` is the largest difference of
their final joint positions (rad or m: the two send the same efforts to the last float32 bit or one off, so
they part at that level).

``--breakdown`` prints instead where a step's time goes at N = 1 (``time.perf_counter``; of ``--repeats``
rounds, each loop's fastest; each part less what its timers add, measured on a call that does nothing): the
contract's step split into the engine's command intake (``apply``, ``apply_positions``, ``apply_efforts``), its
step around the physics, the physics (``mj_step``, or ``mj_step1``/``mj_step2`` and the motor law between), its
state reads (``read_joints``, ``read_base``, ``read_bodies``), and the rest (the simulation layer and this loop's
own PD law); the raw loop split into the physics and the rest.

Run::

    python benchmarks/engines.py                      # N = 1, 16, 64, 256
    python benchmarks/engines.py --robots humanoid    # one robot
    python benchmarks/engines.py --threads 1          # the engine and the floor on one thread
    python benchmarks/engines.py --robots humanoid --envs 1024 --dt 0.008333 --warmup 120   # the sample's dt
    python benchmarks/engines.py --robots cartpole --envs 256 --no-pybullet --warp   # and MuJoCo Warp
    python benchmarks/engines.py --breakdown          # CPU us per step at N = 1, part by part
    python benchmarks/engines.py --quick              # tiny sizes (for the tests)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np
from mujoco import rollout

import simulo
from simulo.engine.mujoco.engine import THREADS_VARIABLE, usable_cores
from simulo.engine.mujoco.inertia import use_shape_inertia
from simulo.engine.mujoco.spec import SceneSpec, load_robot

DT = 1.0 / 240.0
RATIO_GOAL = 0.8
RATIO_FROM_N = 64
HUMANOID_GOAL = 15.0


@dataclass(frozen=True)
class Robot:
    """A benchmark robot: catalog reference, whether it stands on a plane, its PD gains."""

    ref: str
    plane: bool
    kp: float
    kd: float
    amplitude: float


ROBOTS = {
    "pick_arm": Robot("simulo/robot/pick_arm:v1", False, 2.0, 0.03, 0.5),
    "cartpole": Robot("simulo/robot/cartpole:v1", False, 30.0, 3.0, 0.3),
    "humanoid": Robot("simulo/robot/humanoid:v1", True, 40.0, 2.0, 0.3),
}


def targets(step: int, num_envs: int, num_joints: int, amplitude: float, dt: float = DT) -> np.ndarray:
    """Smooth joint targets (num_envs, num_joints), different per environment and joint."""
    phase = np.arange(num_envs)[:, None] * 0.37 + np.arange(num_joints)[None, :] * 0.91
    return amplitude * np.sin(step * dt * 2.0 + phase)


class ContractLoop:
    """N copies of a robot through ``simulo.Simulation`` on one engine."""

    def __init__(self, robot: Robot, num_envs: int, engine: str, threads: int | None = None, dt: float = DT) -> None:
        self.spec = robot
        self.dt = dt
        scene = simulo.Scene(num_envs=num_envs, env_spacing=3.0)
        if robot.plane:
            scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
        self.robot = simulo.Robot(simulo.Asset.from_registry(robot.ref))
        scene.add(self.robot, at="/World/Robot")
        before = os.environ.get(THREADS_VARIABLE)
        if threads is not None:
            os.environ[THREADS_VARIABLE] = str(threads)
        try:
            self.sim = simulo.Simulation(scene, dt=dt, engine=engine)
        finally:
            os.environ.pop(THREADS_VARIABLE, None) if before is None else os.environ.__setitem__(THREADS_VARIABLE,
                                                                                                before)
        self.step_count = 0
        self.num_envs = num_envs

    def run(self, steps: int) -> None:
        robot, spec = self.robot, self.spec
        for _ in range(steps):
            state = robot.state
            q, qd = np.asarray(state.joint_positions), np.asarray(state.joint_velocities)
            goal = targets(self.step_count, self.num_envs, q.shape[1], spec.amplitude, self.dt)
            robot.set_joint_effort_target(spec.kp * (goal - q) - spec.kd * qd)
            self.sim.step()
            self.step_count += 1

    def joint_positions(self) -> np.ndarray:
        return np.asarray(self.robot.state.joint_positions)


class RawLoop:
    """The same model as the MuJoCo engine compiles, one ``MjData`` per environment, stepped in Python."""

    def __init__(self, robot: Robot, contract: ContractLoop) -> None:
        self.spec = robot
        self.dt = contract.dt
        scene = SceneSpec(self.dt, (0.0, 0.0, -9.81), None)
        if robot.plane:
            scene.add_plane(0.0, None, None, None)
        asset = simulo.Asset.from_registry(robot.ref)
        child, layout = load_robot(Path(asset.urdf_path()))
        if not asset.inertia_from_file:  # as the engine: PyBullet's box inertias for catalog models that need them
            use_shape_inertia(child)
        fixed = bool(asset.fixed_base)
        prefix = scene.add_robot(child, fixed, 1.0, False)
        self.model = scene.compile()
        names = [prefix + j.name for j in layout.joints]
        ids = [mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, n) for n in names]
        self.limit = np.array([j.max_force if j.max_force > 0 else np.inf for j in layout.joints])
        self.qadr = self.model.jnt_qposadr[ids]
        self.dofs = self.model.jnt_dofadr[ids]
        pose = np.zeros((contract.num_envs, 7))
        contract.robot.data.batch.read_base(pose, np.zeros((contract.num_envs, 3)), np.zeros((contract.num_envs, 3)))
        self.datas = [mujoco.MjData(self.model) for _ in range(contract.num_envs)]
        root = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, prefix + layout.body_names[0])
        for d, p in zip(self.datas, pose):
            if fixed:
                d.mocap_pos[self.model.body_mocapid[root]] = p[:3]
                d.mocap_quat[self.model.body_mocapid[root]] = p[3:]
            else:
                free = self.model.jnt_qposadr[mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, prefix + "root")]
                d.qpos[free:free + 7] = p
        self.num_envs = contract.num_envs
        self.q = np.zeros((self.num_envs, len(ids)))
        self.qd = np.zeros((self.num_envs, len(ids)))
        self.step_count = 0

    def run(self, steps: int) -> None:
        spec, model = self.spec, self.model
        for _ in range(steps):
            goal = targets(self.step_count, self.num_envs, self.q.shape[1], spec.amplitude, self.dt)
            effort = np.clip(spec.kp * (goal - self.q) - spec.kd * self.qd, -self.limit, self.limit)  # as the contract
            for i, d in enumerate(self.datas):
                d.qfrc_applied[self.dofs] = effort[i]
                mujoco.mj_step(model, d)
                d.qfrc_applied[:] = 0.0
                self.q[i] = d.qpos[self.qadr]
                self.qd[i] = d.qvel[self.dofs]
            self.step_count += 1

    def joint_positions(self) -> np.ndarray:
        return self.q


_STATE = mujoco.mjtState
_FULL = int(_STATE.mjSTATE_FULLPHYSICS)


class FloorLoop(RawLoop):
    """The same model and start, every environment's state in one array, one ``mujoco.rollout`` call a step on
    MuJoCo's thread pool, the joints read back with numpy."""

    def __init__(self, robot: Robot, contract: ContractLoop, threads: int) -> None:
        super().__init__(robot, contract)
        m, n = self.model, self.num_envs
        mocap = int(_STATE.mjSTATE_MOCAP_POS) | int(_STATE.mjSTATE_MOCAP_QUAT) if m.nmocap else 0
        self.control_spec = int(_STATE.mjSTATE_QFRC_APPLIED) | mocap
        self.states = [np.empty((n, mujoco.mj_stateSize(m, _FULL))) for _ in range(2)]
        self.control = np.zeros((n, mujoco.mj_stateSize(m, self.control_spec)))
        for i, d in enumerate(self.datas):
            mujoco.mj_getState(m, d, self.states[0][i], _FULL)
            if mocap:
                mujoco.mj_getState(m, d, self.control[i, m.nv:], mocap)
        self.warms = [np.zeros((n, m.nv)) for _ in range(2)]
        self.current = 0
        q0 = mujoco.mj_stateSize(m, int(_STATE.mjSTATE_TIME))
        v0 = q0 + m.nq
        self.q_cols, self.v_cols = q0 + self.qadr, v0 + self.dofs
        self.v_span = slice(v0, v0 + m.nv)
        self.models = [m] * n
        self.pool = rollout.Rollout(nthread=threads if threads > 1 else 0)
        self.scratch = [mujoco.MjData(m) for _ in range(max(threads, 1))]
        self.chunk = max(1, n // (max(threads, 1) * 10))

    def run(self, steps: int) -> None:
        spec, dt = self.spec, float(self.model.opt.timestep)
        control3 = self.control.reshape(self.num_envs, 1, -1)
        for _ in range(steps):
            goal = targets(self.step_count, self.num_envs, self.q.shape[1], spec.amplitude, self.dt)
            effort = np.clip(spec.kp * (goal - self.q) - spec.kd * self.qd, -self.limit, self.limit)  # as the contract
            self.control[:, self.dofs] = effort
            before, after = self.states[self.current], self.states[1 - self.current]
            warm = self.warms[1 - self.current]
            self.pool.rollout(self.models, self.scratch, before, control3, control_spec=self.control_spec,
                              skip_checks=True, nstep=1, initial_warmstart=self.warms[self.current],
                              state=after.reshape(self.num_envs, 1, -1), sensordata=None, chunk_size=self.chunk)
            np.subtract(after[:, self.v_span], before[:, self.v_span], out=warm)
            warm *= 1.0 / dt
            self.current = 1 - self.current
            self.q = after[:, self.q_cols]
            self.qd = after[:, self.v_cols]
            self.step_count += 1

    def close(self) -> None:
        """Stop MuJoCo's threads."""
        self.pool.close()


class WarpFloorLoop(RawLoop):
    """The same model and start as MuJoCo Warp worlds on the Warp engine's device: the efforts written into
    ``qfrc_applied``, one ``mujoco_warp.step`` for every world, the joints read back with numpy."""

    def __init__(self, robot: Robot, contract: ContractLoop) -> None:
        super().__init__(robot, contract)
        import mujoco_warp as mjw  # noqa: PLC0415 (the gpu extra, only with --warp)
        import warp as wp  # noqa: PLC0415

        from simulo.engine.mujoco_warp.engine import default_device  # noqa: PLC0415

        self.mjw, self.wp = mjw, wp
        self.device = wp.get_device(default_device())
        m, n = self.model, self.num_envs
        with wp.ScopedDevice(self.device):
            self.m = mjw.put_model(m)
            self.d = mjw.make_data(m, nworld=n)
            for name in ("qpos", "mocap_pos", "mocap_quat"):
                getattr(self.d, name).assign(np.stack([getattr(d, name) for d in self.datas]).astype(np.float32))
        self.applied = np.zeros((n, m.nv), dtype=np.float32)

    def run(self, steps: int) -> None:
        spec = self.spec
        for _ in range(steps):
            goal = targets(self.step_count, self.num_envs, self.q.shape[1], spec.amplitude, self.dt)
            effort = np.clip(spec.kp * (goal - self.q) - spec.kd * self.qd, -self.limit, self.limit)  # as the contract
            self.applied[:, self.dofs] = effort
            with self.wp.ScopedDevice(self.device):
                self.d.qfrc_applied.assign(self.applied)
                self.mjw.step(self.m, self.d)
            self.q = self.d.qpos.numpy()[:, self.qadr]
            self.qd = self.d.qvel.numpy()[:, self.dofs]
            self.step_count += 1


def _timed(run: Callable[[int], None], steps: int) -> float:
    start = time.perf_counter()
    run(steps)
    return time.perf_counter() - start


def bench(name: str, num_envs: int, steps: int, repeats: int, warmup: int, pybullet: bool,
          threads: int, dt: float = DT, warp: bool = False) -> dict[str, object]:
    """One row: the loops built side by side, warmed up alike, timed in alternating blocks."""
    robot = ROBOTS[name]
    contract = ContractLoop(robot, num_envs, "mujoco", threads, dt)
    floor = FloorLoop(robot, contract, threads)
    loop = RawLoop(robot, contract)
    bullet = ContractLoop(robot, num_envs, "pybullet", dt=dt) if pybullet else None
    warped = ContractLoop(robot, num_envs, "mujoco_warp", dt=dt) if warp else None
    warp_floor = WarpFloorLoop(robot, contract) if warp else None
    loops: list[tuple[str, ContractLoop | RawLoop]] = [("contract", contract), ("floor", floor), ("loop", loop)]
    warp_loops: list[tuple[str, ContractLoop | RawLoop]] = (
        [("warp", warped), ("warp_floor", warp_floor)] if warped is not None and warp_floor is not None else [])
    try:
        for _, each in loops + warp_loops:
            each.run(warmup)
        if bullet is not None:
            bullet.run(warmup)
        times: dict[str, list[float]] = {key: [] for key in ("contract", "floor", "loop", "pybullet", "warp",
                                                             "warp_floor")}
        for k in range(repeats):
            for key, each in (loops if k % 2 == 0 else loops[::-1]):
                times[key].append(_timed(each.run, steps))
            if bullet is not None:
                times["pybullet"].append(_timed(bullet.run, max(1, steps // 4)))
            for key, each in (warp_loops if k % 2 == 0 else warp_loops[::-1]):
                times[key].append(_timed(each.run, steps))
        end = contract.joint_positions().tobytes()
        same = floor.joint_positions().tobytes() == end
        rate = {key: num_envs * (steps if key != "pybullet" else max(1, steps // 4)) / min(t)
                for key, t in times.items() if t}
        ratio = statistics.median(f / c for c, f in zip(times["contract"], times["floor"]))
        warp_ratio, warp_diff = None, None
        if warped is not None and warp_floor is not None:
            warp_ratio = statistics.median(f / c for c, f in zip(times["warp"], times["warp_floor"]))
            warp_diff = float(np.abs(warped.joint_positions() - warp_floor.joint_positions()).max())
        return {"robot": name, "n": num_envs, "pybullet": rate.get("pybullet"), "warp": rate.get("warp"),
                "warp_floor": rate.get("warp_floor"), "warp_ratio": warp_ratio, "warp_diff": warp_diff,
                "mujoco": rate["contract"],
                "floor": rate["floor"], "loop": rate["loop"], "ratio": ratio, "same": same,
                "same_loop": loop.joint_positions().tobytes() == end}
    finally:
        floor.close()
        for built in (contract, bullet, warped):
            if built is not None:
                built.sim.close()


class _Timers:
    """Time spent in wrapped callables, per part, and how often each part was called (instance attributes shadow
    the methods they time)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._undo: list[tuple[object, str, object | None]] = []

    def wrap(self, owner: object, name: str, part: str) -> None:
        original = getattr(owner, name)
        self.spent.setdefault(part, 0.0)
        self.calls.setdefault(part, 0)
        spent, calls, clock = self.spent, self.calls, time.perf_counter

        def timed(*args: object, **kwargs: object) -> object:
            start = clock()
            try:
                return original(*args, **kwargs)
            finally:
                spent[part] += clock() - start
                calls[part] += 1
        self._undo.append((owner, name, vars(owner).get(name)))  # a module's own function, or none: a method
        setattr(owner, name, timed)

    def undo(self) -> None:
        for owner, name, before in reversed(self._undo):
            if before is None:
                delattr(owner, name)
            else:
                setattr(owner, name, before)
        self._undo.clear()

    def clear(self) -> None:
        self.spent.update({part: 0.0 for part in self.spent})
        self.calls.update({part: 0 for part in self.calls})


class _Probe:
    def nothing(self) -> None:
        """A call that does nothing, to measure what a timer adds."""


def _timer_cost(calls: int = 20000) -> tuple[float, float]:
    """Seconds a timer adds to each call: inside its part (``inner``) and in all (``whole``)."""
    probe, timers = _Probe(), _Timers()
    bare = probe.nothing
    start = time.perf_counter()
    for _ in range(calls):
        bare()
    plain = time.perf_counter() - start
    timers.wrap(probe, "nothing", "probe")
    timed = probe.nothing
    start = time.perf_counter()
    for _ in range(calls):
        timed()
    whole = time.perf_counter() - start - plain
    return timers.spent["probe"] / calls, whole / calls


def breakdown(name: str, steps: int, warmup: int, rounds: int = 5) -> dict[str, float]:
    """µs per step at N = 1 of the contract's parts and of the raw loop's, each loop's from the round in which it
    was fastest, each part less what its timers add (see the module docstring)."""
    robot = ROBOTS[name]
    contract = ContractLoop(robot, 1, "mujoco")
    raw = RawLoop(robot, contract)
    timers = _Timers()
    best: dict[str, float] | None = None
    best_raw: dict[str, float] | None = None
    try:
        contract.run(warmup)
        raw.run(warmup)
        batch, engine = contract.robot.data.batch, contract.sim._engine  # the very engine
        for method in ("apply", "apply_positions", "apply_efforts"):
            timers.wrap(batch, method, "apply")
        for method in ("read_joints", "read_base", "read_bodies"):
            timers.wrap(batch, method, "reads")
        timers.wrap(engine, "step", "engine step")
        for function in ("mj_step", "mj_step1", "mj_step2"):
            timers.wrap(mujoco, function, "physics")
        for _ in range(rounds):
            inner, whole = _timer_cost()
            timers.clear()
            start = time.perf_counter()
            contract.run(steps)
            total = time.perf_counter() - start - whole * sum(timers.calls.values())
            part = {key: timers.spent[key] - inner * timers.calls[key] for key in timers.spent}
            part["engine step"] -= whole * timers.calls["physics"]  # the physics' timers ran inside the step
            timers.clear()
            start = time.perf_counter()
            raw.run(steps)
            raw_total = time.perf_counter() - start - whole * timers.calls["physics"]
            raw_physics = timers.spent["physics"] - inner * timers.calls["physics"]
            row = {"contract": total, "apply": part["apply"], "engine": part["engine step"] - part["physics"],
                   "physics": part["physics"], "reads": part["reads"],
                   "rest": total - part["apply"] - part["engine step"] - part["reads"]}
            raw_row = {"raw": raw_total, "raw physics": raw_physics, "raw rest": raw_total - raw_physics}
            if best is None or row["contract"] < best["contract"]:
                best = row
            if best_raw is None or raw_row["raw"] < best_raw["raw"]:
                best_raw = raw_row
    finally:
        timers.undo()
        contract.sim.close()
    assert best is not None and best_raw is not None
    return {key: value * 1e6 / steps for key, value in {**best, **best_raw}.items()}


def _print_breakdown(robots: list[str], steps: int, warmup: int, rounds: int) -> None:
    columns = ("contract", "apply", "engine", "physics", "reads", "rest", "raw", "raw physics", "raw rest")
    print("us per step at N = 1 (contract: apply + engine + physics + reads + rest; raw: physics + rest)")
    print(f"{'robot':<10}" + "".join(f"{c:>13}" for c in columns))
    for name in robots:
        row = breakdown(name, steps, warmup, rounds)
        print(f"{name:<10}" + "".join(f"{row[c]:13.1f}" for c in columns))
    print(f"load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")


def _cell(value: object, width: int) -> str:
    return f"{value:{width}.0f}" if isinstance(value, float) else f"{'-':>{width}}"


def main() -> None:
    """Print the table and the goals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robots", nargs="+", choices=sorted(ROBOTS), default=["pick_arm", "cartpole", "humanoid"])
    parser.add_argument("--envs", nargs="+", type=int, default=[1, 16, 64, 256])
    parser.add_argument("--steps", type=int, default=0, help="steps per block (default: about 1500 env-steps)")
    parser.add_argument("--repeats", type=int, default=12, help="blocks per loop (default 12: a median of 12 pairs)")
    parser.add_argument("--warmup", type=int, default=240, help="steps before timing (default 240: 1 s)")
    parser.add_argument("--threads", type=int, default=usable_cores(),
                        help="stepping threads of the engine and the floor (default: every usable core)")
    parser.add_argument("--dt", type=float, default=DT, help="physics time step, s (default 1/240; the SDK's "
                                                              "samples run 1/120)")
    parser.add_argument("--no-pybullet", action="store_true", help="skip the PyBullet column (it is slow)")
    parser.add_argument("--warp", action="store_true", help="add the MuJoCo Warp engine's column (the gpu extra)")
    parser.add_argument("--breakdown", action="store_true", help="us per step at N = 1, part by part")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the tests")
    args = parser.parse_args()
    envs, repeats, warmup = ([1, 2], 2, 2) if args.quick else (args.envs, args.repeats, args.warmup)
    if args.breakdown:
        _print_breakdown(args.robots, 20 if args.quick else args.steps or 2000, warmup, repeats)
        return
    warp_header = f"{'warp/s':>11}{'wfloor/s':>11}{'w-ratio':>8}{'w-diff':>9}" if args.warp else ""
    print(f"{'robot':<10}{'N':>5}{'pybullet/s':>12}{'mujoco/s':>11}{'floor/s':>11}{'loop/s':>11}{warp_header}"
          f"{'ratio':>7}{'vs pb':>7}  same  same as loop")
    rows = []
    for name in args.robots:
        for n in envs:
            steps = args.steps or (2 if args.quick else max(8, 1500 // n))
            row = bench(name, n, steps, repeats, warmup, not args.no_pybullet, args.threads, args.dt, args.warp)
            rows.append(row)
            pb = row["pybullet"]
            vs = f"{row['mujoco'] / pb:6.1f}x" if isinstance(pb, float) else "     -"  # type: ignore[operator]
            warp = (_cell(row["warp"], 11) + _cell(row["warp_floor"], 11) + f"{row['warp_ratio']:8.2f}"
                    + f"{row['warp_diff']:9.1e}" if args.warp else "")
            print(f"{name:<10}{n:>5}{_cell(pb, 12)}{row['mujoco']:11.0f}{row['floor']:11.0f}{row['loop']:11.0f}{warp}"
                  f"{row['ratio']:7.2f}{vs}  {'yes' if row['same'] else 'NO':<4}  "
                  f"{'yes' if row['same_loop'] else 'no'}")
    judged = [float(r["ratio"]) for r in rows if int(r["n"]) >= RATIO_FROM_N]  # type: ignore[call-overload]
    if judged:
        worst = min(judged)
        verdict = "met" if worst >= RATIO_GOAL else "MISSED"
        print(f"MuJoCo contract/floor, worst N >= {RATIO_FROM_N}: {worst:.2f}; goal >= {RATIO_GOAL}: {verdict}")
    else:
        print(f"MuJoCo contract/floor: no row with N >= {RATIO_FROM_N}")
    humanoid = [r for r in rows if r["robot"] == "humanoid" and isinstance(r["pybullet"], float)]
    if humanoid:
        speedup = min(float(r["mujoco"]) / float(r["pybullet"]) for r in humanoid)  # type: ignore[arg-type]
        print(f"humanoid MuJoCo/PyBullet through the contract, worst N: {speedup:.1f}x; goal >= {HUMANOID_GOAL:.0f}x: "
              f"{'met' if speedup >= HUMANOID_GOAL else 'MISSED'}")
    print(f"load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
