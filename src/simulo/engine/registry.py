"""Engines by name: ``Simulation(scene, engine="pybullet")`` looks the name up here.

An engine is registered either as a ready :class:`~simulo.engine.base.EngineFactory` or as a
``"module:attribute"`` string that is imported on first use, so registering (and ``import simulo``)
never imports an engine. ``"pybullet"``, ``"mujoco"`` (the ``mujoco`` extra) and ``"mujoco_warp"`` (the ``gpu``
extra) are registered this way by default; an engine whose package is not installed raises
:class:`~simulo.errors.MissingDependencyError`, naming the install command, when it is first used.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from simulo.errors import SimuloValueError

if TYPE_CHECKING:  # the engine Protocols import numpy; naming an engine needs neither
    from simulo.engine.base import Engine, EngineFactory


class UnknownEngineError(SimuloValueError):
    """An engine name is not registered."""


#: Registered engines: a factory, or the ``"module:attribute"`` path of one not imported yet.
_ENGINES: dict[str, EngineFactory | str] = {"pybullet": "simulo.engine.pybullet.engine:PyBulletEngine",
                                            "mujoco": "simulo.engine.mujoco.engine:MuJoCoEngine",
                                            "mujoco_warp": "simulo.engine.mujoco_warp.engine:MuJoCoWarpEngine"}

#: External package -> the command that installs it, for the engines registered by default.
_ENGINE_PACKAGES = {"pybullet": "pip install 'pybullet>=3.2.5'", "mujoco": "pip install 'simulo-local[mujoco]'",
                    "mujoco_warp": "pip install 'simulo-local[gpu]'", "warp": "pip install 'simulo-local[gpu]'"}


#: Environment variable naming the engine used when a simulation does not name one.
ENGINE_VARIABLE = "SIMULO_ENGINE"

#: The engine used when neither the caller nor ``SIMULO_ENGINE`` names one.
DEFAULT_ENGINE = "pybullet"


def default_engine() -> str:
    """The engine a simulation uses when it names none: ``SIMULO_ENGINE`` if set (and not empty), else
    ``"pybullet"``.

    Raises:
        UnknownEngineError: ``SIMULO_ENGINE`` names no registered engine.
    """
    name = os.environ.get(ENGINE_VARIABLE, "").strip()
    if not name:
        return DEFAULT_ENGINE
    if name not in _ENGINES:
        raise UnknownEngineError(f"{ENGINE_VARIABLE}={name!r} names no registered engine; registered engines: "
                                 f"{available_engines()}")
    return name


def register_engine(name: str, factory: EngineFactory | str, *, replace: bool = False) -> None:
    """Make an engine available under ``name``.

    Args:
        name: The name ``Simulation(engine=...)`` takes.
        factory: The engine factory (usually the engine class), or ``"module:attribute"`` to import lazily.
        replace: Allow replacing an engine already registered under ``name``.

    Raises:
        SimuloValueError: ``name`` is not a non-empty string, or it is taken and ``replace`` is False.
    """
    if not isinstance(name, str) or not name:
        raise SimuloValueError(f"engine name must be a non-empty string, got {name!r}")
    if name in _ENGINES and not replace and _ENGINES[name] is not factory:
        raise SimuloValueError(f"engine {name!r} is already registered; pass replace=True to replace it")
    _ENGINES[name] = factory


def unregister_engine(name: str) -> None:
    """Remove the engine registered under ``name``.

    Raises:
        UnknownEngineError: Nothing is registered under ``name``.
    """
    _unknown_check(name)
    del _ENGINES[name]


def available_engines() -> list[str]:
    """The registered engine names, sorted."""
    return sorted(_ENGINES)


def _unknown_check(name: object) -> None:
    if not isinstance(name, str) or name not in _ENGINES:
        raise UnknownEngineError(f"unknown engine {name!r}; registered engines: {available_engines()}")


def engine_factory(name: str | None) -> EngineFactory:
    """The factory registered under ``name`` (imported now if it was registered by path); ``None``: the
    :func:`default_engine`.

    Raises:
        UnknownEngineError: Nothing is registered under ``name``.
        MissingDependencyError: The engine's package is not installed.
    """
    name = default_engine() if name is None else name
    _unknown_check(name)
    entry = _ENGINES[name]
    if isinstance(entry, str):
        module, _, attribute = entry.partition(":")
        try:
            imported = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            package = (exc.name or "").split(".")[0]
            if package not in _ENGINE_PACKAGES:
                raise
            from simulo._optional import missing_dependency  # noqa: PLC0415 (only for an engine not installed)

            raise missing_dependency(package, f"the {name!r} engine", package,
                                     _ENGINE_PACKAGES[package]) from exc
        entry = cast("EngineFactory", getattr(imported, attribute))
        _ENGINES[name] = entry
    return entry


def create_engine(name: str | None, num_envs: int, dt: float, gravity: Sequence[float] = (0.0, 0.0, -9.81),
                  envs_per_world: int | None = None, solver_iterations: int | None = None) -> Engine:
    """Build the engine registered under ``name``.

    Args:
        name: A registered engine name; ``None``: the :func:`default_engine`.
        num_envs: Number of environments.
        dt: Physics time step, s.
        gravity: Gravity vector, m/s².
        envs_per_world: Environments per world; ``None`` takes the engine's default.
        solver_iterations: Constraint-solver iterations, or ``None`` for the engine's default.

    Raises:
        UnknownEngineError: Nothing is registered under ``name``.
    """
    factory = engine_factory(name)
    per_world = factory.default_envs_per_world if envs_per_world is None else envs_per_world
    return factory(num_envs, dt, gravity, per_world, solver_iterations)
