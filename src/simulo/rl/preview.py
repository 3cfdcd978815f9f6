"""``simulo.preview``: check a task the way training will run it, without training.

::

    @app.job(type="preview")
    def preview(num_envs: int = 16, checks: str = "all") -> dict:
        return simulo.preview(CartpoleTask(), num_envs=num_envs, checks=checks)

The preview builds a :class:`~simulo.rl.local_env.LocalEnv` around the task, resets it, runs random
actions uniform in ``[-1, 1]`` for ``steps`` steps (by default one more than an episode, so the time
limit resets every environment at least once) and watches every value the task hands the runtime.
The checks, in order (:data:`CHECKS`):

* ``build``: ``build(scene)`` and ``on_start(env)`` run.
* ``reset``: ``env.reset()`` runs ``reset_idx`` on every environment, episode lengths restart at 0 and
  the observations after the reset are finite.
* ``observations``: every ``get_observations()`` is ``(num_envs, observation_dim)``, floating point, finite.
* ``rewards``: every ``get_rewards()`` is ``(num_envs,)``, real numbers, finite.
* ``dones``: every ``get_dones()`` is ``(terminated, truncated)`` or ``({name: terminated}, truncated)``
  with boolean ``(num_envs,)`` masks and valid condition names (non-empty, at most 64 characters, not
  ``"time limit"`` or ``"cut short by the task"``).
* ``random-moves``: the action hooks and the physics run for every step without an error.
* ``episode-resets``: episodes end, and each environment that ended restarts at length 0 with a finite
  observation.
* ``repeatable-starts``: two seeded resets to the same episode number give the same observation (fails
  when the task draws its randomness outside ``task.random_uniform``).

``checks="all"`` runs them all; a comma-separated list (``"observations,rewards"``) reports only those.
A check that could not run because an earlier step failed is ``"skipped"``, with the reason. The report
(schema :data:`REPORT_SCHEMA_VERSION`) is a JSON-ready dict: ``summary``, ``passed`` (every reported check
passed), ``failed`` (names), ``checks`` (``name``, ``status`` = passed/failed/skipped, ``message``),
``steps``, ``episodes_ended``, ``endings`` and ``observation_range`` (per-dimension min and max seen).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simulo._checks import is_int
from simulo.errors import SimuloValueError
from simulo.rl.local_env import LocalEnv
from simulo.rl.task import Task
from simulo.sim.tensors import to_numpy

REPORT_SCHEMA_VERSION = "simulo-local.preview_report.v1"
CHECKS = ("build", "reset", "observations", "rewards", "dones", "random-moves", "episode-resets",
          "repeatable-starts")
RESERVED_ENDINGS = ("time limit", "cut short by the task")
MAX_END_CONDITION_NAME_CHARS = 64
MAX_MESSAGES = 3
_HOOKS = {
    "reset_idx": "reset",
    "get_observations": "observations",
    "get_rewards": "rewards",
    "get_dones": "dones",
    "on_pre_physics_step": "random-moves",
    "apply_actions": "random-moves",
    "on_post_physics_step": "random-moves",
}
_LOOP_CHECKS = ("observations", "rewards", "dones", "random-moves", "episode-resets")
_REPEAT_EPISODE = 1_000_003


@dataclass
class _Check:
    """The findings of one check."""

    name: str
    problems: list[str] = field(default_factory=list)
    total: int = 0
    skipped: str | None = None
    ran: bool = False

    def fail(self, message: str) -> None:
        self.total += 1
        if len(self.problems) < MAX_MESSAGES:
            self.problems.append(message)

    def entry(self) -> dict[str, Any]:
        if self.problems:
            extra = f" (and {self.total - len(self.problems)} more)" if self.total > len(self.problems) else ""
            return {"name": self.name, "status": "failed", "message": "; ".join(self.problems) + extra}
        if not self.ran:
            return {"name": self.name, "status": "skipped", "message": self.skipped or "not run"}
        return {"name": self.name, "status": "passed", "message": ""}


class _Probe:
    """Wraps the task's hooks as the environment calls them and checks what they return."""

    def __init__(self, task: Task, num_envs: int, results: dict[str, _Check]) -> None:
        self.task = task
        self.num_envs = num_envs
        self.results = results
        self.where = "building"
        self.reset_ids: list[int] = []
        self.last_obs: np.ndarray | None = None
        self.obs_min: np.ndarray | None = None
        self.obs_max: np.ndarray | None = None

    def wrap(self, hook: str, method: Callable[..., Any]) -> Callable[..., Any]:
        """``method`` with its failures recorded and its value validated, for the hooks preview checks."""
        check = _HOOKS.get(hook)
        if check is None:
            return method
        validate = getattr(self, f"_{hook}", None)

        def probed(*args: Any) -> Any:
            try:
                value = method(*args)
            except Exception as exc:
                self.results[check].fail(f"{hook}() raised {type(exc).__name__} {self.where}: {exc}")
                raise
            if validate is not None:
                validate(value, *args)
            return value

        probed.__name__ = hook
        return probed

    # -- validators, one per hook that returns or receives something worth checking -----------------
    def _reset_idx(self, value: Any, env_ids: Any) -> None:
        self.reset_ids.extend(int(i) for i in to_numpy(env_ids, "env_ids").reshape(-1))

    def _get_observations(self, value: Any) -> None:
        check = self.results["observations"]
        expected = (self.num_envs, self.task.observation_dim)
        try:
            arr = to_numpy(value, "observations")
        except SimuloValueError as exc:
            check.fail(f"get_observations() {self.where} returned {type(value).__name__}, not an array: {exc}")
            return
        if arr.shape != expected:
            check.fail(f"get_observations() {self.where} returned shape {tuple(arr.shape)}; expected {expected} "
                       f"(num_envs, observation_dim={self.task.observation_dim})")
            return
        if arr.dtype.kind != "f":
            check.fail(f"get_observations() {self.where} returned dtype {arr.dtype}; expected floating point")
            return
        bad = ~np.isfinite(arr).all(axis=1)
        if bad.any():
            envs = np.nonzero(bad)[0].tolist()
            check.fail(f"get_observations() {self.where} returned NaN or infinity in environments {envs}")
        self.last_obs = arr
        finite = np.where(np.isfinite(arr), arr, np.nan)
        low, high = np.nanmin(finite, axis=0), np.nanmax(finite, axis=0)
        self.obs_min = low if self.obs_min is None else np.fmin(self.obs_min, low)
        self.obs_max = high if self.obs_max is None else np.fmax(self.obs_max, high)

    def _get_rewards(self, value: Any) -> None:
        check = self.results["rewards"]
        try:
            arr = to_numpy(value, "rewards")
        except SimuloValueError as exc:
            check.fail(f"get_rewards() {self.where} returned {type(value).__name__}, not an array: {exc}")
            return
        if arr.shape != (self.num_envs,):
            check.fail(f"get_rewards() {self.where} returned shape {tuple(arr.shape)}; expected ({self.num_envs},)")
            return
        if arr.dtype.kind not in "fiu":
            check.fail(f"get_rewards() {self.where} returned dtype {arr.dtype}; expected real numbers")
            return
        bad = ~np.isfinite(arr.astype(float))
        if bad.any():
            check.fail(f"get_rewards() {self.where} returned NaN or infinity in environments "
                       f"{np.nonzero(bad)[0].tolist()}")

    def _get_dones(self, value: Any) -> None:
        check = self.results["dones"]
        if not isinstance(value, tuple) or len(value) != 2:
            check.fail(f"get_dones() {self.where} returned {type(value).__name__}; expected a tuple "
                       "(terminated, truncated) or ({name: terminated}, truncated)")
            return
        terminated, truncated = value
        masks: dict[str, Any] = {"truncated": truncated}
        if isinstance(terminated, dict):
            problem = _end_condition_problem(list(terminated))
            if problem is not None:
                check.fail(f"get_dones() {self.where}: {problem}")
            masks.update({f"terminated[{name!r}]": mask for name, mask in terminated.items()})
        else:
            masks["terminated"] = terminated
        for what, mask in masks.items():
            try:
                arr = to_numpy(mask, what)
            except SimuloValueError as exc:
                check.fail(f"get_dones() {self.where}: {what} is not an array: {exc}")
                continue
            if arr.shape != (self.num_envs,):
                check.fail(f"get_dones() {self.where}: {what} has shape {tuple(arr.shape)}; "
                           f"expected ({self.num_envs},)")
            elif arr.dtype != np.bool_:
                check.fail(f"get_dones() {self.where}: {what} has dtype {arr.dtype}; expected bool")


