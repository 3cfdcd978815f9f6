"""The physics checks of a preview: Settle and Joint sweep, and the state watch Random moves shares.

* **Settle**: from the task's reset state, the physics runs :data:`SETTLE_S` seconds with no new command.
  Nothing may become NaN or infinite, nothing may fly off (speeds past :data:`MAX_ROOT_SPEED` and
  friends mean the simulation exploded, usually overlapping bodies or a bad mass), and a floating robot
  must not fall through the ground.
* **Joint sweep**: each joint of each robot is driven by a position target toward 80% of the way from
  its range's centre to each limit (``±1 rad`` or ``±0.2 m`` from its default for a joint without
  limits), :data:`SWEEP_S` seconds each way, while the robot's other joints hold their defaults.
  Environments sweep different joints at the same time. Three rows per joint: it reaches each target
  (a joint that stalls short or does not move warns: it may be too weak, blocked or driven by effort
  only) and it stays within its limits (warns otherwise). Non-finite state fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulo.rl.local_env import LocalEnv
from simulo.rl.preview.probe import ProbedEnv
from simulo.rl.preview.report import Findings, Row
from simulo.sim.robot import Robot
from simulo.sim.tensors import to_numpy

SETTLE_S = 0.5
SWEEP_S = 0.4
MAX_ROOT_SPEED = 50.0  # m/s
MAX_ROOT_SPIN = 200.0  # rad/s
MAX_JOINT_SPEED = {"revolute": 500.0, "prismatic": 50.0}  # rad/s, m/s
FELL_THROUGH_Z = -1.0  # m below the environment's origin
SWEEP_FRACTION = 0.8
UNLIMITED_TRAVEL = {"revolute": 1.0, "prismatic": 0.2}
STALL_FRACTION = 0.1
_UNITS = {"revolute": "rad", "prismatic": "m"}
_FIX_EXPLODES = ("look for bodies that overlap at the start, a very light or heavy link, or a target or "
                 "effort far beyond what the joints can take")


def scene_robots(env: LocalEnv) -> list[tuple[str, Robot]]:
    """The scene's simulated robots with the names rows use (the joint name alone when there is one robot)."""
    robots = [e.item for e in env.scene.items_of("robot") if not e.item.visual_only and e.item.runtime_attached]
    return [("" if len(robots) == 1 else f"{r.name or r.path}: ", r) for r in robots]


