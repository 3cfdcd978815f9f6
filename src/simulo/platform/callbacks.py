"""``simulo.callbacks``: the SDK's ready-made job callbacks, for ``@app.job(callbacks=[...])``.

Both have the four hooks of the SDK's ``JobCallbackProtocol`` (see :mod:`simulo.platform.job_hooks`
for when a local run calls them) and, as in the SDK, they declare intent rather than act in the hooks:

* :class:`CommitVolume`: a local volume is a folder, written straight to disk, so there is nothing to
  commit; the declaration is kept (``manifest_entry``).
* :class:`DebugOnAnomaly`: the SDK's anomaly-capture settings, checked by the SDK's own runtime config
  (``to_runtime_config``). The local trainer does not capture MCAP debug sessions; a job that stops on
  non-finite numbers calls ``on_anomaly`` of the job's callbacks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulo.platform.volumes import Volume

__all__ = ["CommitVolume", "DebugOnAnomaly"]


class _Callback:
    """No-op hooks and the declaration record shared by the callbacks."""

    def on_job_start(self, job_id: str) -> None:
        """Called before the job's function runs."""

    def on_checkpoint(self, checkpoint_uri: str, step: int) -> None:
        """Called for each checkpoint the job writes."""

    def on_anomaly(self, detail: str) -> None:
        """Called when the job stops on an anomaly."""

    def on_job_end(self, job_id: str, status: str) -> None:
        """Called when the attempt ends."""

    def manifest_entry(self) -> dict[str, Any]:
        """The declaration: ``{"type": <class name>, "config": {...}}`` (JSON-ready)."""
        return {"type": type(self).__name__, "config": self._config()}

    def _config(self) -> dict[str, Any]:
        return {}


class CommitVolume(_Callback):
    """Commit a volume at checkpoints and at the job's end (locally: always committed).

    Args:
        volume: The :class:`~simulo.platform.volumes.Volume` the job writes.
        commit_on_checkpoint: Commit each time the job checkpoints.
        commit_on_end: Commit when the job ends.
    """

    def __init__(self, volume: Volume, *, commit_on_checkpoint: bool = True, commit_on_end: bool = True) -> None:
        self.volume = volume
        self.commit_on_checkpoint = commit_on_checkpoint
        self.commit_on_end = commit_on_end

    def _config(self) -> dict[str, Any]:
        return {"volume": self.volume.name, "commit_on_checkpoint": self.commit_on_checkpoint,
                "commit_on_end": self.commit_on_end}


class DebugOnAnomaly(_Callback):
    """Anomaly detection and debug capture settings (the SDK's fields, defaults and checks).

    Raises:
        ValueError: A setting is out of bounds (the SDK's runtime config checks them).
    """

    def __init__(
        self,
        *,
        enabled: bool = True,
        window_steps: int = 256,
        env_indices: Sequence[int] = (0,),
        check_observations: bool = True,
        observation_limit: float | None = 1e6,
        check_every_n_steps: int = 1,
        video: str | None = None,
        check_losses: bool = True,
        check_reward_collapse: bool = True,
        collapse_drop_fraction: float = 0.5,
        collapse_patience: int = 2,
        collapse_baseline_floor: float = 1e-6,
        max_captures: int = 1,
    ) -> None:
        from simulo.interfaces.runtime.anomaly import DebugOnAnomaly as RuntimeConfig  # noqa: PLC0415

        self._runtime = RuntimeConfig(
            enabled=enabled, window_steps=window_steps, env_indices=env_indices,
            check_observations=check_observations, observation_limit=observation_limit,
            check_every_n_steps=check_every_n_steps, video=video, check_losses=check_losses,
            check_reward_collapse=check_reward_collapse, collapse_drop_fraction=collapse_drop_fraction,
            collapse_patience=collapse_patience, collapse_baseline_floor=collapse_baseline_floor,
            max_captures=max_captures,
        )
        self.enabled = self._runtime.enabled
        self.window_steps = self._runtime.window_steps
        self.env_indices: tuple[int, ...] = tuple(self._runtime.env_indices)
        self.check_observations = self._runtime.check_observations
        self.observation_limit = self._runtime.observation_limit
        self.check_every_n_steps = self._runtime.check_every_n_steps
        self.video = self._runtime.video
        self.check_losses = self._runtime.check_losses
        self.check_reward_collapse = self._runtime.check_reward_collapse
        self.collapse_drop_fraction = self._runtime.collapse_drop_fraction
        self.collapse_patience = self._runtime.collapse_patience
        self.collapse_baseline_floor = self._runtime.collapse_baseline_floor
        self.max_captures = self._runtime.max_captures

    def _config(self) -> dict[str, Any]:
        names = ("enabled", "window_steps", "check_observations", "observation_limit", "check_every_n_steps",
                 "video", "check_losses", "check_reward_collapse", "collapse_drop_fraction", "collapse_patience",
                 "collapse_baseline_floor", "max_captures")
        return {"env_indices": list(self.env_indices), **{n: getattr(self, n) for n in names}}

    def to_runtime_config(self, *, output_dir: str | None = None) -> Any:
        """The SDK's runtime ``DebugOnAnomaly`` these settings map to (``output_dir``: where captures go)."""
        if output_dir is None:
            return self._runtime
        return dataclasses.replace(self._runtime, output_dir=output_dir)
