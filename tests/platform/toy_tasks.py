"""Toy tasks of the platform tests, in one file: their digest (``sha256:`` of the file that defines the task class,
:func:`simulo.rl.preview.task_digest`) is this file's."""

from __future__ import annotations

from typing import Any

import numpy as np

import simulo


class Drift(simulo.Task):
    """No physics: x follows the action (``x += 0.1 * action``); 5-step episodes from x = 0."""

    observation_dim = 1
    action_dim = 1
    episode_length_s = 0.05
    physics_dt = 0.01
    physics_steps_per_action = 1
    #: Each episode starts at x drawn uniformly in ``±start_spread`` (0: at 0, drawing nothing).
    start_spread = 0.0

    def build(self, scene: Any) -> None:
        pass

    def on_start(self, env: Any) -> None:
        self.x = np.zeros(self.num_envs)

    def on_pre_physics_step(self, actions: Any) -> None:
        self.x += 0.1 * np.asarray(actions, dtype=float)[:, 0]

    def apply_actions(self, actions: Any) -> None:
        pass

    def get_observations(self) -> Any:
        return self.x[:, None].copy()

    def get_rewards(self) -> Any:
        return self.x.copy()

    def get_dones(self) -> Any:
        return {}, self.episode_length_buf >= self.max_episode_length - 1

    def reset_idx(self, env_ids: Any) -> None:
        spread = self.start_spread
        self.x[env_ids] = self.random_uniform(-spread, spread, (), env_ids=env_ids) if spread else 0.0


class Renamed(Drift):
    """The same file (digest), another task name."""


class Pusher(Drift):
    """10-step episodes from a random start in ±0.5; the rule asks for x > 0 at the end."""

    episode_length_s = 0.1
    start_spread = 0.5


def right_of_zero(task: Drift) -> Any:
    """The success rule: x > 0."""
    return task.check("right of zero", task.x > 0.0)
