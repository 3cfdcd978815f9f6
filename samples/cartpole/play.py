"""Replay a trained cartpole policy, report its episode returns, and record it.

    simulo run samples/cartpole/play.py --policy latest --episodes 5

With the `record` extra (pip install 'simulo-local[record]') the rollout is written to the run's recordings/
folder as play-0001.mcap (open it in Foxglove) and play-0001.mp4; `simulo recordings` lists them. Without it the
job plays and says how to get them.
"""

import importlib.util
import sys

import simulo

app = simulo.App("cartpole")

with app.runtime.imports():
    from task import CartpoleTask


@app.job(type="play", system=simulo.SystemType.TIER_1, timeout=15 * 60)
def play(policy: simulo.PolicyCheckpoint, episodes: int = 3, num_envs: int = 1) -> dict:
    """Play ``episodes`` episodes with the policy's best-guess actions, recorded when the extra is installed."""
    recording = importlib.util.find_spec("mcap") is not None and importlib.util.find_spec("imageio") is not None
    if not recording:
        print("play: not recording (pip install 'simulo-local[record]' writes an MCAP and an MP4 of the rollout)",
              file=sys.stderr)
    env = simulo.LearningEnv(task=CartpoleTask(), num_envs=num_envs, device="cpu", headless=True, seed=42)
    player = simulo.RLPlayer(env=env, policy=policy, device="cpu")
    try:
        record = simulo.RecordConfig(include_video=True) if recording else None
        return {"policy": policy.checkpoint, **player.play(num_episodes=episodes, record=record)}
    finally:
        player.close()
        env.close()
