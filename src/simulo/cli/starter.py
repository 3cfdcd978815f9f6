"""The starter app ``simulo create NAME`` writes: its files' text, with ``{{APP_NAME}}`` to fill in.

The layout and names are the SDK's training starter's (``task.py`` with ``StarterTask`` and ``app``,
``preview.py``, ``train.py``, ``eval.py``, ``play.py`` and ``.simuloignore``), so the commands of the
SDK's documentation work on it; the code is simulo-local's own: a cart-pole to balance, on the catalog's
``simulo/robot/cartpole:v1``.
"""

from __future__ import annotations

APP_NAME_TOKEN = "{{APP_NAME}}"

TASK = '''"""The task the other files of this app share: keep a pole upright on a cart. Replace it with yours."""

from __future__ import annotations

import math

import simulo

# A catalog robot, pinned to a version (`simulo asset list` shows the catalog).
cartpole = simulo.Asset.from_registry("simulo/robot/cartpole:v1")
app = simulo.App("{{APP_NAME}}")

# Heavy imports go in this block: listing the jobs (`simulo run FILE --list`) then does not load them.
with app.runtime.imports():
    import torch  # noqa: F401


class StarterTask(simulo.Task):
    """Push the cart left or right so that the pole stays up, for as long as the episode lasts.

    Observations: pole angle and angular velocity, cart position and velocity. Action: the force on the cart.
    """

    observation_dim = 4
    action_dim = 1
    episode_length_s = 5.0

    push_force = 100.0  # newtons at action 1.0
    track_half_length = 3.0  # metres the cart may move from the middle
    start_tilt = 0.25 * math.pi  # the pole starts tilted by up to this much, either way

    def build(self, scene: simulo.Scene) -> None:
        scene.add(simulo.Terrain.plane(name="ground"), at="/", per_environment=False)
        scene.add(simulo.Light.dome(name="sky", intensity=1500.0), at="/", per_environment=False)
        self.robot = simulo.Robot(asset=cartpole, initial_pose=simulo.Pose.identity())
        scene.add(self.robot, at="/World/Robot")

    def on_start(self, env: simulo.LearningEnv) -> None:
        self.cart = self.robot.find_joints("slider_to_cart")[0]
        self.pole = self.robot.find_joints("cart_to_pole")[0]

    def _joints(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.robot.state.joint_positions, self.robot.state.joint_velocities

    def get_observations(self) -> torch.Tensor:
        position, velocity = self._joints()
        columns = [position[:, self.pole], velocity[:, self.pole], position[:, self.cart], velocity[:, self.cart]]
        return torch.stack(columns, dim=-1)

    def get_rewards(self) -> torch.Tensor:
        position, velocity = self._joints()
        fell = self.reset_terminated.float()
        upright = 1.0 - torch.square(position[:, self.pole])
        calm = 0.01 * torch.abs(velocity[:, self.cart]) + 0.005 * torch.abs(velocity[:, self.pole])
        return (upright - calm) * (1.0 - fell) - 2.0 * fell

    def get_dones(self) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        position, _ = self._joints()
        terminated = {
            "cart ran off the track": torch.abs(position[:, self.cart]) > self.track_half_length,
            "pole fell over": torch.abs(position[:, self.pole]) > math.pi / 2,
        }
        truncated = self.episode_length_buf >= self.max_episode_length - 1
        return terminated, truncated

    def apply_actions(self, actions: torch.Tensor) -> None:
        force = self.push_force * torch.clamp(actions, -1.0, 1.0)
        self.robot.set_joint_effort_target(force, joint_ids=[self.cart])

    def reset_idx(self, env_ids: torch.Tensor) -> None:
        if len(env_ids) == 0:
            return
        self.robot.reset(env_ids)
        start = self.robot.default_joint_positions[env_ids].clone()
        tilt = torch.empty(len(env_ids), device=self.device).uniform_(-self.start_tilt, self.start_tilt)
        start[:, self.pole] += tilt
        self.robot.set_joint_state(start, velocities=self.robot.default_joint_velocities[env_ids], env_ids=env_ids)
'''

PREVIEW = '''"""Look at the task before training: the checks say whether the robot moves as the task expects."""

import simulo

from task import StarterTask, app


@app.job(type="preview", system=simulo.SystemType.TIER_1, timeout=15 * 60)
def preview(num_envs: int = 16, checks: str = "all"):
    return simulo.preview(StarterTask(), num_envs=num_envs, checks=checks, video=True)
'''

TRAIN = '''"""Train a policy for the task; training prints the policy ID that eval.py and play.py take."""

from __future__ import annotations

import simulo

from task import StarterTask, app


@app.job(type="train", system=simulo.SystemType.TIER_1, timeout=10 * 60)
def train(num_envs: int = 16, max_iterations: int = 2) -> dict:
    """Train for a few iterations; best.pt and latest.pt are saved with the run."""
    env = simulo.LearningEnv(task=StarterTask(), num_envs=num_envs, dt=1.0 / 120.0, physics_steps_per_action=2,
                             env_spacing=4.0, headless=True, seed=42)
    trainer = simulo.RLTrainer(env=env, algorithm="PPO", device="cuda", seed=42)
    try:
        return {"num_envs": num_envs, **trainer.train(max_iterations=max_iterations)}
    finally:
        trainer.close()
        env.close()
'''

EVAL = '''"""Score a trained policy with the app's success rule: simulo run eval.py --policy <policy ID>:best."""

from __future__ import annotations

import math

import simulo

from task import StarterTask, app


@app.job(type="eval", system=simulo.SystemType.TIER_1, timeout=60 * 60)
def evaluate(policy: simulo.PolicyCheckpoint, episodes: int = 100, num_envs: int = 100, actions: str = "best"):
    return simulo.evaluate(StarterTask(), policy, episodes=episodes, num_envs=num_envs, actions=actions)


@app.success
def kept_up(task):
    """An episode succeeds when it runs to the time limit with the pole still near upright."""
    pole = task.robot.state.joint_positions[:, task.robot.find_joints("cart_to_pole")[0]]
    lasted = task.check("lasted to the time limit", task.survived())
    near_upright = task.check("pole within 10 degrees of upright", pole.abs() < math.radians(10))
    return lasted & near_upright
'''

PLAY = '''"""Run a trained policy and watch its episodes: simulo run play.py --policy <policy ID>:best."""

from __future__ import annotations

import simulo

from task import StarterTask, app


@app.job(type="play", system=simulo.SystemType.TIER_1, timeout=15 * 60)
def play(policy: simulo.PolicyCheckpoint, episodes: int = 3) -> dict:
    env = simulo.LearningEnv(task=StarterTask(), num_envs=1, headless=True, seed=42)
    player = simulo.RLPlayer(env=env, policy=policy)
    try:
        return player.play(num_episodes=episodes)
    finally:
        player.close()
        env.close()
'''

SIMULOIGNORE = """# Files to leave out of the app's package (gitignore patterns).
*.pt
*.pth
*.ckpt
*.npy
*.npz
runs/
data/
.venv/
venv/
.env
.env.*
.DS_Store
"""

#: File name -> text.
FILES: dict[str, str] = {
    "task.py": TASK,
    "preview.py": PREVIEW,
    "train.py": TRAIN,
    "eval.py": EVAL,
    "play.py": PLAY,
    ".simuloignore": SIMULOIGNORE,
}
