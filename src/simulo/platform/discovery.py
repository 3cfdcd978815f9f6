"""Discovery mode: import an app file to read its jobs without loading heavy libraries.

An app file is imported in one of two modes:

* **execution** (the default everywhere): the file is imported to run a job, and
  ``with app.runtime.imports():`` blocks import for real.
* **discovery** (inside :func:`discovery_mode`, used by ``simulo run --list`` and by the parent
  process of ``simulo run``, which only needs the jobs' signatures): inside an
  ``app.runtime.imports()`` block, every import of a package that is neither already loaded nor part
  of the standard library is answered with a placeholder module instead of the real one. So
  ``import torch`` in that block costs nothing and ``torch`` never enters ``sys.modules``; names
  taken from the placeholder (``torch.Tensor`` in an annotation, ``torch.nn.Module`` as a base class)
  are placeholders too. The placeholders are removed from ``sys.modules`` when the block ends.

The mode is process-wide state; the job itself always runs in a fresh child process in execution
mode.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType, TracebackType
from typing import Any

_discovery_depth = 0


@contextmanager
def discovery_mode() -> Iterator[None]:
    """Import app files inside this block in discovery mode (see the module docstring)."""
    global _discovery_depth
    _discovery_depth += 1
    try:
        yield
    finally:
        _discovery_depth -= 1


def in_discovery_mode() -> bool:
    """Whether app files are being imported in discovery mode right now."""
    return _discovery_depth > 0


class Placeholder:
    """Stands in for any name taken from a placeholder module during discovery.

    Attribute access, calls, subscripts and ``|`` give further placeholders, and a class may use it
    as a base (it then derives from ``object``), so module-level code such as annotations, type
    aliases and class statements runs without the real library.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, item: str) -> Placeholder:
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        return Placeholder(f"{self._name}.{item}")

    def __call__(self, *args: Any, **kwargs: Any) -> Placeholder:
        return Placeholder(f"{self._name}(...)")

    def __getitem__(self, item: Any) -> Placeholder:
        return Placeholder(f"{self._name}[...]")

    def __or__(self, other: Any) -> Placeholder:
        return Placeholder(f"{self._name} | ...")

    def __ror__(self, other: Any) -> Placeholder:
        return Placeholder(f"... | {self._name}")

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (object,)

    def __repr__(self) -> str:
        return f"<discovery placeholder {self._name}>"


class _PlaceholderModule(ModuleType):
    def __getattr__(self, item: str) -> Placeholder:
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        return Placeholder(f"{self.__name__}.{item}")


class _PlaceholderLoader(Loader):
    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = _PlaceholderModule(spec.name)
        module.__path__ = []  # a package, so ``import torch.nn`` comes back here
        return module

    def exec_module(self, module: ModuleType) -> None:
        return None


class _PlaceholderFinder(MetaPathFinder):
    """Answers imports of not-yet-loaded, non-standard-library packages with placeholders."""

    def __init__(self) -> None:
        self.created: list[str] = []
        self._loader = _PlaceholderLoader()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        top = fullname.partition(".")[0]
        if top in sys.stdlib_module_names:
            return None
        if top in sys.modules and not isinstance(sys.modules[top], _PlaceholderModule):
            return None  # a real package that is already loaded (simulo itself, numpy if loaded)
        self.created.append(fullname)
        return ModuleSpec(fullname, self._loader, is_package=True)


class DiscoveryImports:
    """The context manager behind ``app.runtime.imports()`` in discovery mode."""

    def __init__(self) -> None:
        self._finder: _PlaceholderFinder | None = None
        #: The modules the block imported that got placeholders (known once the block has ended).
        self.placeheld: tuple[str, ...] = ()

    def __enter__(self) -> None:
        self._finder = _PlaceholderFinder()
        sys.meta_path.insert(0, self._finder)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        finder, self._finder = self._finder, None
        if finder is None:
            return
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
        self.placeheld = tuple(finder.created)
        for name in finder.created:
            sys.modules.pop(name, None)
