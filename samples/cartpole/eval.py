"""Evaluate a trained cartpole policy on numbered episodes.

    simulo run samples/cartpole/eval.py --policy latest       # best.pt of the newest training run
    simulo run samples/cartpole/eval.py --policy runs/cartpole/train/0001:latest --episodes 200

An episode succeeds when the pole is still upright at the end and the episode ran to the time limit.
"""

import math
from typing import Literal

import simulo

app = simulo.App("cartpole")

with app.runtime.imports():
    from task import CartpoleTask


@app.job(type="eval", system=simulo.SystemType.TIER_1, timeout=30 * 60)
def evaluate(
    policy: simulo.PolicyCheckpoint,
    episodes: int = 100,
    num_envs: int = 100,
    actions: Literal["best", "sampled"] = "best",
) -> dict:
    """Run the policy on episodes 0..episodes-1 and report how many succeeded."""
    return simulo.evaluate(CartpoleTask(), policy, episodes=episodes, num_envs=num_envs, actions=actions,
                           env_spacing=4.0)


@app.success
def balanced(task):
    """The pole is within 12 degrees of upright when the episode reaches its time limit."""
    pole_angle = task.robot.state.joint_positions[:, task.robot.find_joints("cart_to_pole")[0]]
    upright = task.check("pole upright", pole_angle.abs() < math.radians(12))
    lasted = task.check("lasted to the time limit", task.survived())
    return upright & lasted
