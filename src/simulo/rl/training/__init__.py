"""Reinforcement learning on the CPU: PPO (:class:`RLTrainer`) and policy replay (:class:`PolicyPlayer`).

Importing this package does not import torch; building a trainer or player does (the optional
extra ``simulo-local[train]``, or ``pip install torch==2.13.0``).
"""

from simulo.rl.training.config import PPOConfig
from simulo.rl.training.player import PolicyPlayer, RLPlayer
from simulo.rl.training.trainer import RLTrainer
from simulo.rl.training.vector_env import VectorEnvLike

__all__ = ["PPOConfig", "PolicyPlayer", "RLPlayer", "RLTrainer", "VectorEnvLike"]
