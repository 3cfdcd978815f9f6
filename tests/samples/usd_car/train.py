"""Train the USD car to hold its speed (a test app: a few iterations prove the path).

    simulo run tests/samples/usd_car/train.py --num-envs 16 --max-iterations 2
"""

import simulo

app = simulo.App("usd-car")

with app.runtime.imports():
    from task import UsdCarTask


@app.job(type="train", system=simulo.SystemType.TIER_1, timeout=30 * 60)
def train(num_envs: int = 64, max_iterations: int = 20, seed: int = 7) -> dict:
    """Train a PPO policy; returns the trainer's statistics."""
    env = simulo.LearningEnv(task=UsdCarTask(), num_envs=num_envs, device="cpu", dt=1.0 / 120.0,
                             physics_steps_per_action=4, env_spacing=3.0, headless=True, seed=seed)
    trainer = simulo.RLTrainer(env=env, algorithm="PPO", device="cpu", seed=seed)
    try:
        return {"num_envs": num_envs, **trainer.train(max_iterations=max_iterations)}
    finally:
        trainer.close()
        env.close()
