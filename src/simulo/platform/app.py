"""``simulo.App`` and ``@app.job``: declare the jobs of an app file.

::

    app = simulo.App("cartpole")

    @app.job(type="train", system=simulo.SystemType.TIER_1, timeout=600, retries=2)
    def train(num_envs: int = 16, max_iterations: int = 2) -> dict:
        ...

Declaring a job records metadata and never runs the body. ``simulo run FILE --num-envs 64`` runs it
(see :mod:`simulo.cli.run`); calling the decorated function runs the body in-process, as if it were
not decorated.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from simulo.checks import is_int, is_real
from simulo.errors import JobError
from simulo.platform.context import running
from simulo.platform.runtime import DEFAULT_RUNTIME_ID, Runtime
from simulo.platform.systems import JobType, SystemType

F = TypeVar("F", bound=Callable[..., Any])

_CALLBACK_HOOKS = ("on_job_start", "on_checkpoint", "on_anomaly", "on_job_end")
#: Keywords the SDK reserves and refuses: outputs are declared by callbacks, inputs come from ``--from``.
_RESERVED = {
    "produces": "outputs are not declared on the decorator; return small JSON values, or write files to a volume",
    "consumes": "it is reserved by the SDK; start from a checkpoint with simulo run FILE --from POLICY:KIND",
}


@dataclass(frozen=True)
class JobSpec:
    """What ``@app.job`` recorded about one job.

    Attributes:
        name: The function's name; ``simulo run --job NAME`` selects it.
        fn: The undecorated function.
        job_type: ``type=``, or ``None`` for a bare ``@app.job``.
        timeout: Seconds all attempts together may run, or ``None`` for no limit.
        retries: How many times a failed job is run again (resuming from its latest checkpoint).
        system: The requested system tier (metadata only here).
        gpu: The requested GPU, as given (metadata only here: jobs run on the CPU).
        callbacks: Objects with optional hooks ``on_job_start(job_id)``, ``on_job_end(job_id, status)``,
            ``on_checkpoint(path, step)``, ``on_anomaly(detail)``.
        resources: The other ``@app.job`` keywords, recorded verbatim as the SDK's resource spec records
            them (metadata only here).
    """

    name: str
    fn: Callable[..., Any]
    job_type: JobType | None = None
    timeout: float | None = None
    retries: int = 0
    system: SystemType | None = None
    gpu: str | int | None = None
    callbacks: tuple[Any, ...] = field(default_factory=tuple)
    resources: Mapping[str, Any] = field(default_factory=dict)

    @property
    def module(self) -> str:
        """The module that defines the job's function."""
        return str(getattr(self.fn, "__module__", ""))


