"""Replay a trained cartpole policy and report its episode returns.

    simulo run samples/cartpole/play.py --policy latest --episodes 5
"""

import simulo

app = simulo.App("cartpole")

with app.runtime.imports():
    from task import CartpoleTask


@app.job(type="play", system=simulo.SystemType.TIER_1, timeout=15 * 60)
def play(policy: simulo.PolicyCheckpoint, episodes: int = 3, num_envs: int = 1) -> dict:
    """Play ``episodes`` episodes with the policy's best-guess actions."""
    env = simulo.LearningEnv(task=CartpoleTask(), num_envs=num_envs, device="cpu", headless=True, seed=42)
    player = simulo.RLPlayer(env=env, policy=policy, device="cpu")
    try:
        return {"policy": policy.checkpoint, **player.play(num_episodes=episodes)}
    finally:
        player.close()
        env.close()
