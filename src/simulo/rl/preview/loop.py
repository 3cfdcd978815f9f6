"""The stepping checks of a preview: Random moves, Training loop and its Action map.

* **Random moves**: actions uniform in ``[-1, 1]`` for ``steps`` steps (by default one more than an
  episode, so the time limit ends every episode at least once). The action hooks must run, and the
  robots' state stays finite, calm and above the ground (:class:`~simulo.rl.preview.physics.StateWatch`).
* **Training loop**: the same steps, seen as training sees them: the reset, every observation, reward
  and ``get_dones()`` value (:mod:`simulo.rl.preview.probe`), episodes that end and restart at length 0,
  seeded resets that repeat their start (fails when the task draws randomness outside
  ``task.random_uniform`` or torch's seeded generator), and rewards that vary (a constant reward warns:
  it teaches nothing).
* **Action map**: every environment restarts from the same seeded start; one keeps a zero action, each
  other one pushes a single action dimension to ``+1`` for a few steps. The joints that moved against the
  zero-action environment are that dimension's joints (observations stand in when the scene has no
  robot). A dimension that moves nothing fails: the policy would have an output without effect.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from simulo.rl.local_env import LocalEnv
from simulo.rl.preview.physics import StateWatch, scene_robots
from simulo.rl.preview.probe import Probe
from simulo.rl.preview.report import Findings
from simulo.sim.tensors import to_numpy

REPEAT_EPISODE = 1_000_003
ACTION_MAP_EPISODE = 1_000_033
ACTION_MAP_STEPS = 10
MOVED = 1e-3  # rad or m; observation units without robots
NAMED_SHARE = 0.2
MAX_NAMED = 4


def check_reset(env: LocalEnv, probe: Probe, findings: Findings) -> bool:
    """``env.reset()`` through the probe; False when it raised (the error is recorded)."""
    probe.where = "after env.reset()"
    probe.reset_ids.clear()
    found = findings.failures()
    try:
        env.reset()
    except Exception as exc:  # noqa: BLE001 - any failure to reset is the finding
        if findings.failures() == found:  # not a finding of the probe: report the error itself
            probe.reset_row().problem(f"env.reset() raised {type(exc).__name__}: {exc}")
        return False
    row = probe.reset_row()
    missing = sorted(set(range(env.num_envs)) - set(probe.reset_ids))
    if missing:
        row.problem(f"env.reset() did not call reset_idx for environments {missing}", env=missing[0])
    lengths = to_numpy(env.task.episode_length_buf, "episode_length_buf")
    if (lengths != 0).any():
        row.problem(f"episode lengths after env.reset() are {lengths.tolist()}; expected all 0")
    return True


def random_moves(env: LocalEnv, probe: Probe, findings: Findings, seed: int, steps: int | None,
                 facts: dict[str, Any]) -> bool:
    """Random actions for ``steps`` steps; False when a step raised (the error is recorded)."""
    total = env.max_episode_length + 1 if steps is None else steps
    rng = np.random.default_rng([seed, 7])
    watch = StateWatch(env, findings, probe.action_stage, "moves")
    endings: Counter[str] = Counter()
    resets = findings.row("tl.restarts", "training-loop", "Ended episodes restart at length 0, finite",
                          "reset every environment reset_idx(env_ids) is given to a valid start state", "task")
    for k in range(total):
        probe.where = f"at step {k + 1}"
        actions = rng.uniform(-1.0, 1.0, size=(env.num_envs, env.action_dim)).astype(np.float32)
        found = findings.failures()
        try:
            _, _, terminated, truncated, info = env.step(actions)
        except Exception as exc:  # noqa: BLE001 - any failure to step is the finding
            if findings.failures() == found:  # not a finding of the probe: report the error itself
                probe.actions_row().problem(f"env.step() raised {type(exc).__name__} at step {k + 1}: {exc}")
            return False
        facts["steps"] = k + 1
        watch.check(f"at step {k + 1}")
        term, trunc = to_numpy(terminated, "terminated"), to_numpy(truncated, "truncated")
        ended = np.nonzero(term | trunc)[0]
        if ended.size:
            named = {name: to_numpy(mask, name) for name, mask in info.get("terminations", {}).items()}
            for i in ended:
                hit = [name for name, mask in named.items() if mask[i]]
                endings[hit[0] if hit else ("terminated" if term[i] else "time limit")] += 1
            lengths = to_numpy(env.task.episode_length_buf, "episode_length_buf")[ended]
            if (lengths != 0).any():
                resets.problem(f"environments {ended[lengths != 0].tolist()} ended at step {k + 1} but their "
                               "episode length did not restart at 0", env=int(ended[lengths != 0][0]))
            if probe.last_obs is not None:
                bad = ended[~np.isfinite(probe.last_obs[ended]).all(axis=1)]
                if bad.size:
                    resets.problem(f"environments {bad.tolist()} reset at step {k + 1} to a state with NaN or "
                                   "infinite observations", env=int(bad[0]))
    probe.actions_row()
    watch.rows()
    facts["episodes_ended"] = sum(endings.values())
    facts["endings"] = dict(sorted(endings.items(), key=lambda kv: (-kv[1], kv[0])))
    return True


def loop_rows(env: LocalEnv, probe: Probe, findings: Findings, facts: dict[str, Any]) -> None:
    """The Training loop rows that judge the finished random-moves loop."""
    probe.observations_row()
    probe.rewards_row()
    probe.dones_row()
    ends = findings.row("tl.ends", "training-loop", "Episodes end",
                        "end episodes with get_dones() or the time limit (episode_length_s)", "task")
    if not facts["episodes_ended"]:
        ends.problem(f"no episode ended in {facts['steps']} steps (max_episode_length {env.max_episode_length}); "
                     "resets never ran")
    else:
        ends.detail = ", ".join(f"{name}: {count}" for name, count in facts["endings"].items())
    findings.rows["tl.restarts"] = findings.rows.pop("tl.restarts")  # after the rows it depends on
    varied = findings.row("tl.varies", "training-loop", "Rewards vary",
                          "make the reward depend on the state, so that better behaviour earns more", "task")
    if len(probe.reward_values) < 2 and facts["steps"]:
        varied.problem(f"every reward in {facts['steps']} random steps was {next(iter(probe.reward_values), 0.0)!r}",
                       warn=True)


def repeatable_starts(env: LocalEnv, probe: Probe, findings: Findings) -> None:
    """Two seeded resets to the same episode number must give the same observation."""
    row = findings.row("tl.repeatable", "training-loop", "Seeded resets repeat their start",
                       "draw start states with task.random_uniform (or torch's generator), not another source "
                       "of randomness", "task")
    probe.where = "after a seeded reset"
    starts = []
    try:
        for _ in range(2):
            env.seeded_reset(0, REPEAT_EPISODE)
            starts.append(to_numpy(env.observations(), "observations")[0].copy())
    except Exception as exc:  # noqa: BLE001 - any failure is the finding
        row.problem(f"a seeded reset of environment 0 raised {type(exc).__name__}: {exc}", env=0)
        return
    if not np.array_equal(starts[0], starts[1], equal_nan=True):
        row.problem(f"two resets to the same episode number started from {starts[0].tolist()} and "
                    f"{starts[1].tolist()}", env=0)


def _positions(env: LocalEnv) -> tuple[list[str], np.ndarray]:
    """Every robot joint's name and position (num_envs, joints); observations when there is no joint."""
    names: list[str] = []
    columns = []
    for prefix, robot in scene_robots(env):
        data = robot.data
        names += [f"{prefix}{joint}" for joint in data.joint_names]
        columns.append(np.asarray(data.q, dtype=float))
    if names:
        return names, np.concatenate(columns, axis=1)
    obs = to_numpy(env.observations(), "observations").astype(float)
    return [f"observation {i}" for i in range(obs.shape[1])], obs