class _ProbedEnv(LocalEnv):
    """A local environment whose task hooks go through a :class:`_Probe` (checking by wrapping)."""

    def __init__(self, probe: _Probe, task: Task, **options: Any) -> None:
        self._probe = probe
        self._wrapped: dict[str, Callable[..., Any]] = {}
        super().__init__(task, **options)

    def _task_hook(self, method: str) -> Callable[..., Any]:
        wrapped = self._wrapped.get(method)
        if wrapped is None:
            wrapped = self._wrapped[method] = self._probe.wrap(method, super()._task_hook(method))
        return wrapped


def _end_condition_problem(names: list[Any]) -> str | None:
    for name in names:
        if not isinstance(name, str) or not name.strip():
            return f"end condition name {name!r} must be a non-empty string such as 'pole fell'"
        if name != name.strip() or len(name) > MAX_END_CONDITION_NAME_CHARS:
            return (f"end condition name {name!r} must have no leading or trailing spaces and at most "
                    f"{MAX_END_CONDITION_NAME_CHARS} characters")
        if name.casefold() in RESERVED_ENDINGS:
            return f"end condition name {name!r} is reserved for episodes no condition ended; rename it"
    return None


def _selected(checks: Any) -> tuple[str, ...]:
    if not isinstance(checks, str) or not checks.strip():
        raise SimuloValueError(f"preview(checks={checks!r}): expected 'all' or a comma-separated list of "
                               f"{', '.join(CHECKS)}")
    if checks.strip() == "all":
        return CHECKS
    names = [c.strip() for c in checks.split(",") if c.strip()]
    unknown = [c for c in names if c not in CHECKS]
    if unknown:
        raise SimuloValueError(f"preview(checks={checks!r}): unknown check(s) {', '.join(map(repr, unknown))}; "
                               f"expected 'all' or any of {', '.join(CHECKS)}")
    return tuple(c for c in CHECKS if c in names)


