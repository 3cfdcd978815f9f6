"""The preview's recording: its checks filmed as they run, as the SDK's preview records them.

Inside a job (``simulo run``, which sets ``$SIMULO_RUN_DIR``) a preview writes one MCAP in the VizStream
layout, ``recordings/preview-NNNN.mcap`` in the run folder, and with ``video=True`` an MP4 of the same
name beside it. Both show environment 0 through every check in the order they ran (Settle, Joint sweep,
Random moves, Training loop, Action map) on one clock: simulated time since the preview started,
counted in physics steps, so a check that steps the physics itself and one that steps the environment
are filmed alike. A frame is taken each time that clock passes ``k / fps`` (:data:`FPS`, or the physics
rate when it is slower), so the video plays the checks at their simulated speed. The findings are on
the MCAP's timeline (``/preview/findings``, JSON, at the moment each was first seen), and each row
that warns or fails says when that was (``at_s``) in the report. Under ``simulo run --viewstream`` the
checks are also shown live (:mod:`simulo.rl.recordings.live`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from simulo.authoring.contract import RecordConfig
from simulo.rl.recordings import live
from simulo.rl.recordings.config import RUN_DIR_ENV, RecordingPlan, next_free, recordings_dir
from simulo.rl.recordings.rollout import RolloutRecorder

FPS = 30.0
FINDINGS_TOPIC = "/preview/findings"
FINDING_SCHEMA = "simulo.preview.Finding"
FINDING_JSON_SCHEMA = (
    b'{"title":"simulo.preview.Finding","type":"object","properties":{'
    b'"stage":{"type":"string"},"check":{"type":"string"},"status":{"type":"string"},'
    b'"title":{"type":"string"},"problem":{"type":"string"},"env":{"type":"integer"},'
    b'"at_s":{"type":"number"}}}'
)
NOT_IN_A_RUN = "not recorded: a preview records into its job's run folder (run it with simulo run)"


def film_folder() -> Path | None:
    """Where a preview's recording goes: the run folder's ``recordings/``, or ``None`` outside a job."""
    return recordings_dir() if os.environ.get(RUN_DIR_ENV) else None


class PreviewFilm:
    """Films environment 0 of a preview's environment on the preview's clock.

    Args:
        env: The preview's environment (a :class:`~simulo.rl.local_env.LocalEnv`).
        folder: Where ``preview-NNNN.mcap`` (and ``.mp4``) go.
        video: Also write the MP4.

    Raises:
        MissingDependencyError: mcap, protobuf or imageio-ffmpeg is not installed (nothing is created).
    """

    def __init__(self, env: Any, folder: Path, video: bool) -> None:
        from simulo.interfaces.authoring.record import resolve_includes  # noqa: PLC0415 - simulo-interfaces

        self.physics_dt = float(env.physics_dt)
        self.fps = min(FPS, 1.0 / self.physics_dt)
        mcap = next_free(folder, "preview")
        includes = resolve_includes(RecordConfig(include_video=video))
        plan = RecordingPlan(mcap, mcap.with_suffix(".mp4") if video else None, None, (0,), 1, self.fps, includes)
        self.recorder = RolloutRecorder(env, plan, scene_id="preview")
        stream = live.current()
        self.live = None if stream is None else live.LiveRecorder(env, stream)
        self.physics_steps = 0
        #: Physics steps of the policy step under way (its findings show at its end).
        self.pending_steps = 0
        self.frames = 0
        self._closed = False

    @property
    def time_s(self) -> float:
        """Simulated seconds since the preview started (the recording's clock)."""
        return self.physics_steps * self.physics_dt

    @property
    def finding_time_s(self) -> float:
        """When a problem seen now shows in the recording: at the end of the policy step under way."""
        return (self.physics_steps + self.pending_steps) * self.physics_dt

    def begin(self) -> None:
        """Record the scene and the first frame (after the first reset)."""
        self.recorder.begin()
        self.frames = 1
        if self.live is not None:
            self.live.begin()

    def advance(self, physics_steps: int) -> None:
        """The physics ran ``physics_steps`` more steps: take the frames whose time has come."""
        self.physics_steps += int(physics_steps)
        self.pending_steps = 0
        due = math.floor(self.time_s * self.fps + 1e-9) + 1  # frames 0 .. floor(t * fps)
        while self.frames < due:
            self.recorder.capture(self.frames / self.fps, self.physics_steps)
            self.frames += 1
        if self.live is not None:
            self.live.capture(self.time_s, self.physics_steps)

    def close(self, findings: list[dict[str, Any]]) -> dict[str, Any]:
        """Put ``findings`` (rows that warn or fail, with ``at_s``) on the timeline and finish the files.

        Returns:
            The recording's facts for the report's measurements: its files, frames, fps, length and the
            physics steps it covers.
        """
        mcap = self.recorder.mcap
        if mcap is not None and not self._closed:
            for row in sorted(findings, key=lambda r: r.get("at_s", 0.0)):
                mcap.write_json(FINDINGS_TOPIC, FINDING_SCHEMA, FINDING_JSON_SCHEMA, row,
                                round(float(row.get("at_s", 0.0)) * 1e9))
        self._closed = True
        paths = self.recorder.close()
        return {"files": [str(p) for p in paths], "frames": self.frames, "fps": self.fps,
                "duration_s": self.frames / self.fps, "physics_steps": self.physics_steps,
                "physics_dt": self.physics_dt}
