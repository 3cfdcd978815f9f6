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


class UsdError(AssetError):
    """A USD file's physics cannot be loaded. ``problems`` lists every issue found, each naming its prim."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{source}: {len(self.problems)} problem(s) in USD:\n{lines}")


class SizeLimitError(AssetError):
    """A file or model is larger than the limits of ``docs/limits.md`` (refused before it is read or loaded)."""


class SceneError(SimuloValueError):
    """A scene is built or used inconsistently."""


class UnreachableError(SimuloValueError):
    """A Cartesian target lies outside the workspace of an inverse-kinematics solver."""


class CollisionError(SimuloError):
    """A planned motion would collide with the floor or a known fixture."""


class TaskError(SimuloError):
    """A task method failed or returned values that break the task contract."""


class TaskNonFiniteError(TaskError, NonFiniteError):
    """A task method returned NaN or infinity (a ``TaskError`` that the job's ``on_anomaly`` hears of)."""


class JobError(SimuloError):
    """A job file, job definition or job parameter is invalid, or a job failed."""


class MissingDependencyError(SimuloError, ImportError):
    """An optional dependency (an extra such as ``simulo-local[train]``) is not installed."""


class WorkerError(SimuloError, RuntimeError):
    """A Ray worker running part of a sweep or of a batch of environments died, and its work was lost."""


class NotInJobError(SimuloError, RuntimeError):
    """A function that needs a running job (``simulo.save_output``) was called outside ``simulo run``."""


class RecordWriteError(SimuloError, OSError):
    """A run record, checkpoint or recording could not be written (a full disk, a read-only folder).

    The file it names holds what it held before the write (see :mod:`simulo._files`).
    """


# The SDK's error names (simulo-interfaces' ``simulo.interfaces.exceptions``). simulo-local raises them as
# subclasses of both its own SimuloError and the SDK's class, so ``except simulo.JobFailedError`` (the SDK's
# class) and ``except simulo.SimuloError`` both catch them. They are made on first use: importing the SDK's
# package costs ~100 ms, which ``import simulo.errors`` must not pay.
_SDK_ERRORS: dict[str, str] = {
    "ContractViolationError": "An object does not satisfy a contract of the SDK (its Protocols).",
    "ImportResolutionError": "A name imported inside ``app.runtime.imports()`` was used while only listing jobs.",
    "ResourceNotFoundError": "A named resource (a volume, a registry asset) cannot be found.",
    "ResumeIncompatibleError": "A checkpoint does not fit the job that would resume from it.",
    "JobFailedError": "A job ended failed (after its retries).",
}


def __getattr__(name: str) -> type[SimuloError]:
    doc = _SDK_ERRORS.get(name)
    if doc is None:
        raise AttributeError(f"module 'simulo.errors' has no attribute {name!r}")
    import importlib  # noqa: PLC0415

    sdk_class = getattr(importlib.import_module("simulo.interfaces.exceptions"), name)
    made = type(name, (SimuloError, sdk_class), {"__doc__": doc, "__module__": __name__})
    globals()[name] = made
    return made