def preview(
    task: Task,
    num_envs: int = 16,
    checks: str = "all",
    seed: int = 0,
    steps: int | None = None,
    *,
    video: bool = False,
    env_spacing: float | None = None,
    device: str = "cpu",
) -> dict[str, Any]:
    """Run the task's checks without training and return the report (see the module docstring).

    Args:
        task: A fresh task instance.
        num_envs: Environments to build (>= 1).
        checks: ``"all"`` or a comma-separated list of :data:`CHECKS`.
        seed: Seed of the resets and of the random actions.
        steps: Random-action steps; default one more than the task's episode length (>= 1).
        video: Accepted for SDK apps; the local preview records no video (a warning says so).
        env_spacing: Distance between environment origins, m; defaults to the task's.
        device: Device of the environment (``"cuda"`` without CUDA falls back to the CPU).

    Returns:
        The report. Failing checks do not raise: their names are in ``report["failed"]``.

    Raises:
        SimuloValueError: A bad argument (unknown check name, non-positive sizes).
    """
    selected = _selected(checks)
    for name, value, low in (("num_envs", num_envs, 1), ("seed", seed, 0)):
        if not is_int(value, low=low):
            raise SimuloValueError(f"preview({name}={value!r}): expected an integer >= {low}")
    if steps is not None and not is_int(steps, low=1):
        raise SimuloValueError(f"preview(steps={steps!r}): expected an integer >= 1 or None")
    if not isinstance(task, Task):
        raise SimuloValueError(f"preview() needs a simulo.Task instance, got {task!r}")
    if video:
        warnings.warn("preview(video=True): the local runtime records no preview video; the checks run without it",
                      RuntimeWarning, stacklevel=2)
    results = {name: _Check(name) for name in CHECKS}
    probe = _Probe(task, num_envs, results)
    facts = _run_checks(task, num_envs, seed, steps, env_spacing, device, selected, results, probe)
    entries = [results[name].entry() for name in selected]
    failed = [e["name"] for e in entries if e["status"] == "failed"]
    skipped = [e["name"] for e in entries if e["status"] == "skipped"]
    passed = len(entries) - len(failed) - len(skipped)
    summary = f"{passed} of {len(entries)} checks passed"
    if failed:
        summary += f"; failed: {', '.join(failed)}"
    if skipped:
        summary += f"; skipped: {', '.join(skipped)}"
    ranges = None if probe.obs_min is None or probe.obs_max is None else {
        "min": [_number(v) for v in probe.obs_min], "max": [_number(v) for v in probe.obs_max]}
    return {
        "report_schema_version": REPORT_SCHEMA_VERSION,
        "summary": summary + ".",
        "passed": not failed and not skipped,
        "failed": failed,
        "checks": entries,
        "task": type(task).__name__,
        "num_envs": num_envs,
        "seed": seed,
        **facts,
        "observation_range": ranges,
    }


