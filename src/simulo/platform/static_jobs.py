"""Read a job's declared app, name and timeout from an app file's text, without running it.

``simulo run`` bounds the import of an app file by the job's timeout (:mod:`simulo.platform.isolated_import`),
which it cannot learn by importing a file whose import never returns. :func:`declared_job` therefore reads the
file's syntax tree for the plain form of a declaration, at the file's top level::

    app = simulo.App("cartpole")          # or App("cartpole"), App(name="cartpole")

    @app.job(timeout=600, ...)            # a number literal
    def train(...): ...

Anything else (a computed name or timeout, a job declared in another module) gives ``None``: the import is then
bounded by the discovery limit alone.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DeclaredJob:
    """A job as its app file declares it.

    Attributes:
        app: The app's name.
        job: The job's name (its function's).
        timeout: Its timeout in seconds, or ``None`` (no limit, or not a number literal).
    """

    app: str
    job: str
    timeout: float | None


def _app_name(value: ast.expr) -> str | None:
    """The name of ``App("name")`` / ``x.App(name="name")``, else None."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called != "App":
        return None
    args = [*value.args[:1], *(k.value for k in value.keywords if k.arg == "name")]
    if len(args) == 1 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
        return args[0].value
    return None


def _timeout(decorator: ast.Call) -> float | None:
    for keyword in decorator.keywords:
        if keyword.arg == "timeout" and isinstance(keyword.value, ast.Constant):
            value = keyword.value.value
            if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < float("inf"):
                return float(value)
    return None


def _jobs(tree: ast.Module) -> list[DeclaredJob]:
    apps: dict[str, str] = {}
    jobs: list[DeclaredJob] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and (name := _app_name(node.value)) is not None:
            apps.update({t.id: name for t in node.targets if isinstance(t, ast.Name)})
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if (isinstance(target, ast.Attribute) and target.attr == "job" and isinstance(target.value, ast.Name)
                    and target.value.id in apps):
                timeout = _timeout(decorator) if isinstance(decorator, ast.Call) else None
                jobs.append(DeclaredJob(apps[target.value.id], node.name, timeout))
    return jobs


def declared_job(path: str | Path, name: str | None) -> DeclaredJob | None:
    """The job ``name`` (or the file's only job when ``name`` is None) as the file at ``path`` declares it.

    Returns:
        The declaration, or ``None`` when the file cannot be read or parsed, or does not declare that job in the
        plain form (see the module docstring).
    """
    try:
        tree = ast.parse(Path(path).read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    jobs = _jobs(tree)
    if name is None:
        return jobs[0] if len(jobs) == 1 else None
    chosen = [job for job in jobs if job.job == name]
    return chosen[0] if len(chosen) == 1 else None
