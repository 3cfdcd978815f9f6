"""The trainer's ``agent_cfg``: skrl's PPO configuration keys, checked (pure Python: importable without torch).

``RLTrainer(agent_cfg=...)`` takes the keys of skrl 1.4.3's ``PPO_DEFAULT_CONFIG`` (the SDK's trainer runs
skrl's PPO, so its apps pass those keys). :func:`check_agent_cfg` refuses an unknown key, naming it and
the valid ones, and checks the values it can check without skrl; :data:`DEFAULTS` are this runtime's
defaults for the keys an app leaves out. The class-valued defaults (``RunningStandardScaler`` on states
and values, the ``KLAdaptiveLR`` scheduler) are filled in by :mod:`simulo.rl.training.agent`, which
imports skrl.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from simulo.checks import is_int, is_real
from simulo.errors import SimuloValueError

#: The keys of skrl 1.4.3's ``PPO_DEFAULT_CONFIG`` (a test compares them with the installed skrl).
PPO_KEYS: tuple[str, ...] = (
    "rollouts", "learning_epochs", "mini_batches", "discount_factor", "lambda", "learning_rate",
    "learning_rate_scheduler", "learning_rate_scheduler_kwargs", "state_preprocessor", "state_preprocessor_kwargs",
    "value_preprocessor", "value_preprocessor_kwargs", "random_timesteps", "learning_starts", "grad_norm_clip",
    "ratio_clip", "value_clip", "clip_predicted_values", "entropy_loss_scale", "value_loss_scale", "kl_threshold",
    "rewards_shaper", "time_limit_bootstrap", "mixed_precision", "experiment",
)

#: The keys of ``PPO_DEFAULT_CONFIG["experiment"]``.
EXPERIMENT_KEYS: tuple[str, ...] = (
    "directory", "experiment_name", "write_interval", "checkpoint_interval", "store_separately", "wandb",
    "wandb_kwargs",
)

#: This runtime's values for keys an app leaves out (the rest keep skrl's defaults). Chosen as Isaac Lab's
#: skrl PPO configurations for cartpole-sized tasks do, with the SDK's 16-step rollout, and tuned on the
#: cartpole sample (``benchmarks/training_cartpole.py``).
DEFAULTS: dict[str, Any] = {
    "rollouts": 16,
    "learning_epochs": 8,
    "mini_batches": 4,
    "discount_factor": 0.99,
    "lambda": 0.95,
    "learning_rate": 1e-3,
    "grad_norm_clip": 1.0,
    "ratio_clip": 0.2,
    "value_clip": 0.2,
    "clip_predicted_values": True,
    "entropy_loss_scale": 0.0,
    "value_loss_scale": 2.0,
    "kl_threshold": 0.0,
    "time_limit_bootstrap": True,
}

ALGORITHMS = ("PPO",)


def check_trainer_options(*, algorithm: Any, ml_framework: Any, seed: Any, resume: Any, progress: Any,
                          torch_threads: Any, hidden_layers: Any, debug_on_anomaly: Any) -> None:
    """Check ``RLTrainer``'s arguments other than the environment and ``agent_cfg``.

    Raises:
        SimuloValueError: One is invalid (the message names it and what was expected).
        NotImplementedError: ``debug_on_anomaly`` is enabled (anomaly capture is not implemented locally).
    """
    if not isinstance(algorithm, str) or algorithm.upper() not in ALGORITHMS:
        raise SimuloValueError(f"algorithm={algorithm!r}: expected one of {ALGORITHMS} (case-insensitive)")
    if ml_framework != "torch":
        raise SimuloValueError(f"ml_framework={ml_framework!r}: expected 'torch'")
    if not is_int(seed, 0):
        raise SimuloValueError(f"seed={seed!r}: expected an integer >= 0")
    if resume not in (None, True, False):
        raise SimuloValueError(f"resume={resume!r}: expected None, True or False")
    if not isinstance(progress, bool):
        raise SimuloValueError(f"progress={progress!r}: expected True or False")
    if torch_threads is not None and not is_int(torch_threads, 1):
        raise SimuloValueError(f"torch_threads={torch_threads!r}: expected an integer >= 1 or None")
    if isinstance(hidden_layers, (str, bytes)) or not isinstance(hidden_layers, (tuple, list)) \
            or not hidden_layers or not all(is_int(h, 1) for h in hidden_layers):
        raise SimuloValueError(f"hidden_layers={hidden_layers!r}: expected a non-empty tuple of sizes >= 1")
    if debug_on_anomaly is not None and getattr(debug_on_anomaly, "enabled", True):
        raise NotImplementedError("debug_on_anomaly: anomaly capture is not implemented by the local trainer yet")


_POSITIVE_INTS = ("rollouts", "learning_epochs", "mini_batches")
_NON_NEGATIVE_INTS = ("random_timesteps", "learning_starts")
_UNIT = ("discount_factor", "lambda")
_NON_NEGATIVE = ("learning_rate", "grad_norm_clip", "ratio_clip", "value_clip", "entropy_loss_scale",
                 "value_loss_scale", "kl_threshold")
_BOOLS = ("clip_predicted_values", "time_limit_bootstrap", "mixed_precision")
_CALLABLES = ("learning_rate_scheduler", "state_preprocessor", "value_preprocessor", "rewards_shaper")
_KWARGS = ("learning_rate_scheduler_kwargs", "state_preprocessor_kwargs", "value_preprocessor_kwargs")


def check_agent_cfg(agent_cfg: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check an app's ``agent_cfg`` and return it merged over :data:`DEFAULTS` (a new dict).

    Args:
        agent_cfg: skrl PPO keys and values, or ``None``. Classes (preprocessors, schedulers) and callables
            (``rewards_shaper``, ``functools.partial`` included) are kept as given.

    Returns:
        The configuration: :data:`DEFAULTS`, then the app's keys; ``experiment`` merged key by key.

    Raises:
        SimuloValueError: ``agent_cfg`` is not a mapping, a key is unknown (the message lists the valid
            ones) or a value has the wrong type or range.
    """
    if agent_cfg is None:
        agent_cfg = {}
    if not isinstance(agent_cfg, Mapping):
        raise SimuloValueError(f"agent_cfg={agent_cfg!r}: expected a dict of skrl PPO settings or None")
    _refuse_unknown(agent_cfg, PPO_KEYS, "agent_cfg")
    experiment = agent_cfg.get("experiment", {})
    if not isinstance(experiment, Mapping):
        raise SimuloValueError(f"agent_cfg['experiment']={experiment!r}: expected a dict")
    _refuse_unknown(experiment, EXPERIMENT_KEYS, "agent_cfg['experiment']")
    cfg: dict[str, Any] = {**{k: _copy(v) for k, v in DEFAULTS.items()}, **dict(agent_cfg)}
    cfg["experiment"] = dict(experiment)
    for key in _POSITIVE_INTS:
        _check(cfg, key, is_int(cfg[key], 1), "an integer >= 1")
    for key in _NON_NEGATIVE_INTS:
        _check(cfg, key, cfg.get(key, 0) is None or is_int(cfg.get(key, 0), 0), "an integer >= 0")
    for key in _UNIT:
        _check(cfg, key, is_real(cfg[key]) and 0.0 <= float(cfg[key]) <= 1.0, "a number in [0, 1]")
    for key in _NON_NEGATIVE:
        if key in cfg:
            _check(cfg, key, is_real(cfg[key]) and float(cfg[key]) >= 0.0, "a number >= 0")
    for key in _BOOLS:
        if key in cfg:
            _check(cfg, key, isinstance(cfg[key], bool), "True or False")
    for key in _CALLABLES:
        if cfg.get(key) is not None:
            _check(cfg, key, callable(cfg[key]), "a class or callable, or None")
    for key in _KWARGS:
        if cfg.get(key) is not None:
            _check(cfg, key, isinstance(cfg[key], Mapping), "a dict of keyword arguments")
            cfg[key] = dict(cfg[key])
    return cfg


def describe_cfg(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``cfg`` as plain data (classes and callables by name), for checkpoints and reports."""
    return {key: _describe(value) for key, value in cfg.items()}


def _describe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_describe(v) for v in value]
    if isinstance(value, type) or callable(value):
        return _callable_name(value)
    return repr(value)


def _callable_name(value: Callable[..., Any] | type) -> str:
    func = getattr(value, "func", None)  # functools.partial
    if func is not None:
        return f"partial({_callable_name(func)})"
    module = getattr(value, "__module__", None)
    name = getattr(value, "__qualname__", None) or type(value).__qualname__
    return f"{module}.{name}" if module else str(name)


def _refuse_unknown(values: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
    unknown = sorted(str(k) for k in values if k not in known)
    if unknown:
        raise SimuloValueError(f"{where} has unknown key(s) {unknown}: the valid keys are {sorted(known)}")


def _check(cfg: Mapping[str, Any], key: str, ok: bool, expected: str) -> None:
    if not ok:
        raise SimuloValueError(f"agent_cfg[{key!r}]={cfg[key]!r}: expected {expected}")


def _copy(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else value