def _number(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


def _run_checks(task: Task, num_envs: int, seed: int, steps: int | None, env_spacing: float | None, device: str,
                selected: tuple[str, ...], results: dict[str, _Check], probe: _Probe) -> dict[str, Any]:
    facts: dict[str, Any] = {"steps": 0, "max_episode_length": None, "episodes_ended": 0, "endings": {}}

    def skip(names: tuple[str, ...], reason: str) -> None:
        for name in names:
            if not results[name].ran and not results[name].problems:
                results[name].skipped = reason

    try:
        # the probes watch the hook calls, so the environments run in this process (never sharded over Ray
        # workers by `simulo run --workers`)
        env = _ProbedEnv(probe, task, num_envs=num_envs, device=device, env_spacing=env_spacing, seed=seed)
    except Exception as exc:  # noqa: BLE001 - any failure to build is the finding
        results["build"].fail(f"{type(exc).__name__}: {exc}")
        skip(CHECKS, "not run: the task did not build")
        return facts
    results["build"].ran = True
    facts["max_episode_length"] = env.max_episode_length
    try:
        if not _reset_check(env, results, probe):
            skip(CHECKS, "not run: env.reset() stopped with an error (see the failed check)")
            return facts
        if any(name in selected for name in _LOOP_CHECKS) and not _loop(env, seed, steps, results, probe, facts):
            skip(_LOOP_CHECKS, f"not completed: env.step() stopped with an error at step {facts['steps'] + 1} "
                               "(see the failed check)")
        if "repeatable-starts" in selected:
            _repeat_check(env, results, probe)
    finally:
        env.close()
    return facts


def _found(results: dict[str, _Check]) -> int:
    return sum(check.total for check in results.values())


def _reset_check(env: LocalEnv, results: dict[str, _Check], probe: _Probe) -> bool:
    check = results["reset"]
    probe.where = "after env.reset()"
    probe.reset_ids.clear()
    found = _found(results)
    try:
        env.reset()
    except Exception as exc:  # noqa: BLE001
        if _found(results) == found:  # not a finding of the probe: report the error itself
            check.fail(f"env.reset() raised {type(exc).__name__}: {exc}")
        return False
    missing = sorted(set(range(env.num_envs)) - set(probe.reset_ids))
    if missing:
        check.fail(f"env.reset() did not call reset_idx for environments {missing}")
    lengths = to_numpy(env.task.episode_length_buf, "episode_length_buf")
    if (lengths != 0).any():
        check.fail(f"episode lengths after env.reset() are {lengths.tolist()}; expected all 0")
    if probe.last_obs is not None and not np.isfinite(probe.last_obs).all():
        bad = np.nonzero(~np.isfinite(probe.last_obs).all(axis=1))[0].tolist()
        check.fail(f"the reset state is not finite: observations of environments {bad} hold NaN or infinity")
    check.ran = True
    return True


def _loop(env: LocalEnv, seed: int, steps: int | None, results: dict[str, _Check], probe: _Probe,
          facts: dict[str, Any]) -> bool:
    """Random actions for ``steps`` steps; False when a step raised (the error is recorded)."""
    total = env.max_episode_length + 1 if steps is None else steps
    rng = np.random.default_rng([seed, 7])
    endings: Counter[str] = Counter()
    resets = results["episode-resets"]
    for k in range(total):
        probe.where = f"at step {k + 1}"
        actions = rng.uniform(-1.0, 1.0, size=(env.num_envs, env.action_dim)).astype(np.float32)
        found = _found(results)
        try:
            _, _, terminated, truncated, info = env.step(actions)
        except Exception as exc:  # noqa: BLE001
            if _found(results) == found:  # not a finding of the probe: report the error itself
                results["random-moves"].fail(f"env.step() raised {type(exc).__name__} at step {k + 1}: {exc}")
            return False
        facts["steps"] = k + 1
        term, trunc = to_numpy(terminated, "terminated"), to_numpy(truncated, "truncated")
        ended = np.nonzero(term | trunc)[0]
        if ended.size:
            named = {name: to_numpy(mask, name) for name, mask in info.get("terminations", {}).items()}
            for i in ended:
                hit = [name for name, mask in named.items() if mask[i]]
                endings[hit[0] if hit else ("terminated" if term[i] else "time limit")] += 1
            lengths = to_numpy(env.task.episode_length_buf, "episode_length_buf")[ended]
            if (lengths != 0).any():
                resets.fail(f"environments {ended[lengths != 0].tolist()} ended at step {k + 1} but their episode "
                            "length did not restart at 0")
            if probe.last_obs is not None:
                bad = ended[~np.isfinite(probe.last_obs[ended]).all(axis=1)]
                if bad.size:
                    resets.fail(f"environments {bad.tolist()} reset at step {k + 1} to a state with NaN or "
                                "infinite observations")
    facts["episodes_ended"] = sum(endings.values())
    facts["endings"] = dict(sorted(endings.items(), key=lambda kv: (-kv[1], kv[0])))
    if not endings and not resets.problems:
        resets.fail(f"no episode ended in {facts['steps']} steps (max_episode_length {env.max_episode_length}), so "
                    "resets never ran; give steps > max_episode_length")
    for name in _LOOP_CHECKS:
        results[name].ran = True
    return True


def _repeat_check(env: LocalEnv, results: dict[str, _Check], probe: _Probe) -> None:
    check = results["repeatable-starts"]
    probe.where = "after a seeded reset"
    starts = []
    try:
        for _ in range(2):
            env.seeded_reset(0, _REPEAT_EPISODE)
            starts.append(to_numpy(env.observations(), "observations")[0].copy())
    except Exception as exc:  # noqa: BLE001
        check.fail(f"a seeded reset of environment 0 raised {type(exc).__name__}: {exc}")
        return
    check.ran = True
    if not np.array_equal(starts[0], starts[1], equal_nan=True):
        check.fail(f"two resets to the same episode number started from {starts[0].tolist()} and "
                   f"{starts[1].tolist()}; draw start states with task.random_uniform so episodes repeat")
