"""The one error hierarchy of simulo-local.

Every error a user can cause derives from :class:`SimuloError`. Subclasses also derive from the
matching built-in (``ValueError``, ``LookupError``, ``RuntimeError``) so that generic handlers keep
working. Messages name the bad value and what was expected.
"""

from __future__ import annotations


class SimuloError(Exception):
    """Base class of every error raised by simulo-local for bad input or bad state."""


class SimuloValueError(SimuloError, ValueError):
    """A value has the wrong type, shape, range or content."""


class ShapeError(SimuloValueError):
    """A tensor argument has the wrong shape."""


class EnvIdError(SimuloValueError):
    """``env_ids`` are out of range, repeated, or not integers."""


class NonFiniteError(SimuloValueError):
    """A command contains NaN or infinity."""


class NameNotFoundError(SimuloError, LookupError):
    """A joint, body, item or job name (or pattern) matched nothing."""

    def __str__(self) -> str:  # LookupError would repr() the message
        return str(self.args[0]) if self.args else ""


class NotAttachedError(SimuloError, RuntimeError, AttributeError):
    """A runtime member was used before the simulation attached the object.

    It is also an ``AttributeError`` so that ``hasattr`` (and hence ``isinstance`` checks against
    ``runtime_checkable`` Protocols on Python < 3.12) answers False instead of raising.
    """


class UrdfError(SimuloValueError):
    """A URDF document is malformed or unsafe. ``problems`` lists every issue found."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{source}: {len(self.problems)} problem(s) in URDF:\n{lines}")


class AssetError(SimuloValueError):
    """An asset reference cannot be resolved or is of a kind this engine cannot load."""


class SceneError(SimuloValueError):
    """A scene is built or used inconsistently."""


class UnreachableError(SimuloValueError):
    """A Cartesian target lies outside the workspace of an inverse-kinematics solver."""


class CollisionError(SimuloError):
    """A planned motion would collide with the floor or a known fixture."""


class TaskError(SimuloError):
    """A task method failed or returned values that break the task contract."""


class JobError(SimuloError):
    """A job file, job definition or job parameter is invalid, or a job failed."""


class MissingDependencyError(SimuloError, ImportError):
    """An optional dependency (an extra such as ``simulo-local[train]``) is not installed."""


class WorkerError(SimuloError, RuntimeError):
    """A Ray worker running part of a sweep or of a batch of environments died, and its work was lost."""
