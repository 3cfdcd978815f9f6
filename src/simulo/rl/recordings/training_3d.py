"""``simulo run --record-3d COPIES``: a training job's environments recorded in 3D, as the SDK records them.

Every :class:`simulo.LearningEnv` the job builds steps through a :class:`Recording3dBackend`, which writes the
first ``COPIES`` environments (all of them when there are fewer) to ``train-3d-NNNN.mcap`` in the run's
``recordings/`` folder: the VizStream layout of ``RLPlayer.play(record=...)`` with ``RecordConfig()``'s
standard profile (the scene, the copies' poses and joints, actions, rewards and episode events), poses every
:data:`EVERY_N_STEPS` policy steps, events at every step. ``simulo recordings RUN --format foxglove`` turns it
into a file for Foxglove.

Limits: under ``--workers`` the training rollouts step inside the Ray workers, so the file holds the steps the
job takes itself (its scene is recorded when the job's environment has a simulation); an evaluation's
environments, built apart from ``LearningEnv``, are not recorded.
"""

from __future__ import annotations

from typing import Any

from simulo.authoring.contract import RecordConfig
from simulo.rl.env import BackendFactory, EnvBackend
from simulo.rl.recordings.config import RecordingPlan, next_free, recordings_dir
from simulo.rl.recordings.rollout import RolloutRecorder
from simulo.rl.recordings.wrapped_backend import WrappedBackend, wrapping

#: Policy steps between two recorded pose frames.
EVERY_N_STEPS = 5
#: Names the files: ``train-3d-0001.mcap``, ...
KIND = "train-3d"


def plan(copies: int, num_envs: int, step_dt: float) -> RecordingPlan:
    """The recording of ``copies`` environments (at most ``num_envs``) into the run's next ``train-3d`` file."""
    from simulo.interfaces.authoring.record import resolve_includes  # noqa: PLC0415 - simulo-interfaces

    return RecordingPlan(next_free(recordings_dir(), KIND), None, None, tuple(range(min(copies, num_envs))),
                         EVERY_N_STEPS, 1.0 / (step_dt * EVERY_N_STEPS), resolve_includes(RecordConfig()))


class Recording3dBackend(WrappedBackend):
    """An environment backend recorded in 3D: ``inner`` steps, its first copies go to an MCAP.

    Every member but the running ones is ``inner``'s.

    Args:
        inner: The backend that steps.
        copies: How many environments to record.
    """

    def __init__(self, inner: EnvBackend, copies: int) -> None:
        super().__init__(inner)
        self.recorder = RolloutRecorder(inner, plan(copies, int(inner.num_envs), float(inner.dt)), scene_id=KIND)
        self._started = False

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the environments; the first reset records the scene."""
        out = self.inner.reset(seed, options)
        if not self._started:
            self.recorder.begin()
            self._started = True
        return out

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the environments and record the step."""
        out = self.inner.step(actions)
        if self._started:
            self.recorder.step(actions, out[1], out[2], out[3])
        return out

    def close(self) -> None:
        """Finish the recording, then close the environments."""
        try:
            self.recorder.close()
        finally:
            self.inner.close()


def recording_backend(copies: int, inner: BackendFactory | None = None) -> BackendFactory:
    """A backend factory for :func:`simulo.rl.env.env_backend`: ``inner``'s backends (else local ones), recorded."""
    return wrapping(lambda backend: Recording3dBackend(backend, copies), inner)