class StateWatch:
    """Checks the robots' state after physics steps: finite, not flying off, not fallen through the ground."""

    def __init__(self, env: LocalEnv, findings: Findings, stage: Any, prefix: str) -> None:
        self.robots = scene_robots(env)
        self.ground = bool(env.scene.items_of("terrain"))
        self.origins_z = to_numpy(env.scene.env_origins, "env_origins").astype(float).reshape(env.num_envs, -1)[:, 2]
        self.findings = findings
        self.stage = stage
        self.prefix = prefix
        self.peak_joint_speed = 0.0
        self.peak_root_speed = 0.0

    def rows(self) -> tuple[Row, Row, Row | None]:
        """Open the watch's rows (the ground row only when a floating robot stands on a terrain)."""
        finite = self.findings.row(f"{self.prefix}.finite", self.stage, "The simulation state stays finite",
                                   _FIX_EXPLODES, "task_or_robot")
        calm = self.findings.row(f"{self.prefix}.calm", self.stage, "Nothing flies off", _FIX_EXPLODES,
                                 "task_or_robot")
        ground = None
        if self.ground and any(not robot.is_fixed_base for _, robot in self.robots):
            ground = self.findings.row(f"{self.prefix}.ground", self.stage, "Robots stay above the ground",
                                       "spawn the robot above the terrain and give its links collision shapes",
                                       "task_or_robot")
        return finite, calm, ground

    def check(self, where: str) -> bool:
        """Check the state now; False when it is no longer finite (later steps add nothing)."""
        finite, calm, ground = self.rows()
        ok = True
        for name, robot in self.robots:
            data = robot.data
            state = np.concatenate([data.q, data.qd, data.pose, data.lin_vel, data.ang_vel], axis=1)
            bad = ~np.isfinite(state).all(axis=1)
            if bad.any():
                envs = np.nonzero(bad)[0]
                finite.problem(f"{name}state became NaN or infinite {where} in environments {envs.tolist()}",
                               env=int(envs[0]))
                ok = False
                continue
            if data.num_joints:
                limits = np.array([MAX_JOINT_SPEED.get(kind, 500.0) for kind in data.joint_kinds])
                speed = np.abs(data.qd)
                self.peak_joint_speed = max(self.peak_joint_speed, float(speed.max()))
                fast = speed > limits
                if fast.any():
                    env_i, col = (int(v) for v in np.argwhere(fast)[0])
                    calm.problem(f"{name}joint {data.joint_names[col]} moved at {speed[env_i, col]:.3g} "
                                 f"{_UNITS.get(data.joint_kinds[col], 'rad')}/s {where}", env=env_i)
            if not data.fixed_base:
                lin = np.linalg.norm(data.lin_vel, axis=1)
                spin = np.linalg.norm(data.ang_vel, axis=1)
                self.peak_root_speed = max(self.peak_root_speed, float(lin.max()))
                fast_root = (lin > MAX_ROOT_SPEED) | (spin > MAX_ROOT_SPIN)
                if fast_root.any():
                    env_i = int(np.nonzero(fast_root)[0][0])
                    calm.problem(f"{name}robot root moved at {lin[env_i]:.3g} m/s, turning at {spin[env_i]:.3g} "
                                 f"rad/s {where}", env=env_i)
                if ground is not None:
                    low = data.pose[:, 2] - self.origins_z < FELL_THROUGH_Z
                    if low.any():
                        env_i = int(np.nonzero(low)[0][0])
                        ground.problem(f"{name}robot root is {self.origins_z[env_i] - data.pose[env_i, 2]:.2f} m "
                                       f"below the ground {where}", env=env_i)
        return ok


def settle(env: ProbedEnv, findings: Findings) -> None:
    """Run the physics with no new command from the task's reset state and watch it (Settle)."""
    watch = StateWatch(env, findings, "settle", "settle")
    steps = max(1, math.ceil(SETTLE_S / env.physics_dt))
    for k in range(steps):
        env.step_physics()
        if not watch.check(f"{(k + 1) * env.physics_dt:.2f} s into settling"):
            break
    finite, calm, _ = watch.rows()
    if not watch.robots:
        finite.detail = "the scene has no robot; only the task's own state is checked by the other stages"
    calm.detail = (f"after {steps * env.physics_dt:.2f} s at rest: peak joint speed {watch.peak_joint_speed:.3g}, "
                   f"peak root speed {watch.peak_root_speed:.3g} m/s")


@dataclass
class _Sweep:
    """What one joint did while it was swept toward one target."""

    target: float
    start: float
    tail: list[float]
    low: float = math.inf
    high: float = -math.inf


def _targets(kind: str, lower: float, upper: float, default: float) -> tuple[float, float, bool]:
    if lower <= upper and math.isfinite(lower) and math.isfinite(upper):
        centre, half = (lower + upper) / 2, (upper - lower) / 2
        return centre - SWEEP_FRACTION * half, centre + SWEEP_FRACTION * half, True
    travel = UNLIMITED_TRAVEL.get(kind, 1.0)
    return default - travel, default + travel, False


