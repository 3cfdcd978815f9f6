"""``RLTrainer``'s checkpoints: what ``save`` writes and ``load`` restores, and the rotation of numbered files.

A mixin of :class:`simulo.rl.training.trainer.RLTrainer` (which documents the files: ``best.pt``,
``latest.pt``, ``model_<iteration>.pt``); it holds no state of its own. Imports without torch.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulo.errors import SimuloValueError
from simulo.rl.training.checkpoints import LATEST, read_checkpoint, write_checkpoint
from simulo.rl.training.config import describe_cfg

if TYPE_CHECKING:
    import torch

    from simulo.rl.training.agent import Networks
    from simulo.rl.training.inputs import StateSource
    from simulo.rl.training.vector_env import VectorEnvLike

REWARD_WINDOW = 100
"""The reward of an iteration is the mean return of the last ``REWARD_WINDOW`` finished episodes."""


class TrainerCheckpoints:
    """``save``, ``load`` and the numbered-checkpoint rotation of ``RLTrainer`` (its attributes, declared here)."""

    env: VectorEnvLike
    algorithm: str
    seed: int
    observation_dim: int
    action_dim: int
    iteration: int
    env_steps: int
    best_reward: float | None
    best_iteration: int | None
    reward_history: list[float | None]
    _agent: Any
    _source: StateSource
    _networks: Networks
    _device: torch.device
    _directory: Path
    _rng_state: torch.Tensor
    _window: deque[float]
    _numbered: list[Path]
    _task_fields: dict[str, Any]

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the full trainer state (skrl's modules, optimiser, preprocessors, counters) to ``path``."""
        from simulo.rl.training.agent import agent_state, deterministic_actor  # noqa: PLC0415

        actor = deterministic_actor(self._agent, self._source.layout, self._networks)
        schema = self._source.schema
        write_checkpoint(path, {
            "algorithm": self.algorithm,
            "framework": "skrl",
            "agent_cfg": describe_cfg(self._agent.cfg),
            "observation_dim": self.observation_dim,
            "action_dim": self.action_dim,
            "state_dim": self._source.layout.state_dim,
            "policy_input_schema": None if schema is None else schema.to_dict(),
            **self._source.metadata(self._networks),
            "seed": self.seed,
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "best_reward": self.best_reward,
            "best_iteration": self.best_iteration,
            "reward_history": list(self.reward_history),
            "reward_window": list(self._window),
            "rng_state": self._rng_state.clone(),
            "agent": agent_state(self._agent),
            "actor": None if actor is None else actor.spec(),
            **self._task_fields,
        })

    def load(self, path: str | os.PathLike[str]) -> None:
        """Restore the state written by :meth:`save` (this trainer's ``agent_cfg`` stays in use).

        Nothing changes unless the whole checkpoint loads.

        Raises:
            SimuloValueError: The file is not a checkpoint, or it was trained for other input or action sizes.
        """
        from simulo.rl.training.agent import agent_state, load_agent_state  # noqa: PLC0415

        payload = read_checkpoint(path, map_location=self._device)
        source = str(path)
        dims = (payload.get("observation_dim"), payload.get("state_dim"), payload.get("action_dim"))
        mine = (self.observation_dim, self._source.layout.state_dim, self.action_dim)
        if dims != mine:
            raise SimuloValueError(f"checkpoint {source!r} is for (policy inputs, states, actions) = {dims}; "
                                   f"this trainer has {mine}")
        try:
            counters = (int(payload["iteration"]), int(payload["env_steps"]),
                        [None if r is None else float(r) for r in payload["reward_history"]],
                        [float(r) for r in payload["reward_window"]])
            best = (_optional_float(payload["best_reward"]), payload["best_iteration"])
            rng_state = payload["rng_state"].cpu()
            backup = agent_state(self._agent)
            try:
                load_agent_state(self._agent, payload["agent"])
            except BaseException:
                load_agent_state(self._agent, backup)
                raise
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise SimuloValueError(f"checkpoint {source!r} is incomplete or does not fit this trainer: {exc!r}") \
                from exc
        self.iteration, self.env_steps, self.reward_history, window = counters
        self.best_reward, self.best_iteration = best
        self._rng_state = rng_state
        self._window = deque(window, maxlen=REWARD_WINDOW)

    def _periodic_save(self, keep_last: int | None) -> None:
        """``latest.pt``, and with ``keep_last`` a numbered copy (the oldest beyond ``keep_last`` deleted)."""
        self.save(self._directory / LATEST)
        if keep_last is None:
            return
        numbered = self._directory / f"model_{self.iteration:06d}.pt"
        self.save(numbered)
        if numbered not in self._numbered:
            self._numbered.append(numbered)
        while len(self._numbered) > keep_last:
            self._numbered.pop(0).unlink(missing_ok=True)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)
