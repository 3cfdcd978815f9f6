"""``simulo.Runtime``: the runtime an app's jobs execute in, and its two authoring helpers.

Locally every job runs in the current Python environment: :meth:`Runtime.env` variables are set in
the job's process (before the app file is imported there), and :meth:`Runtime.pip_install` packages are
installed by ``simulo run`` into a cached folder per requirement set, which the job process gets on
``sys.path`` (never into the environment itself; see :mod:`simulo.platform.pip_cache`). The two helpers
that matter for lean imports are :meth:`Runtime.imports` and :meth:`Runtime.torch_jit`; see
:mod:`simulo.platform.discovery` for the two import modes.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, TypeVar

from simulo._optional import install_command
from simulo.errors import JobError, MissingDependencyError
from simulo.platform.discovery import DiscoveryImports, in_discovery_mode

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_RUNTIME_ID = "local"
_VERSION = r"[<>=!~]=?[^\s@/:,]+"
_PYPI_SPEC = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?\s*({_VERSION}(\s*,\s*{_VERSION})*)?$")


class _ExecutionImports:
    """``app.runtime.imports()`` in execution mode: imports run; a missing package says what to install."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if isinstance(exc, ImportError):
            missing = exc.name or str(exc)
            raise MissingDependencyError(
                f"this app imports {missing!r} inside app.runtime.imports(), but it is not installed in "
                f"{sys.executable}; install it ({install_command(missing)}) and run again"
            ) from exc


class _LazyTorchScript:
    """A function compiled with ``torch.jit.script`` on its first call (plain Python without torch)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._compiled: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._compiled is None:
            self._compiled = _script_or_plain(self._fn)
        return self._compiled(*args, **kwargs)


def _script_or_plain(fn: Callable[..., Any]) -> Callable[..., Any]:
    try:
        jit = importlib.import_module("torch.jit")
    except ModuleNotFoundError:
        return fn
    return jit.script(fn)


class Runtime:
    """The runtime of an app's jobs (``simulo.App(name, runtime=...)``).

    Args:
        runtime_id: The runtime's name; recorded only (cloud apps name e.g. ``"simulo/gpu-rl:2026.06"``).
    """

    def __init__(self, runtime_id: str) -> None:
        if not isinstance(runtime_id, str) or not runtime_id.strip():
            raise JobError(f"a runtime name must be a non-empty string, got {runtime_id!r}")
        self._runtime_id = runtime_id
        self._env: dict[str, str] = {}
        self._pip_layers: list[tuple[tuple[str, ...], bool]] = []
        self._discovery_blocks: list[DiscoveryImports] = []

    @classmethod
    def from_registry(cls, image: str) -> Runtime:
        """Name a runtime of the cloud catalog (recorded; jobs run in the current environment here)."""
        return cls(image)

    @property
    def runtime_id(self) -> str:
        """The runtime's name."""
        return self._runtime_id

    @property
    def runtime_env(self) -> Mapping[str, str]:
        """Environment variables set in every job's process (a copy)."""
        return dict(self._env)

    @property
    def pip_dependencies(self) -> list[dict[str, Any]]:
        """The :meth:`pip_install` layers, in call order: ``{"packages": [...], "pre": bool}`` each (a copy)."""
        return [{"packages": list(packages), "pre": pre} for packages, pre in self._pip_layers]

    @property
    def pip_layers(self) -> tuple[tuple[tuple[str, ...], bool], ...]:
        """The :meth:`pip_install` layers as ``(requirements, pre)`` pairs, in call order."""
        return tuple(self._pip_layers)

    @property
    def deferred_imports(self) -> tuple[str, ...]:
        """The modules ``app.runtime.imports()`` blocks imported while the app file was being discovered.

        Empty unless the file was imported in discovery mode (``simulo run`` checks that each is installed
        before it starts the job).
        """
        return tuple(name for block in self._discovery_blocks for name in block.placeheld)

    def env(self, variables: Mapping[str, str]) -> Runtime:
        """Set environment variables in every job's process; later calls win. Returns ``self``.

        Raises:
            JobError: a name or value is not a string.
        """
        bad = {k: v for k, v in dict(variables).items() if not isinstance(k, str) or not isinstance(v, str)}
        if bad:
            raise JobError(f"runtime env names and values must be strings, got {bad!r}")
        self._env.update(variables)
        return self

    def pip_install(self, *packages: str, pre: bool = False) -> Runtime:
        """Declare PyPI requirements (``"wandb==0.17.0"``) the app's jobs import. Returns ``self``.

        Each call is a layer, installed in call order. ``simulo run`` installs the layers into a cached folder
        (see :mod:`simulo.platform.pip_cache`) before the job starts; nothing is installed into this Python
        environment. A call without packages declares nothing.

        Args:
            *packages: Plain PyPI requirements: a name, optional extras and version specifiers.
            pre: Allow pre-release versions for this layer.

        Raises:
            JobError: a requirement is a URL, a path or not a plain PyPI specifier.
        """
        for spec in packages:
            if not isinstance(spec, str) or not _PYPI_SPEC.match(spec.strip()):
                raise JobError(f"pip_install takes plain PyPI requirements such as 'wandb==0.17.0', got {spec!r}")
        if packages:
            self._pip_layers.append((tuple(packages), bool(pre)))
        return self

    def imports(self) -> DiscoveryImports | _ExecutionImports:
        """Context manager around an app file's heavy imports (``with app.runtime.imports(): import torch``).

        In execution mode the imports run normally, and a missing package becomes a
        :class:`~simulo.errors.MissingDependencyError` that says what to install. In discovery mode
        (listing jobs) the block's imports of packages not already loaded are answered with placeholders, so torch
        is never loaded (see :mod:`simulo.platform.discovery`).
        """
        if in_discovery_mode():
            block = DiscoveryImports()
            self._discovery_blocks.append(block)
            return block
        return _ExecutionImports()

    def torch_jit(self, fn: F) -> F:
        """Mark a function for ``torch.jit.script`` (use in place of ``@torch.jit.script``).

        * Discovery mode: returns ``fn`` unchanged; nothing is imported.
        * Execution mode with torch already imported (the usual case: the app imported it in
          ``app.runtime.imports()``): scripted right away, so scripted functions can call each other.
        * Execution mode otherwise: scripted on the first call if torch can be imported then, or
          left as plain Python if torch is not installed.
        """
        if not callable(fn):
            raise JobError(f"@app.runtime.torch_jit decorates a function, got {fn!r}")
        if in_discovery_mode():
            return fn
        if "torch" in sys.modules:
            return _script_or_plain(fn)  # type: ignore[return-value]
        return _LazyTorchScript(fn)  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Runtime({self._runtime_id!r})"