def joint_sweep(env: ProbedEnv, findings: Findings) -> None:
    """Drive each joint toward both ends of its range and report how far it got (Joint sweep)."""
    robots = scene_robots(env)
    joints = [(name, robot) for name, robot in robots if robot.data.num_joints]
    if not joints:
        findings.skipped["joint-sweep"] = "the scene has no robot joints to sweep"
        return
    watch = StateWatch(env, findings, "joint-sweep", "sweep")
    n = env.num_envs
    steps = max(4, math.ceil(SWEEP_S / env.physics_dt))
    tail = max(1, steps // 4)
    rounds = math.ceil(max(robot.data.num_joints for _, robot in joints) / n)
    results: dict[tuple[int, int], dict[str, _Sweep]] = {}
    for r in range(rounds):
        env.sim.reset()
        for side in ("low", "high"):
            plans = []
            for index, (_, robot) in enumerate(joints):
                data = robot.data
                targets = data.default_q.astype(float).copy()
                swept = []
                for k in range(n):
                    col = r * n + k
                    if col >= data.num_joints:
                        continue
                    info = data.batch.joints[col]
                    low, high, _ = _targets(data.joint_kinds[col], info.lower, info.upper,
                                            float(data.default_q[k, col]))
                    targets[k, col] = low if side == "low" else high
                    record = _Sweep(float(targets[k, col]), float(data.q[k, col]), [])
                    results.setdefault((index, col), {})[side] = record
                    swept.append((k, col, record))
                robot.set_joint_position_target(targets)
                plans.append((robot, swept))
            for step in range(steps):
                env.step_physics()
                if not watch.check(f"while sweeping joints ({side} targets, round {r + 1})"):
                    break
                for robot, swept in plans:
                    for k, col, record in swept:
                        q = float(robot.data.q[k, col])
                        record.low, record.high = min(record.low, q), max(record.high, q)
                        if step >= steps - tail:
                            record.tail.append(q)
    env.sim.reset()
    for key in ("sweep.finite", "sweep.calm", "sweep.ground"):  # the stage reports joints; the watch only problems
        if key in findings.rows and findings.rows[key].status == "pass":
            del findings.rows[key]
    for index, (name, robot) in enumerate(joints):
        for col in range(robot.data.num_joints):
            _joint_rows(findings, name, robot, col, results.get((index, col), {}))


def _joint_rows(findings: Findings, name: str, robot: Robot, col: int, sweeps: dict[str, _Sweep]) -> None:
    data = robot.data
    joint, kind = data.joint_names[col], data.joint_kinds[col]
    unit = _UNITS.get(kind, "rad")
    info = data.batch.joints[col]
    seen_low, seen_high = math.inf, -math.inf
    for side, record in sweeps.items():
        seen_low, seen_high = min(seen_low, record.low), max(seen_high, record.high)
        row = findings.row(f"sweep.{name}{joint}.{side}", "joint-sweep",
                           f"{name}{joint} reaches {record.target:+.3g} {unit}",
                           "check the joint's drive: its stiffness and effort limit (actuator_gains, the URDF's "
                           "effort), and that nothing blocks it", "robot")
        if not record.tail or not all(math.isfinite(q) for q in record.tail):
            continue  # the state watch has reported it
        error = float(np.mean([abs(q - record.target) for q in record.tail]))
        travel = abs(record.target - record.start)
        moved = max(abs(record.high - record.start), abs(record.low - record.start))
        row.detail = f"tail mean error {error:.3g} {unit}"
        if travel > 0 and moved < STALL_FRACTION * travel:
            row.problem(f"sweeping {joint} toward {record.target:+.3g} {unit}, the joint barely moved "
                        f"({moved:.3g} {unit} of {travel:.3g} {unit})", warn=True)
        elif error > max(STALL_FRACTION * travel, 1e-3):
            row.problem(f"sweeping {joint} toward {record.target:+.3g} {unit}, the joint stalled short of its "
                        f"target with {error:.3g} {unit} tail mean error", warn=True)
    limited = info.lower <= info.upper and math.isfinite(info.lower) and math.isfinite(info.upper)
    title = (f"{name}{joint} stays within [{info.lower:+.3g}, {info.upper:+.3g}] {unit}" if limited
             else f"{name}{joint} has no position limits")
    row = findings.row(f"sweep.{name}{joint}.limits", "joint-sweep", title,
                       "check the joint's limits in the model and its drive's strength", "robot")
    if limited and math.isfinite(seen_low):
        margin = 0.05 * (info.upper - info.lower) + 0.01
        if seen_low < info.lower - margin or seen_high > info.upper + margin:
            row.problem(f"{joint} went to [{seen_low:+.3g}, {seen_high:+.3g}] {unit}, past its limits", warn=True)
