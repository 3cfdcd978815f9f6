"""Watching the task's hooks: every value the task hands the runtime is checked as the environment calls it.

:class:`ProbedEnv` is a :class:`~simulo.rl.local_env.LocalEnv` whose hook calls go through a
:class:`Probe`. A hook that raises is recorded against the row of the check it belongs to (and the
error still stops the step); a hook that returns a malformed value is recorded without raising, so one
run finds every problem at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simulo.errors import SimuloValueError
from simulo.interfaces.platform.evaluation import end_condition_names_problem
from simulo.rl.local_env import LocalEnv
from simulo.rl.preview.report import Findings, Row
from simulo.rl.task import Task
from simulo.sim.tensors import to_numpy

_FIX_SHAPES = "return one value per environment, a tensor of shape (num_envs,) (see the task's docstrings)"


class Probe:
    """Checks the task's hook values and records what it finds in ``findings``.

    Args:
        task: The task under preview.
        num_envs: Environments of the preview.
        findings: Where rows go.
        action_stage: The stage whose row a failing action hook is recorded in.
    """

    def __init__(self, task: Task, num_envs: int, findings: Findings, action_stage: Any) -> None:
        self.task = task
        self.num_envs = num_envs
        self.findings = findings
        self.action_stage = action_stage
        self.where = "while building"
        self.reset_ids: list[int] = []
        self.last_obs: np.ndarray | None = None
        self.obs_min: np.ndarray | None = None
        self.obs_max: np.ndarray | None = None
        self.reward_values: set[float] = set()

    # -- the rows ----------------------------------------------------------------------------------------
    def reset_row(self) -> Row:
        return self.findings.row("tl.reset", "training-loop", "env.reset() resets every environment",
                                 "make reset_idx(env_ids) reset exactly the environments it is given", "task")

    def observations_row(self) -> Row:
        dim = self.task.observation_dim
        return self.findings.row(
            "tl.observations", "training-loop", f"Observations are finite, shape (num_envs, {dim})",
            f"return a floating-point tensor of shape (num_envs, observation_dim={dim}) with finite values",
            "task")

    def rewards_row(self) -> Row:
        return self.findings.row("tl.rewards", "training-loop", "Rewards are one finite number per environment",
                                 _FIX_SHAPES, "task")

    def dones_row(self) -> Row:
        return self.findings.row(
            "tl.dones", "training-loop", "get_dones() returns boolean masks and valid end-condition names",
            "return (terminated, truncated) or ({name: terminated}, truncated), each a bool tensor of shape "
            "(num_envs,)", "task")

    def actions_row(self) -> Row:
        return self.findings.row("rm.actions", self.action_stage, "The action hooks run",
                                 "fix the error in the task's on_pre_physics_step, apply_actions or "
                                 "on_post_physics_step", "task")

    def _hook_row(self, hook: str) -> Row | None:
        rows: dict[str, Callable[[], Row]] = {
            "reset_idx": self.reset_row, "get_observations": self.observations_row,
            "get_rewards": self.rewards_row, "get_dones": self.dones_row, "on_pre_physics_step": self.actions_row,
            "apply_actions": self.actions_row, "on_post_physics_step": self.actions_row,
        }
        make = rows.get(hook)
        return None if make is None else make()

    def wrap(self, hook: str, method: Callable[..., Any]) -> Callable[..., Any]:
        """``method`` with its failures recorded and its value validated."""
        if hook not in ("reset_idx", "get_observations", "get_rewards", "get_dones", "on_pre_physics_step",
                        "apply_actions", "on_post_physics_step"):
            return method
        validate = getattr(self, f"_{hook}", None)

        def probed(*args: Any) -> Any:
            try:
                value = method(*args)
            except Exception as exc:
                row = self._hook_row(hook)
                if row is not None:
                    row.problem(f"{hook}() raised {type(exc).__name__} {self.where}: {exc}")
                raise
            if validate is not None:
                validate(value, *args)
            return value

        probed.__name__ = hook
        return probed

    # -- validators -----------------------------------------------------------------------------------------
    def _reset_idx(self, value: Any, env_ids: Any) -> None:
        self.reset_ids.extend(int(i) for i in to_numpy(env_ids, "env_ids").reshape(-1))

    def _get_observations(self, value: Any) -> None:
        row = self.observations_row()
        expected = (self.num_envs, self.task.observation_dim)
        try:
            arr = to_numpy(value, "observations")
        except SimuloValueError as exc:
            row.problem(f"get_observations() {self.where} returned {type(value).__name__}, not an array: {exc}")
            return
        if arr.shape != expected:
            row.problem(f"get_observations() {self.where} returned shape {tuple(arr.shape)}; expected {expected}")
            return
        if arr.dtype.kind != "f":
            row.problem(f"get_observations() {self.where} returned dtype {arr.dtype}; expected floating point")
            return
        bad = ~np.isfinite(arr).all(axis=1)
        if bad.any():
            envs = np.nonzero(bad)[0]
            row.problem(f"get_observations() {self.where} returned NaN or infinity in environments "
                        f"{envs.tolist()}", env=int(envs[0]))
        self.last_obs = arr
        finite = np.where(np.isfinite(arr), arr, np.nan)
        if np.isfinite(finite).any(axis=0).all():
            low, high = np.nanmin(finite, axis=0), np.nanmax(finite, axis=0)
            self.obs_min = low if self.obs_min is None else np.fmin(self.obs_min, low)
            self.obs_max = high if self.obs_max is None else np.fmax(self.obs_max, high)

    def _get_rewards(self, value: Any) -> None:
        row = self.rewards_row()
        try:
            arr = to_numpy(value, "rewards")
        except SimuloValueError as exc:
            row.problem(f"get_rewards() {self.where} returned {type(value).__name__}, not an array: {exc}")
            return
        if arr.shape != (self.num_envs,):
            row.problem(f"get_rewards() {self.where} returned shape {tuple(arr.shape)}; expected ({self.num_envs},)")
            return
        if arr.dtype.kind not in "fiu":
            row.problem(f"get_rewards() {self.where} returned dtype {arr.dtype}; expected real numbers")
            return
        values = arr.astype(float)
        bad = ~np.isfinite(values)
        if bad.any():
            envs = np.nonzero(bad)[0]
            row.problem(f"get_rewards() {self.where} returned NaN or infinity in environments {envs.tolist()}",
                        env=int(envs[0]))
        if len(self.reward_values) < 2:
            self.reward_values.update(float(v) for v in values[~bad][:2])

    def _get_dones(self, value: Any) -> None:
        row = self.dones_row()
        if not isinstance(value, tuple) or len(value) != 2:
            row.problem(f"get_dones() {self.where} returned {type(value).__name__}; expected a tuple "
                        "(terminated, truncated) or ({name: terminated}, truncated)")
            return
        terminated, truncated = value
        masks: dict[str, Any] = {"truncated": truncated}
        if isinstance(terminated, dict):
            problem = end_condition_names_problem(list(terminated))
            if problem is not None:
                row.problem(f"{problem} ({self.where})")
            masks.update({f"terminated[{name!r}]": mask for name, mask in terminated.items()})
        else:
            masks["terminated"] = terminated
        for what, mask in masks.items():
            try:
                arr = to_numpy(mask, what)
            except SimuloValueError as exc:
                row.problem(f"get_dones() {self.where}: {what} is not an array: {exc}")
                continue
            if arr.shape != (self.num_envs,):
                row.problem(f"get_dones() {self.where}: {what} has shape {tuple(arr.shape)}; "
                            f"expected ({self.num_envs},)")
            elif arr.dtype != np.bool_:
                row.problem(f"get_dones() {self.where}: {what} has dtype {arr.dtype}; expected bool")


class ProbedEnv(LocalEnv):
    """A local environment whose task hooks go through a :class:`Probe` (checking by wrapping)."""

    check_task_outputs = False  # the probe reports malformed outputs as findings

    def __init__(self, probe: Probe, task: Task, **options: Any) -> None:
        self._probe = probe
        self._wrapped: dict[str, Callable[..., Any]] = {}
        super().__init__(task, **options)

    #: Films the preview (:class:`~simulo.rl.preview.film.PreviewFilm`) when it records, else ``None``.
    film: Any = None

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """:meth:`LocalEnv.step`, filmed."""
        if self.film is None:
            return super().step(actions)
        self.film.pending_steps = self.physics_steps_per_action
        try:
            out = super().step(actions)
        finally:
            self.film.advance(self.physics_steps_per_action)
        return out

    def step_physics(self) -> None:
        """One physics step with no policy step (the Settle and Joint sweep checks), filmed."""
        self.sim.step(1)
        if self.film is not None:
            self.film.advance(1)

    def _task_hook(self, method: str) -> Callable[..., Any]:
        wrapped = self._wrapped.get(method)
        if wrapped is None:
            wrapped = self._wrapped[method] = self._probe.wrap(method, super()._task_hook(method))
        return wrapped
