"""``simulo.save_output``: keep a file the job produced with its run.

Inside ``simulo run`` the job registers files as it goes; when the job's function has returned, each
registered file is copied into the run's ``outputs/`` folder and listed in ``outputs.json``
(name, kind, the path it was registered from, the copy, its size). A run that fails or times out
publishes nothing, as in the cloud, where only a successful job's outputs are uploaded. ``simulo
outputs RUN`` lists them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulo._files import copy_atomically, write_atomically
from simulo.errors import NotInJobError, SimuloValueError

if TYPE_CHECKING:
    from simulo.interfaces.platform import OutputKind

#: The most files one run registers; later registrations are dropped (``save_output`` returns False).
MAX_OUTPUTS = 1000
OUTPUTS_DIR = "outputs"
OUTPUTS_FILE = "outputs.json"


class OutputRegistry:
    """The files one job attempt registered, published into its run folder when the job succeeds."""

    def __init__(self, run_dir: Path) -> None:
        self._run_dir = run_dir
        self.entries: list[dict[str, str]] = []

    def register(self, name: str, path: str, kind: str) -> bool:
        """Record one file; False when :data:`MAX_OUTPUTS` files are already registered."""
        if len(self.entries) >= MAX_OUTPUTS:
            return False
        self.entries.append({"name": name, "path": os.path.abspath(path), "kind": kind})
        return True

    def publish(self) -> list[dict[str, Any]]:
        """Copy the registered files into ``outputs/`` and write ``outputs.json``; returns its entries.

        A registered file that no longer exists is listed with ``"missing": true`` and reported on stderr. Each
        copy and ``outputs.json`` are written to a temporary file and renamed.

        Raises:
            RecordWriteError: A copy or ``outputs.json`` cannot be written (a full disk).
        """
        if not self.entries:
            return []
        folder = self._run_dir / OUTPUTS_DIR
        folder.mkdir(exist_ok=True)
        published: list[dict[str, Any]] = []
        for entry in self.entries:
            source = Path(entry["path"])
            if not source.is_file():
                print(f"simulo run: output {entry['name']!r}: {source} does not exist (not saved)", file=sys.stderr)
                published.append({**entry, "missing": True})
                continue
            target = folder / entry["name"]
            number = 1
            while target.exists():
                number += 1
                target = folder / f"{Path(entry['name']).stem}-{number}{Path(entry['name']).suffix}"
            copy_atomically(source, target, "output")
            published.append({**entry, "file": str(target.relative_to(self._run_dir)), "bytes": target.stat().st_size})
        write_atomically(self._run_dir / OUTPUTS_FILE, json.dumps(published, indent=2) + "\n", "outputs record")
        return published


_registry: ContextVar[OutputRegistry | None] = ContextVar("simulo_outputs", default=None)


@contextmanager
def collecting_outputs(run_dir: Path) -> Iterator[OutputRegistry]:
    """Inside the block, ``save_output`` registers into the returned registry (the job runner's use)."""
    registry = OutputRegistry(run_dir)
    token = _registry.set(registry)
    try:
        yield registry
    finally:
        _registry.reset(token)


def save_output(
    name: str, path: str | bytes | os.PathLike[str] | os.PathLike[bytes], kind: OutputKind | str = "file"
) -> bool:
    """Register a file the running job produced, to keep it with the run (the SDK's signature).

    Args:
        name: The output's file name: one safe name, never a path.
        path: The file (``str``, ``bytes`` or a path object).
        kind: An ``OutputKind`` or its value (``"file"``, ``"report"``, ``"dataset"``, ...).

    Returns:
        True when registered; False when the run already registered :data:`MAX_OUTPUTS` files.

    Raises:
        SimuloValueError: ``name`` is not a safe file name, ``path`` is not a usable path, or ``kind`` is
            not an output kind (checked by the SDK's ``Output``), before anything is registered.
        NotInJobError: Called outside a job run by ``simulo run``.
    """
    from simulo.interfaces.platform import Output  # noqa: PLC0415 - the contract costs ~100 ms to import

    if isinstance(path, (bytes, os.PathLike)):
        try:
            path = os.fsdecode(path)
        except Exception as exc:  # noqa: BLE001 - a broken __fspath__ is an unusable path
            raise SimuloValueError(f"save_output({name!r}, ...): cannot read a path from {path!r}: {exc}") from None
    try:
        output = Output(name=name, path=path, kind=kind)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise SimuloValueError(f"save_output({name!r}, {path!r}, kind={kind!r}): {exc}") from None
    registry = _registry.get()
    if registry is None:
        raise NotInJobError(f"simulo.save_output({name!r}, ...) keeps a file with the running job's run; call it "
                            "from a job run by `simulo run FILE` (not at import time or in a plain script)")
    return registry.register(output.name, str(output.path), str(output.kind))