class JobFunction:
    """What ``@app.job`` returns: the function, wrapped. Calling it runs the body in-process."""

    def __init__(self, app: App, spec: JobSpec) -> None:
        functools.update_wrapper(self, spec.fn)
        self._app = app
        self._spec = spec

    @property
    def app(self) -> App:
        """The app that declared this job."""
        return self._app

    @property
    def spec(self) -> JobSpec:
        """The recorded job metadata."""
        return self._spec

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the job body in this process (``current_app()`` is the job's app meanwhile)."""
        with running(self._app):
            return self._spec.fn(*args, **kwargs)

    def spawn(self, **kwargs: Any) -> Any:
        """Not available locally: submitting to the Simulo cloud is not part of simulo-local."""
        raise NotImplementedError(
            f"{self._spec.name}.spawn() submits to the Simulo cloud, which simulo-local does not do; "
            f"run the job locally with: simulo run FILE --job {self._spec.name}"
        )

    submit = spawn

    def __repr__(self) -> str:
        return f"<job {self._spec.name!r} of app {self._app.name!r}>"


def _check_type(value: Any) -> JobType | None:
    if value is None or isinstance(value, JobType):
        return value
    try:
        return JobType(value)
    except ValueError:
        valid = ", ".join(repr(t.value) for t in JobType)
        raise JobError(f"@app.job(type={value!r}) is not a job type; expected one of {valid}") from None


def _check_system(value: Any) -> SystemType | None:
    if value is None or isinstance(value, SystemType):
        return value
    if isinstance(value, str):
        for member in SystemType:
            if value in (member.value, member.name):
                return member
    valid = ", ".join(f"simulo.SystemType.{m.name}" for m in SystemType)
    raise JobError(f"@app.job(system={value!r}) is not a system tier; expected one of {valid}")


def _check_timeout(value: Any) -> float | None:
    if value is None:
        return None
    if not is_real(value, 0, low_open=True, finite=False):
        raise JobError(f"@app.job(timeout={value!r}) must be a positive number of seconds, or None for no limit")
    return value


def _check_retries(value: Any) -> int:
    if not is_int(value, 0):
        raise JobError(f"@app.job(retries={value!r}) must be a whole number >= 0")
    return value


def _check_gpu(value: Any) -> str | int | None:
    if value is None or (isinstance(value, (str, int)) and not isinstance(value, bool)):
        return value
    raise JobError(f"@app.job(gpu={value!r}) must be a GPU name such as 'T4', a GPU count, or None")


def _check_callbacks(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise JobError(f"@app.job(callbacks={value!r}) must be a list of callback objects")
    for callback in value:
        if isinstance(callback, type) or not any(callable(getattr(callback, h, None)) for h in _CALLBACK_HOOKS):
            raise JobError(
                f"callback {callback!r} has none of the hooks {', '.join(_CALLBACK_HOOKS)}; "
                "pass an instance of a callback class"
            )
    return tuple(value)


class App:
    """A named set of jobs. Declare one at module scope: ``app = simulo.App("cartpole")``.

    Args:
        name: Non-empty app name; ``simulo run`` keeps results under ``runs/<name>/``.
        runtime: A :class:`~simulo.platform.runtime.Runtime`; each app gets its own by default.
        mounts: Assets or volumes by mount name (recorded; local jobs read files directly).

    Raises:
        JobError: ``name`` is empty or not a string, or ``runtime`` is not a Runtime.
    """

    def __init__(self, name: str, *, runtime: Runtime | None = None, mounts: Mapping[str, Any] | None = None) -> None:
        if not isinstance(name, str) or not name.strip():
            raise JobError(f"an App needs a non-empty name, got {name!r}")
        if runtime is not None and not isinstance(runtime, Runtime):
            raise JobError(f"App(runtime=...) must be a simulo.Runtime, got {runtime!r}")
        self._name = name
        self._runtime = runtime if runtime is not None else Runtime(DEFAULT_RUNTIME_ID)
        self._mounts = dict(mounts or {})
        self._jobs: dict[str, JobSpec] = {}
        self._success: list[Callable[..., Any]] = []

    @property
    def name(self) -> str:
        """The app's name."""
        return self._name

    @property
    def runtime(self) -> Runtime:
        """The runtime of the app's jobs; ``app.runtime.imports()`` and ``@app.runtime.torch_jit`` live here."""
        return self._runtime

    @property
    def mounts(self) -> Mapping[str, Any]:
        """The declared mounts (a copy)."""
        return dict(self._mounts)

    @property
    def jobs(self) -> Mapping[str, JobSpec]:
        """The declared jobs by name (a copy), in declaration order."""
        return dict(self._jobs)

    @property
    def success_functions(self) -> tuple[Callable[..., Any], ...]:
        """The ``@app.success`` rules, in declaration order."""
        return tuple(self._success)

    @property
    def job_declarations(self) -> tuple[tuple[str, JobSpec], ...]:
        """Every ``@app.job`` declaration as ``(name, spec)``, in declaration order.

        The SDK lists duplicate function names here too; simulo-local refuses a second job of the same name
        when it is declared, so each name appears once.
        """
        return tuple(self._jobs.items())

    @overload
    def job(self, fn: F, *, type: JobType | str | None = None, callbacks: Sequence[Any] = (),
            system: SystemType | str | None = None, timeout: float | None = None, retries: int = 0,
            **extra: Any) -> JobFunction: ...

    @overload
    def job(self, fn: None = None, *, type: JobType | str | None = None, callbacks: Sequence[Any] = (),
            system: SystemType | str | None = None, timeout: float | None = None, retries: int = 0,
            **extra: Any) -> Callable[[F], JobFunction]: ...

    def job(self, fn: Callable[..., Any] | None = None, *, type: JobType | str | None = None,
            callbacks: Sequence[Any] = (), system: SystemType | str | None = None, timeout: float | None = None,
            retries: int = 0, **extra: Any) -> Any:
        """Declare a job: ``@app.job``, ``@app.job(type="train", ...)`` or ``app.job(fn, type="train")``.

        Args:
            fn: The function (bare-decorator form).
            type: ``"preview"``, ``"train"``, ``"eval"``, ``"play"`` or a
                :class:`~simulo.platform.systems.JobType`; ``None`` (simulo-local only) leaves the job untyped.
            callbacks: Objects with lifecycle hooks (see :class:`JobSpec`).
            system: A :class:`~simulo.platform.systems.SystemType` (or its name or value); metadata here.
            timeout: Positive seconds all attempts together may run, or ``None`` for no limit.
            retries: How many times a failed job runs again (an int >= 0).
            **extra: Recorded verbatim as :attr:`JobSpec.resources`, as the SDK records them; ``gpu`` (a GPU name
                or count) is also kept as :attr:`JobSpec.gpu`. ``produces`` and ``consumes`` are refused, as
                the SDK refuses them.

        Returns:
            A :class:`JobFunction`, or a decorator that makes one.

        Raises:
            JobError: a bad option value, a reserved keyword, a non-function, or a second job with the same name.
        """
        for name, why in _RESERVED.items():
            if name in extra:
                raise JobError(f"@app.job({name}=...) is not supported: {why}")
        job_type = _check_type(type)
        checked_timeout = _check_timeout(timeout)
        checked_retries = _check_retries(retries)
        checked_system = _check_system(system)
        gpu = _check_gpu(extra.get("gpu"))
        checked_callbacks = _check_callbacks(callbacks)
        resources = dict(extra)

        def decorate(func: Callable[..., Any]) -> JobFunction:
            if not inspect.isfunction(func):
                raise JobError(f"@app.job decorates a function defined with def, got {func!r}")
            if func.__name__ in self._jobs:
                raise JobError(f"app {self._name!r} already has a job named {func.__name__!r}; rename one of them")
            spec = JobSpec(func.__name__, func, job_type, checked_timeout, checked_retries, checked_system, gpu,
                           checked_callbacks, resources)
            self._jobs[spec.name] = spec
            return JobFunction(self, spec)

        if fn is not None:
            return decorate(fn)
        return decorate

    def success(self, fn: F) -> F:
        """Register an evaluation success rule and return it unchanged.

        A rule is called by ``simulo.evaluate`` on the step each episode ends, with the task; it
        records named checks with ``task.check(label, mask)`` and returns the per-environment
        success mask (``lasted & upright``). An eval job's app must have exactly one.

        Raises:
            JobError: ``fn`` is not callable.
        """
        if not callable(fn):
            raise JobError(f"@app.success decorates a function taking the task, got {fn!r}")
        self._success.append(fn)
        return fn

    def __repr__(self) -> str:
        return f"App({self._name!r}, jobs={list(self._jobs)})"
