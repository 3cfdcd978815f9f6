"""Reinforcement learning: skrl's PPO (:class:`RLTrainer`), policy replay (:class:`PolicyPlayer`) and export.

Importing this package imports neither torch nor skrl; building a trainer or player does (the optional
extra ``simulo-local[train]``).
"""

from simulo.rl.training.player import PolicyPlayer, RLPlayer
from simulo.rl.training.trainer import RLTrainer
from simulo.rl.training.vector_env import VectorEnvLike

__all__ = ["PolicyPlayer", "RLPlayer", "RLTrainer", "VectorEnvLike"]
