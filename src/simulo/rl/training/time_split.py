"""Where a training iteration's wall-clock time goes: the physics, the task's own code, the learner.

The trainer times each iteration (its rollout and PPO's update) with ``time.perf_counter`` and splits it:

- the environment stepped in this process (``simulo.LearningEnv``): ``physics``, the environment's
  :attr:`~simulo.rl.local_env.LocalEnv.physics_time_s` (its ``Simulation.step`` calls: the command flush, the
  engine's step, the refresh of the state objects the task holds); ``task``, the rest of the environment's
  ``reset`` and ``step`` calls and the reading of the task's policy inputs (the task's hooks and the
  environment's bookkeeping around them: output checks, episode counters, resets); ``learner``, the rest (the
  policy's inference, skrl's ``record_transition`` and the update);
- an environment that does not measure its physics: ``env`` (its ``reset`` and ``step`` calls) and ``learner``;
- env runners (``simulo run --workers N``): ``rollout`` (from handing out the weights to holding every
  runner's batch: the runners' physics, task and policy inference, side by side, and the transfers) and
  ``learner``; the runners' own ``physics`` and ``task`` seconds, summed over the runners, come beside them.

The parts add up to the iteration's total. This module imports neither torch nor skrl.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PHYSICS, TASK, LEARNER, ENV, ROLLOUT = "physics", "task", "learner", "env", "rollout"


@dataclass(frozen=True)
class IterationTimes:
    """One iteration's wall-clock seconds, split into parts that add up to the whole.

    Attributes:
        total_s: The iteration: its rollout and PPO's update (checkpoint writes are not part of it).
        parts: Seconds by part, in display order, summing to ``total_s`` (see the module's description).
        runners: With env runners, their ``physics`` and ``task`` seconds summed over the runners: worker-seconds
            spent side by side, inside the ``rollout`` part, not parts of ``total_s``. Empty otherwise.
    """

    total_s: float
    parts: dict[str, float]
    runners: dict[str, float] = field(default_factory=dict)

    def shares(self) -> str:
        """The parts as whole percentages of the total, e.g. ``physics 61% task 12% learner 27%``."""
        total = self.total_s if self.total_s > 0 else 1.0
        return " ".join(f"{name} {100.0 * seconds / total:.0f}%" for name, seconds in self.parts.items())


def env_physics_time(env: Any) -> float | None:
    """The physics seconds ``env`` has measured so far (``physics_time_s``), or ``None`` if it measures none.

    A ``simulo.LearningEnv`` stepped in this process hands out its backend's
    (:attr:`~simulo.rl.local_env.LocalEnv.physics_time_s`); a sharded one has none (its runners measure theirs).
    """
    value = getattr(env, "physics_time_s", None)
    return None if value is None else float(value)


def local_times(total_s: float, env_s: float, physics_s: float | None) -> IterationTimes:
    """Split an iteration stepped in this process.

    Args:
        total_s: The iteration's wall seconds.
        env_s: Of which in the environment's ``reset`` and ``step`` calls.
        physics_s: Of those, in its physics steps; ``None`` when the environment does not measure them.
    """
    if physics_s is None:
        return IterationTimes(total_s, {ENV: env_s, LEARNER: total_s - env_s})
    return IterationTimes(total_s, {PHYSICS: physics_s, TASK: env_s - physics_s, LEARNER: total_s - env_s})


def runner_times(total_s: float, rollout_s: float, runners_physics_s: float, runners_env_s: float) -> IterationTimes:
    """Split an iteration collected by env runners.

    Args:
        total_s: The iteration's wall seconds.
        rollout_s: Of which the learner waited for the runners' rollouts.
        runners_physics_s: The runners' seconds in their physics steps, summed over the runners.
        runners_env_s: The runners' seconds in their environments' ``reset`` and ``step`` calls, summed.
    """
    return IterationTimes(total_s, {ROLLOUT: rollout_s, LEARNER: total_s - rollout_s},
                          {PHYSICS: runners_physics_s, TASK: runners_env_s - runners_physics_s})


class TimeSplit:
    """The iterations' times summed over one ``train`` call: the stats' ``time_split``."""

    def __init__(self) -> None:
        self._iterations = 0
        self._total = 0.0
        self._parts: dict[str, float] = {}
        self._runners: dict[str, float] = {}

    def add(self, times: IterationTimes) -> None:
        """Count one iteration."""
        self._iterations += 1
        self._total += times.total_s
        for sums, parts in ((self._parts, times.parts), (self._runners, times.runners)):
            for name, seconds in parts.items():
                sums[name] = sums.get(name, 0.0) + seconds

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready sums: ``iterations``, ``total_s``, ``<part>_s`` for each part, ``runners_<part>_s`` with env
        runners, and ``per_iteration`` (the same seconds as means per iteration) once an iteration ran."""
        sums = {"total_s": self._total, **{f"{name}_s": s for name, s in self._parts.items()},
                **{f"runners_{name}_s": s for name, s in self._runners.items()}}
        out: dict[str, Any] = {"iterations": self._iterations, **sums}
        if self._iterations:
            out["per_iteration"] = {key: s / self._iterations for key, s in sums.items()}
        return out