def action_map(env: LocalEnv, probe: Probe, findings: Findings) -> None:
    """Which joints each action dimension moves, against a zero-action environment (Action map)."""
    n, dims = env.num_envs, env.action_dim
    rows = {d: findings.row(f"am.{d}", "training-loop", f"Action {d} moves the robot",
                            "use every action dimension in apply_actions, or lower action_dim", "task",
                            check="action-map") for d in range(dims)}
    if n < 2:
        for row in rows.values():
            row.problem("the action map needs num_envs >= 2 (one environment keeps a zero action)", warn=True)
        return
    steps = max(1, min(ACTION_MAP_STEPS, env.max_episode_length - 2))
    per_round = n - 1
    for first in range(0, dims, per_round):
        probe.where = "during the action map"
        for i in range(n):
            env.seeded_reset(i, ACTION_MAP_EPISODE)
        actions = np.zeros((n, dims), dtype=np.float32)
        swept = list(range(first, min(dims, first + per_round)))
        for k, d in enumerate(swept):
            actions[k + 1, d] = 1.0
        ended_at = np.full(n, steps)
        snapshots = []
        for step in range(steps):
            _, _, terminated, truncated, _ = env.step(actions)
            ended = to_numpy(terminated, "terminated") | to_numpy(truncated, "truncated")
            ended_at[ended & (ended_at == steps)] = step
            names, positions = _positions(env)
            snapshots.append(positions.copy())
        for k, d in enumerate(swept):
            row = rows[d]
            last = int(min(ended_at[0], ended_at[k + 1])) - 1  # the last step both environments were running
            if last < 0:
                row.problem(f"action {d} could not be measured: an episode ended at the first step", warn=True)
                continue
            positions = snapshots[last]
            delta = np.abs(positions[k + 1] - positions[0])
            delta = np.where(np.isfinite(delta), delta, math.inf)
            biggest = float(delta.max()) if delta.size else 0.0
            if biggest <= MOVED:
                row.problem(f"action {d} at +1 moved nothing in {last + 1} steps ({(last + 1) * env.dt:.2f} s) "
                            f"against a zero action (largest change {biggest:.2g})", env=k + 1)
                continue
            order = [int(j) for j in np.argsort(-delta) if delta[j] >= max(MOVED, NAMED_SHARE * biggest)]
            named = ", ".join(names[j] for j in order[:MAX_NAMED])
            more = f" and {len(order) - MAX_NAMED} more" if len(order) > MAX_NAMED else ""
            row.title = f"Action {d} moves {named}{more}"
            row.detail = ", ".join(f"{names[j]} {delta[j]:.3g}" for j in order[:MAX_NAMED]) + \
                f" after {last + 1} steps at +1 against 0"
