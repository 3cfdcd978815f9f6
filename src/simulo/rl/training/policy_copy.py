"""Copies of a learner's policy for env runners: the models once, their weights every iteration (torch, skrl).

:func:`policy_package` copies skrl's PPO policy and value models and its preprocessors to the CPU (sent
to each runner once); :func:`policy_weights` takes their current state dicts (sent every iteration).
:mod:`simulo.rl.training.collector` re-exports these names.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

Weights = dict[str, Any]
"""The state dicts of the policy, the value model and the preprocessors (``None`` where there is none)."""


@dataclass(frozen=True)
class PolicyPackage:
    """What a runner needs to act like the learner's agent: copies of its models and preprocessors.

    Sent once; afterwards each iteration sends only :func:`policy_weights`.

    Attributes:
        policy: A copy of skrl's Gaussian policy model.
        value: A copy of skrl's value model.
        state_preprocessor: A copy of the state preprocessor module, or ``None`` (identity).
        value_preprocessor: A copy of the value preprocessor module, or ``None`` (identity).
    """

    policy: Any
    value: Any
    state_preprocessor: Any
    value_preprocessor: Any


def policy_package(agent: Any) -> PolicyPackage:
    """Copies of ``agent``'s models and preprocessors (skrl's PPO), for runners."""
    return PolicyPackage(_cpu_copy(agent.policy), _cpu_copy(agent.value),
                         _preprocessor(agent, agent._state_preprocessor),
                         _preprocessor(agent, agent._value_preprocessor))


def policy_weights(agent: Any) -> Weights:
    """The current state dicts of ``agent``'s models and preprocessors (detached copies)."""
    def state(module: Any) -> Any:
        return None if module is None else {k: v.detach().to("cpu", copy=True) for k, v in module.state_dict().items()}

    return {"policy": state(agent.policy), "value": state(agent.value),
            "state_preprocessor": state(_preprocessor(agent, agent._state_preprocessor, copy_it=False)),
            "value_preprocessor": state(_preprocessor(agent, agent._value_preprocessor, copy_it=False))}


def weights_nbytes(weights: Any) -> int:
    """Bytes of tensor data in ``weights`` (tensors, possibly in nested dicts)."""
    if isinstance(weights, torch.Tensor):
        return weights.numel() * weights.element_size()
    if isinstance(weights, np.ndarray):
        return int(weights.nbytes)
    if isinstance(weights, dict):
        return sum(weights_nbytes(part) for part in weights.values())
    return 0


def _preprocessor(agent: Any, preprocessor: Any, copy_it: bool = True) -> Any:
    if preprocessor is None or preprocessor == agent._empty_preprocessor:
        return None
    return _cpu_copy(preprocessor) if copy_it else preprocessor


_TRANSIENT = ("_g_distribution", "_g_log_std")
"""skrl's GaussianMixin keeps the last ``act``'s distribution; after an update it holds graph tensors, which
do not copy. A copy starts without them (the next ``act`` sets them again)."""


def _cpu_copy(module: Any) -> Any:
    """A copy of ``module`` on the CPU (the runners act on the CPU, whatever the learner's device)."""
    stash = {k: v for k, v in vars(module).items() if k in _TRANSIENT}
    try:
        for k in stash:
            setattr(module, k, None)
        twin = copy.deepcopy(module).to("cpu")
    finally:
        for k, v in stash.items():
            setattr(module, k, v)
    if hasattr(twin, "device"):
        twin.device = torch.device("cpu")
    return twin


def apply_preprocessor(preprocessor: Any, x: torch.Tensor, inverse: bool = False) -> torch.Tensor:
    """``preprocessor(x)`` (its statistics unchanged), or ``x`` when there is none."""
    return x if preprocessor is None else preprocessor(x, inverse=inverse)


__all__ = ["PolicyPackage", "Weights", "apply_preprocessor", "policy_package", "policy_weights", "weights_nbytes"]
