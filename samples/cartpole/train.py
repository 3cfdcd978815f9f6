"""Train the cartpole balancing policy with PPO.

    simulo run samples/cartpole/train.py                      # 64 envs, 150 iterations (~20 s on 2 cores)
    simulo run samples/cartpole/train.py --num-envs 32 --max-iterations 3

The runner saves best.pt and latest.pt in the run's checkpoints folder (runs/cartpole/train/NNNN/);
eval.py and play.py find them with --policy latest.
"""

import simulo

app = simulo.App("cartpole")

with app.runtime.imports():
    from task import CartpoleTask


@app.job(type="train", system=simulo.SystemType.TIER_1, timeout=30 * 60, retries=1)
def train(num_envs: int = 64, max_iterations: int = 150, seed: int = 42) -> dict:
    """Train a PPO policy that balances the pole; returns the trainer's statistics."""
    env = simulo.LearningEnv(
        task=CartpoleTask(),
        num_envs=num_envs,
        device="cpu",
        dt=1.0 / 120.0,
        physics_steps_per_action=2,
        env_spacing=4.0,
        headless=True,
        seed=seed,
    )
    trainer = simulo.RLTrainer(env=env, algorithm="PPO", device="cpu", seed=seed)
    try:
        stats = trainer.train(max_iterations=max_iterations)
        return {"num_envs": num_envs, "seed": seed, **stats}
    finally:
        trainer.close()
        env.close()
