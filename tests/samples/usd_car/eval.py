"""Evaluate the USD car's policy: an episode succeeds when the car ends it moving forward.

    simulo run tests/samples/usd_car/eval.py --policy latest --episodes 4
"""

import simulo

app = simulo.App("usd-car")

with app.runtime.imports():
    from task import UsdCarTask


@app.job(type="eval", system=simulo.SystemType.TIER_1, timeout=30 * 60)
def evaluate(policy: simulo.PolicyCheckpoint, episodes: int = 8, num_envs: int = 8) -> dict:
    """Run the policy on episodes 0..episodes-1 and report how many succeeded."""
    return simulo.evaluate(UsdCarTask(), policy, episodes=episodes, num_envs=num_envs, env_spacing=3.0)


@app.success
def moving(task):
    """The car still moves forward at the time limit."""
    forward = task.robot.state.linear_velocity_in_base_frame[:, 0]
    return task.check("moving forward", forward > 0.2) & task.check("lasted", task.survived())
