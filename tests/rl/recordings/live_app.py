"""The ``--viewstream`` tests' app: a job stepping two camera cartpoles until a stop file appears."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from recording_tasks import CameraCartpole

import simulo

app = simulo.App("live view test")


@app.job()
def watch(stop_file: str = "", seconds: float = 60.0) -> dict:
    """Step until ``stop_file`` exists or ``seconds`` have passed; returns the step count."""
    env = simulo.LearningEnv(CameraCartpole(), num_envs=2, tensor_library="numpy", enable_cameras=True)
    steps = 0
    try:
        env.reset()
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (stop_file and Path(stop_file).exists()):
            env.step(np.full((2, 1), np.sin(steps / 5.0)))
            steps += 1
            time.sleep(0.002)
    finally:
        env.close()
    return {"steps": steps}
