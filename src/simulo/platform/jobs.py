"""Find the jobs of an app file.

A file's jobs are the ``@app.job`` functions bound to names in the file's namespace (declared there
or imported into it), plus jobs that functions defined in the file declared on an app it can see.
The file's folder goes first on ``sys.path``, so ``from task import app`` finds a sibling
``task.py``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from simulo.errors import JobError
from simulo.platform.app import App, JobFunction
from simulo.platform.discovery import discovery_mode
from simulo.platform.systems import JobType


@dataclass(frozen=True)
class JobFile:
    """An imported app file and its jobs, in declaration order.

    Attributes:
        path: The file.
        module: The imported module.
        jobs: Its jobs, in declaration order.
        assets: The ``simulo.Asset`` objects bound to names in the file or in the modules of its folder
            that it imported (``--strict-assets`` resolves them before the job starts).
    """

    path: Path
    module: ModuleType
    jobs: tuple[JobFunction, ...]
    assets: tuple[Any, ...] = ()

    def job_names(self) -> list[str]:
        """The names of the file's jobs."""
        return [job.spec.name for job in self.jobs]

    def select(self, name: str | None) -> JobFunction:
        """The job called ``name``, or the only job when ``name`` is ``None``.

        Raises:
            JobError: no job, several jobs and no name, or an unknown name; the message lists the jobs.
        """
        names = self.job_names()
        if not self.jobs:
            raise JobError(f"{self.path.name} declares no job; decorate a function with @app.job")
        if name is None:
            if len(self.jobs) == 1:
                return self.jobs[0]
            raise JobError(
                f"{self.path.name} declares {len(names)} jobs ({', '.join(names)}); choose one with --job NAME"
            )
        for job in self.jobs:
            if job.spec.name == name:
                return job
        raise JobError(f"{self.path.name} has no job {name!r}; its jobs are: {', '.join(names)}")


def check_runnable(job: JobFunction) -> None:
    """Refuse a job whose declaration cannot run.

    Raises:
        JobError: an eval job whose app does not have exactly one ``@app.success`` rule.
    """
    if job.spec.job_type is JobType.EVAL:
        rules = job.app.success_functions
        if len(rules) != 1:
            names = ", ".join(getattr(f, "__name__", repr(f)) for f in rules) or "none"
            raise JobError(
                f"eval job {job.spec.name!r} needs exactly one @app.success rule on app {job.app.name!r}; "
                f"found {len(rules)} ({names})"
            )


def _module_name(path: Path) -> str:
    return "_simulo_app_" + re.sub(r"\W", "_", path.stem)


def _from_dir(module: ModuleType, directory: Path) -> bool:
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return False
    try:
        return Path(file).resolve().is_relative_to(directory)
    except OSError:
        return False


def load_app_file(path: str | Path, *, discovery: bool) -> JobFile:
    """Import an app file and collect its jobs.

    Args:
        path: The ``.py`` file.
        discovery: Import in discovery mode (heavy imports in ``app.runtime.imports()`` are
            replaced by placeholders; see :mod:`simulo.platform.discovery`). Sibling modules the
            import loaded are then dropped from ``sys.modules`` again, so a later execution-mode
            import gets real ones.

    Raises:
        JobError: the file does not exist, is not Python, fails to import (the cause is chained) or
            calls ``sys.exit`` at import, or two of its jobs share a name.
    """
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise JobError(f"no such app file: {path}")
    if file.suffix != ".py":
        raise JobError(f"an app file is a Python file ending in .py, got {path}")
    folder = file.parent
    if str(folder) in sys.path:
        sys.path.remove(str(folder))
    sys.path.insert(0, str(folder))
    name = _module_name(file)
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise JobError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    before = set(sys.modules)
    sys.modules[name] = module
    assets: tuple[Any, ...] = ()
    try:
        if discovery:
            with discovery_mode():
                spec.loader.exec_module(module)
        else:
            spec.loader.exec_module(module)
        assets = _assets([module, *(sys.modules[m] for m in set(sys.modules) - before
                                     if _from_dir(sys.modules[m], folder))])
    except SystemExit as exc:
        sys.modules.pop(name, None)
        raise JobError(f"importing {file.name} exited the process (sys.exit({exc.code!r})); an app file must "
                       "not exit when imported") from None
    except Exception as exc:
        sys.modules.pop(name, None)
        raise JobError(f"importing {file.name} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        if discovery:
            for loaded in set(sys.modules) - before:
                if loaded != name and _from_dir(sys.modules[loaded], folder):
                    del sys.modules[loaded]
    return JobFile(file, module, _collect_jobs(module, file), assets)


def _assets(modules: list[ModuleType]) -> tuple[Any, ...]:
    """The distinct ``simulo.Asset`` values bound to names in ``modules``."""
    asset_module = sys.modules.get("simulo.authoring.asset")
    if asset_module is None:  # no asset was made
        return ()
    found: list[Any] = []
    for module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, asset_module.Asset) and all(value is not a for a in found):
                found.append(value)
    return tuple(found)


def _collect_jobs(module: ModuleType, file: Path) -> tuple[JobFunction, ...]:
    found: list[JobFunction] = []
    for value in list(vars(module).values()):
        if isinstance(value, JobFunction) and all(value.spec is not j.spec for j in found):
            found.append(value)
    for value in list(vars(module).values()):
        if isinstance(value, App):
            for spec in value.jobs.values():
                if spec.module == module.__name__ and all(spec is not j.spec for j in found):
                    found.append(JobFunction(value, spec))
    names = [job.spec.name for job in found]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise JobError(f"{file.name} has several jobs named {', '.join(duplicates)}; job names must be unique")
    return tuple(found)
