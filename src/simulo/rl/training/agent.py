"""skrl's PPO agent as the trainer builds it: models, memory, preprocessors, scheduler (imports torch and skrl).

skrl 1.4.3's PPO feeds one tensor, its "states", to both the policy and the value model. For an
asymmetric actor-critic the trainer hands it the policy inputs and the critic inputs side by side
(:class:`Layout`): the policy model reads its columns, the value model its own. The state preprocessor
standardises every column element-wise, so the policy sees exactly its standardised inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from skrl.agents.torch.ppo import PPO
from skrl.memories.torch import RandomMemory
from skrl.models.torch import DeterministicMixin, GaussianMixin, Model
from skrl.resources.preprocessors.torch import RunningStandardScaler
from skrl.resources.schedulers.torch import KLAdaptiveLR
from torch import nn

from simulo.rl.training.networks import DeterministicActor, build_mlp

ACTION_LIMIT = 1.0
"""Actions sent to the environment (and the deterministic actor's) are clipped to ``±ACTION_LIMIT``."""


@dataclass(frozen=True)
class Layout:
    """Where the policy's and the critic's inputs sit in skrl's states.

    Attributes:
        state_dim: Width of the states skrl stores.
        policy: ``(start, stop)`` columns the policy reads.
        critic: ``(start, stop)`` columns the value model reads.
        action_dim: Width of the actions.
    """

    state_dim: int
    policy: tuple[int, int]
    critic: tuple[int, int]
    action_dim: int

    @property
    def policy_dim(self) -> int:
        """Width of the policy's input."""
        return self.policy[1] - self.policy[0]


@dataclass(frozen=True)
class Networks:
    """The MLPs of the policy and the value model.

    Attributes:
        hidden: Hidden layer sizes (both networks).
        activation: ``"elu"``, ``"tanh"`` or ``"relu"``.
        initial_log_std: Initial log standard deviation of the Gaussian policy.
    """

    hidden: tuple[int, ...] = (64, 64)
    activation: str = "elu"
    initial_log_std: float = 0.0


class _Policy(GaussianMixin, Model):
    def __init__(self, layout: Layout, networks: Networks, device: torch.device) -> None:
        Model.__init__(self, layout.state_dim, layout.action_dim, device)
        GaussianMixin.__init__(self, clip_actions=False, clip_log_std=True, min_log_std=-20.0, max_log_std=2.0)
        self._columns = layout.policy
        self.net = build_mlp(layout.policy_dim, networks.hidden, layout.action_dim, networks.activation, 0.01)
        self.log_std_parameter = nn.Parameter(torch.full((layout.action_dim,), float(networks.initial_log_std)))

    def compute(self, inputs: Mapping[str, Any], role: str = "") -> tuple[Any, ...]:
        start, stop = self._columns
        return self.net(inputs["states"][:, start:stop]), self.log_std_parameter, {}


class _Value(DeterministicMixin, Model):
    def __init__(self, layout: Layout, networks: Networks, device: torch.device) -> None:
        Model.__init__(self, layout.state_dim, 1, device)
        DeterministicMixin.__init__(self, clip_actions=False)
        self._columns = layout.critic
        self.net = build_mlp(layout.critic[1] - layout.critic[0], networks.hidden, 1, networks.activation, 1.0)

    def compute(self, inputs: Mapping[str, Any], role: str = "") -> tuple[Any, ...]:
        start, stop = self._columns
        return self.net(inputs["states"][:, start:stop]), {}


def build_agent(cfg: Mapping[str, Any], layout: Layout, networks: Networks, num_envs: int, device: torch.device,
                log_dir: Path) -> PPO:
    """Build and initialise skrl's PPO for ``cfg`` (as :func:`~simulo.rl.training.config.check_agent_cfg` returns it).

    Keys the app left out get this runtime's choices: ``RunningStandardScaler`` on states and values,
    ``KLAdaptiveLR`` (KL target 0.008); preprocessor kwargs get ``size`` and ``device``. TensorBoard
    events go to ``log_dir`` unless ``cfg["experiment"]`` names a directory; written every iteration
    unless it sets ``write_interval``. skrl's own checkpoints stay off unless it sets
    ``checkpoint_interval`` (the trainer writes ``best.pt`` and ``latest.pt``).
    """
    full = dict(cfg)
    if "learning_rate_scheduler" not in full:
        full["learning_rate_scheduler"] = KLAdaptiveLR
        full.setdefault("learning_rate_scheduler_kwargs", {"kl_threshold": 0.008})
    for key, size in (("state_preprocessor", layout.state_dim), ("value_preprocessor", 1)):
        full.setdefault(key, RunningStandardScaler)
        if full[key] is not None:
            kwargs = dict(full.get(f"{key}_kwargs") or {})
            kwargs.setdefault("size", size)
            kwargs.setdefault("device", device)
            full[f"{key}_kwargs"] = kwargs
    experiment = dict(full.get("experiment") or {})
    if not experiment.get("directory"):
        experiment["directory"], experiment["experiment_name"] = str(log_dir.parent), log_dir.name
    if experiment.get("write_interval", "auto") == "auto":
        experiment["write_interval"] = int(full["rollouts"])
    if experiment.get("checkpoint_interval", "auto") == "auto":
        experiment["checkpoint_interval"] = 0
    full["experiment"] = experiment
    models = {"policy": _Policy(layout, networks, device), "value": _Value(layout, networks, device)}
    memory = RandomMemory(memory_size=int(full["rollouts"]), num_envs=num_envs, device=device)
    agent = PPO(models=models, memory=memory, observation_space=layout.state_dim, action_space=layout.action_dim,
                device=device, cfg=full)
    agent.init(trainer_cfg={"timesteps": 0})
    return agent


def deterministic_actor(agent: PPO, layout: Layout, networks: Networks) -> DeterministicActor | None:
    """The agent's policy as a :class:`DeterministicActor` (a copy), or ``None`` when its state preprocessor
    is neither skrl's ``RunningStandardScaler`` nor absent (it cannot be folded in)."""
    preprocessor = agent._state_preprocessor
    standard = isinstance(preprocessor, RunningStandardScaler)
    if not standard and preprocessor != agent._empty_preprocessor:
        return None
    actor = DeterministicActor(layout.policy_dim, layout.action_dim, networks.hidden, networks.activation,
                               normalize=standard, clip=preprocessor.clip_threshold if standard else 5.0,
                               action_limit=ACTION_LIMIT)
    actor.net.load_state_dict(agent.policy.net.state_dict())
    with torch.no_grad():
        actor.log_std.copy_(agent.policy.log_std_parameter.clamp(-20.0, 2.0))
    if standard:
        start, stop = layout.policy
        with torch.no_grad():
            actor.mean.copy_(preprocessor.running_mean[start:stop].float())
            actor.scale.copy_(torch.sqrt(preprocessor.running_variance[start:stop].float()) + preprocessor.epsilon)
    return actor.to(agent.device).eval()


def agent_state(agent: PPO) -> dict[str, Any]:
    """The state dicts of the agent's checkpoint modules (policy, value, optimizer, preprocessors)."""
    return {name: module.state_dict() for name, module in agent.checkpoint_modules.items()
            if hasattr(module, "state_dict")}


def load_agent_state(agent: PPO, state: Mapping[str, Any]) -> None:
    """Load :func:`agent_state`'s dicts into ``agent`` (every module it has must be there).

    Raises:
        KeyError, RuntimeError, ValueError: A module is missing or does not fit.
    """
    for name, module in agent.checkpoint_modules.items():
        if hasattr(module, "load_state_dict"):
            module.load_state_dict(state[name])
