"""Compatibility for :func:`simulo.scale.sweep.default_envs_per_world`, which imports the bound from here.

The PyBullet engine now lives in :mod:`simulo.engine.pybullet.engine` (worlds), ``articulation`` and
``rigid``; the bound is ``simulo.engine.registry.engine_factory("pybullet").default_envs_per_world``.
Delete this module once ``simulo.scale.sweep`` asks the registry.
"""

from simulo.engine.pybullet.engine import DEFAULT_ENVS_PER_WORLD, MAX_ENVS_PER_WORLD

__all__ = ["DEFAULT_ENVS_PER_WORLD", "MAX_ENVS_PER_WORLD"]
