"""skrl's PPO agent as the trainer builds it: models, memory, preprocessors, scheduler (imports torch and skrl).

skrl 1.4.3's PPO feeds one tensor, its "states", to both the policy and the value model. For an
asymmetric actor-critic the trainer hands it the policy inputs and the critic inputs side by side
(:class:`Layout`): the policy model reads its columns, the value model its own. The state preprocessor
standardises every column element-wise, so the policy sees exactly its standardised inputs.

A role with image inputs (``Layout.policy_inputs`` / ``critic_inputs``) reads its declared inputs piece by
piece: each image is unpacked from its columns (:mod:`simulo.rl.training.encoders`) into the role's CNN,
and its numeric inputs join the CNN features in the head. The state preprocessor of such a layout is a
:class:`NumericScaler`: skrl's running standardisation over the numeric columns only, the image bytes
passed through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from skrl.agents.torch.ppo import PPO
from skrl.memories.torch import RandomMemory
from skrl.models.torch import DeterministicMixin, GaussianMixin, Model
from skrl.resources.preprocessors.torch import RunningStandardScaler
from skrl.resources.schedulers.torch import KLAdaptiveLR
from torch import nn

from simulo.errors import SimuloValueError
from simulo.rl.training.actors import ActorInput, ImageActor
from simulo.rl.training.encoders import (
    CnnNumericNet,
    EncoderConfig,
    ImageInput,
    default_encoder,
    unpack_image,
)
from simulo.rl.training.networks import DeterministicActor, build_mlp
from simulo.rl.training.ppo import LeanPPO, use_foreach

ACTION_LIMIT = 1.0
"""Actions sent to the environment (and the deterministic actor's) are clipped to ``±ACTION_LIMIT``."""


@dataclass(frozen=True)
class Piece:
    """One declared input in skrl's states.

    Attributes:
        name: The declared name.
        kind: ``"numeric"`` or ``"image"``.
        shape: Its shape without the batch.
        start: Its first column.
        stop: One past its last column (an image's columns hold its packed bytes).
        preprocessing: An image's ``"none"`` or ``"center"``.
    """

    name: str
    kind: str
    shape: tuple[int, ...]
    start: int
    stop: int
    preprocessing: str = "none"


@dataclass(frozen=True)
class Layout:
    """Where the policy's and the critic's inputs sit in skrl's states.

    Attributes:
        state_dim: Width of the states skrl stores.
        policy: ``(start, stop)`` columns the policy reads.
        critic: ``(start, stop)`` columns the value model reads.
        action_dim: Width of the actions.
        policy_inputs: The policy's declared inputs, piece by piece, when the layout holds images (else empty:
            every column is a number).
        critic_inputs: The value model's, likewise.
    """

    state_dim: int
    policy: tuple[int, int]
    critic: tuple[int, int]
    action_dim: int
    policy_inputs: tuple[Piece, ...] = field(default=())
    critic_inputs: tuple[Piece, ...] = field(default=())

    @property
    def has_images(self) -> bool:
        """Whether any input is an image."""
        return any(p.kind == "image" for p in (*self.policy_inputs, *self.critic_inputs))

    @property
    def policy_dim(self) -> int:
        """Width of the policy's numeric input (all of its columns when it has no image)."""
        if self.policy_inputs:
            return sum(p.stop - p.start for p in self.policy_inputs if p.kind != "image")
        return self.policy[1] - self.policy[0]

    @property
    def numeric_columns(self) -> tuple[int, ...]:
        """The state columns that hold numbers (every one without images)."""
        if not self.has_images:
            return tuple(range(self.state_dim))
        pieces = {(p.start, p.stop) for p in (*self.policy_inputs, *self.critic_inputs) if p.kind != "image"}
        return tuple(c for start, stop in sorted(pieces) for c in range(start, stop))


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


def encoder_for(layout: Layout) -> EncoderConfig:
    """The CNN of every image input of ``layout``: :func:`default_encoder` of its smallest image."""
    shapes = [p.shape for p in (*layout.policy_inputs, *layout.critic_inputs) if p.kind == "image"]
    smallest = min(shapes, key=lambda shape: min(shape[0], shape[1]))
    return default_encoder((smallest[0], smallest[1], smallest[2]))


class PackedNet(nn.Module):
    """A role's network over skrl's states when its inputs hold images: unpack, :class:`CnnNumericNet`.

    Args:
        pieces: The role's inputs (columns in the states).
        config: The CNN of each image.
        networks: Hidden sizes and activation of the head.
        out_dim: Output width.
        out_gain: Orthogonal gain of the output layer.
    """

    def __init__(self, pieces: Sequence[Piece], config: EncoderConfig, networks: Networks, out_dim: int,
                 out_gain: float) -> None:
        super().__init__()
        self.pieces = tuple(pieces)
        images = [ImageInput(p.name, (p.shape[0], p.shape[1], p.shape[2]), p.preprocessing)
                  for p in self.pieces if p.kind == "image"]
        numeric = sum(p.stop - p.start for p in self.pieces if p.kind != "image")
        self.core = CnnNumericNet(images, numeric, config, networks.hidden, out_dim, networks.activation, out_gain)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        """Outputs for (preprocessed) states ``(N, state_dim)``."""
        images = [unpack_image(states[:, p.start:p.stop], p.shape) for p in self.pieces if p.kind == "image"]
        numeric = [states[:, p.start:p.stop] for p in self.pieces if p.kind != "image"]
        flat = torch.cat(numeric, dim=1) if numeric else states.new_zeros((states.shape[0], 0))
        return self.core(images, flat)


def _role_net(pieces: tuple[Piece, ...], columns: tuple[int, int], layout: Layout, networks: Networks,
              out_dim: int, out_gain: float) -> tuple[nn.Module, tuple[int, int] | None]:
    """The role's network and the columns it slices (``None``: it reads the whole states, piece by piece)."""
    if any(p.kind == "image" for p in pieces):
        return PackedNet(pieces, encoder_for(layout), networks, out_dim, out_gain), None
    return build_mlp(columns[1] - columns[0], networks.hidden, out_dim, networks.activation, out_gain), columns


class _Policy(GaussianMixin, Model):
    def __init__(self, layout: Layout, networks: Networks, device: torch.device) -> None:
        Model.__init__(self, layout.state_dim, layout.action_dim, device)
        GaussianMixin.__init__(self, clip_actions=False, clip_log_std=True, min_log_std=-20.0, max_log_std=2.0)
        self.net, self._columns = _role_net(layout.policy_inputs, layout.policy, layout, networks, layout.action_dim,
                                            0.01)
        self.log_std_parameter = nn.Parameter(torch.full((layout.action_dim,), float(networks.initial_log_std)))

    def compute(self, inputs: Mapping[str, Any], role: str = "") -> tuple[Any, ...]:
        return self.net(_columns(inputs["states"], self._columns)), self.log_std_parameter, {}


class _Value(DeterministicMixin, Model):
    def __init__(self, layout: Layout, networks: Networks, device: torch.device) -> None:
        Model.__init__(self, layout.state_dim, 1, device)
        DeterministicMixin.__init__(self, clip_actions=False)
        self.net, self._columns = _role_net(layout.critic_inputs, layout.critic, layout, networks, 1, 1.0)

    def compute(self, inputs: Mapping[str, Any], role: str = "") -> tuple[Any, ...]:
        return self.net(_columns(inputs["states"], self._columns)), {}


def _columns(states: torch.Tensor, columns: tuple[int, int] | None) -> torch.Tensor:
    return states if columns is None else states[:, columns[0]:columns[1]]


class NumericScaler(RunningStandardScaler):
    """skrl's ``RunningStandardScaler`` over some columns of the states only; the others pass through bit for bit.

    Args:
        size: Width of the states (unused: the statistics cover ``columns``).
        columns: The columns to standardise.
        epsilon: As skrl's.
        clip_threshold: As skrl's.
        device: As skrl's.
    """

    def __init__(self, size: int, columns: Sequence[int], epsilon: float = 1e-8, clip_threshold: float = 5.0,
                 device: Any = None) -> None:
        super().__init__(size=len(columns), epsilon=epsilon, clip_threshold=clip_threshold, device=device)
        self.columns = tuple(int(c) for c in columns)
        self._index = torch.tensor(self.columns, dtype=torch.long, device=self.device)

    def forward(self, x: torch.Tensor, train: bool = False, inverse: bool = False,
                no_grad: bool = True) -> torch.Tensor:
        """The states with their numeric columns standardised (statistics updated when ``train``)."""
        out = x.clone()
        out[:, self._index] = super().forward(x[:, self._index], train=train, inverse=inverse, no_grad=no_grad)
        return out


def _state_preprocessor(full: dict[str, Any], layout: Layout) -> None:
    """Under image inputs, skrl's ``RunningStandardScaler`` becomes a :class:`NumericScaler`; others are refused."""
    chosen = full["state_preprocessor"]
    if not layout.has_images or chosen is None:
        return
    if not (isinstance(chosen, type) and issubclass(chosen, RunningStandardScaler)):
        raise SimuloValueError(f"agent_cfg['state_preprocessor']={chosen!r}: a policy with image inputs takes skrl's "
                               "RunningStandardScaler (applied to its numeric inputs) or None")
    full["state_preprocessor"] = NumericScaler
    full["state_preprocessor_kwargs"] = {**full["state_preprocessor_kwargs"], "columns": list(layout.numeric_columns)}


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
    _state_preprocessor(full, layout)
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
    agent = LeanPPO(models=models, memory=memory, observation_space=layout.state_dim, action_space=layout.action_dim,
                device=device, cfg=full)
    agent.init(trainer_cfg={"timesteps": 0})
    return agent


def deterministic_actor(agent: PPO, layout: Layout, networks: Networks) -> DeterministicActor | ImageActor | None:
    """The agent's policy as a standalone actor (a copy): a :class:`DeterministicActor`, or an :class:`ImageActor`
    when the policy reads images. ``None`` when its state preprocessor is neither skrl's
    ``RunningStandardScaler`` nor absent (it cannot be folded in)."""
    preprocessor = agent._state_preprocessor
    standard = isinstance(preprocessor, RunningStandardScaler)
    if not standard and preprocessor != agent._empty_preprocessor:
        return None
    clip = preprocessor.clip_threshold if standard else 5.0
    # Every weight is copied from the agent below, so the new layers' random initialisation is thrown away; it
    # runs on a forked generator, or each checkpoint written mid-training would shift the trainer's stream.
    with torch.random.fork_rng(devices=[]):
        actor = _actor_shell(layout, networks, standard, clip)
    if isinstance(actor, ImageActor):
        actor.core.load_state_dict(agent.policy.net.core.state_dict())
        numeric = [c for p in layout.policy_inputs if p.kind != "image" for c in range(p.start, p.stop)]
    else:
        actor.net.load_state_dict(agent.policy.net.state_dict())
        numeric = list(range(*layout.policy))
    with torch.no_grad():
        actor.log_std.copy_(agent.policy.log_std_parameter.clamp(-20.0, 2.0))
        if standard:
            positions = _stat_positions(preprocessor, numeric)
            actor.mean.copy_(preprocessor.running_mean[positions].float())
            actor.scale.copy_(torch.sqrt(preprocessor.running_variance[positions].float()) + preprocessor.epsilon)
    return actor.to(agent.device).eval()


def _actor_shell(layout: Layout, networks: Networks, standard: bool,
                 clip: float) -> DeterministicActor | ImageActor:
    """An actor of the policy's architecture with freshly initialised weights (to be overwritten)."""
    if any(p.kind == "image" for p in layout.policy_inputs):
        inputs = [ActorInput(p.name, p.kind, p.shape, p.preprocessing) for p in layout.policy_inputs]
        return ImageActor(inputs, layout.action_dim, encoder_for(layout), networks.hidden,
                          networks.activation, normalize=standard, clip=clip, action_limit=ACTION_LIMIT)
    return DeterministicActor(layout.policy_dim, layout.action_dim, networks.hidden, networks.activation,
                              normalize=standard, clip=clip, action_limit=ACTION_LIMIT)


def _stat_positions(preprocessor: RunningStandardScaler, columns: list[int]) -> torch.Tensor:
    """Where the statistics of state ``columns`` sit in the preprocessor's running mean and variance."""
    if isinstance(preprocessor, NumericScaler):
        where = {c: i for i, c in enumerate(preprocessor.columns)}
        columns = [where[c] for c in columns]
    return torch.tensor(columns, dtype=torch.long, device=preprocessor.running_mean.device)


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
    if isinstance(agent, LeanPPO):
        use_foreach(agent)  # a checkpoint's optimiser groups carry the setting they were saved with
