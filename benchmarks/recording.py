"""What recording a rollout costs: policy steps per second without a recording, against the same rollout recorded.

The rollout is the catalog cartpole, N environments, a fixed sine push on every cart, stepped through
``simulo.LearningEnv``; the recording is :class:`~simulo.rl.recordings.rollout.RolloutRecorder`, what
``RLPlayer.play(record=...)`` drives, recording environment 0 (the SDK's default ``env_indices``):

* ``mcap``: the standard profile (scene, poses, joints, actions, rewards, episode events);
* ``mcap+mp4``: ``include_video=True``, the MP4 drawn by the CPU renderer at 320x240;
* ``camera``: a 100x100 camera in every environment, its images in the MCAP (PNG) and the MP4;
* ``live``: what ``simulo run --viewstream`` adds (:class:`~simulo.rl.recordings.live.LiveRecorder` into a
  served Foxglove WebSocket, no viewer connected; at most 30 frames/s, so it costs less the faster the steps).

Timing: each variant runs in alternating blocks with the plain rollout (plain, recorded, recorded, plain,
...) of ``--steps`` steps, ``--repeats`` blocks each, with ``time.perf_counter``; a recorded block opens and
closes its files. Columns: the plain and recorded steps/s of their fastest blocks, ``ratio`` (recorded/plain,
the median of back-to-back pairs), ``ms/step`` (what recording adds to one policy step) and the recording's
size in kB per step.

Run::

    python benchmarks/recording.py           # N = 1 and 16
    python benchmarks/recording.py --quick   # tiny (for the tests)
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import simulo
from simulo.rl.recordings import live
from simulo.rl.recordings.config import plan_recording
from simulo.rl.recordings.rollout import RolloutRecorder

VARIANTS = ("mcap", "mcap+mp4", "camera", "live")


class Cartpole(simulo.Task):
    """The catalog cartpole, pushed; with ``camera``, a 100x100 camera per environment beside it."""

    observation_dim, action_dim = 2, 1

    def __init__(self, camera: bool = False) -> None:
        super().__init__()
        self.camera = camera

    def build(self, scene: simulo.Scene) -> None:
        self.robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1"))
        scene.add(self.robot, at="/World/Robot")
        if self.camera:
            look = simulo.SensorOffset.look_at(pos=(0.0, -5.0, 2.0), target=(0.0, 0.0, 2.0))
            scene.add(simulo.Camera(width=100, height=100, offset=look), at="/World/camera")

    def apply_actions(self, actions: np.ndarray) -> None:
        self.robot.set_joint_effort_target(10.0 * actions, joint_ids=self.robot.find_joints("slider_to_cart"))

    def get_observations(self) -> np.ndarray:
        return self.robot.state.joint_positions

    def get_rewards(self) -> np.ndarray:
        return np.ones(self.num_envs)

    def get_dones(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(self.num_envs, bool), np.zeros(self.num_envs, bool)

    def reset_idx(self, env_ids: np.ndarray) -> None:
        self.robot.reset(env_ids)


def _block(env: simulo.LearningEnv, steps: int, start: int, recorder: RolloutRecorder | None) -> float:
    """Seconds to run ``steps`` steps (recording them with ``recorder``, which is closed at the end)."""
    began = time.perf_counter()
    if recorder is not None:
        recorder.begin()
    for k in range(start, start + steps):
        actions = np.full((env.num_envs, 1), np.sin(k / 20.0))
        _, rewards, terminated, truncated, _ = env.step(actions)
        if recorder is not None:
            recorder.step(actions, rewards, terminated, truncated)
    if recorder is not None:
        recorder.close()
    return time.perf_counter() - began


def measure(variant: str, num_envs: int, steps: int, repeats: int, folder: Path) -> dict[str, float]:
    """One row: plain and recorded steps/s, their ratio, the added ms per step and kB per step."""
    camera = variant == "camera"
    env = simulo.LearningEnv(Cartpole(camera=camera), num_envs=num_envs, tensor_library="numpy",
                             enable_cameras=camera)
    plain: list[float] = []
    recorded: list[float] = []
    size = 0
    try:
        env.reset()
        for r in range(repeats):
            for record in ((False, True) if r % 2 == 0 else (True, False)):
                recorder = None
                if record and variant == "live":
                    recorder = live.LiveRecorder(env, live.serve("127.0.0.1", 0))
                elif record:
                    config = simulo.RecordConfig(output_path=folder / f"{variant}-{num_envs}-{r}.mcap",
                                                 include_video=variant != "mcap")
                    plan = plan_recording(config, num_envs, env.dt)
                    assert plan is not None
                    recorder = RolloutRecorder(env, plan, scene_id="benchmark")
                seconds = _block(env, steps, r * steps, recorder)
                (recorded if record else plain).append(seconds)
                if recorder is not None:
                    size = sum(p.stat().st_size for p in folder.glob(f"{variant}-{num_envs}-{r}.*"))
    finally:
        env.close()
    ratios = [p / q for p, q in zip(plain, recorded)]
    return {"plain": steps / min(plain), "recorded": steps / min(recorded), "ratio": statistics.median(ratios),
            "ms": 1000 * (statistics.median(recorded) - statistics.median(plain)) / steps,
            "kb": size / 1000 / (steps + 1)}


def main(argv: list[str] | None = None) -> int:
    """Print the table; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="steps per timed block (default 200)")
    parser.add_argument("--repeats", type=int, default=4, help="blocks per loop (default 4)")
    parser.add_argument("--quick", action="store_true", help="tiny run (N = 1, 5 steps, 2 blocks)")
    args = parser.parse_args(argv)
    sizes, steps, repeats = ((1,), 5, 2) if args.quick else ((1, 16), args.steps, args.repeats)
    print(f"{'variant':<9} {'N':>3} {'plain/s':>9} {'recorded/s':>10} {'ratio':>6} {'ms/step':>8} {'kB/step':>8}")
    with tempfile.TemporaryDirectory(prefix="simulo-recording-bench-") as temporary:
        for variant in VARIANTS:
            for n in sizes:
                row = measure(variant, n, steps, repeats, Path(temporary))
                print(f"{variant:<9} {n:>3} {row['plain']:>9.0f} {row['recorded']:>10.0f} {row['ratio']:>6.2f} "
                      f"{row['ms']:>8.2f} {row['kb']:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
