"""TorchScript functions of an app, carried to Ray workers as Python source and scripted again there.

An app marks its hot functions with ``@app.runtime.torch_jit`` (``torch.jit.script`` in a job). Its task goes
to the workers pickled by value (:func:`simulo.scale.cluster.ship_by_value`), and with it every module global its
methods use, scripted functions included; but ``torch.jit.ScriptFunction`` refuses to be pickled. So a scripted
function travels as the Python function it was compiled from (``ScriptFunction._torchdynamo_inline``), together
with its source lines, and the worker compiles it again with ``torch.jit.script``: the same TorchScript on both
sides, also on a machine that lacks the app's files (the lines are seeded into :mod:`linecache`, where
``inspect`` and TorchScript's parser find them).
"""

from __future__ import annotations

import copyreg
import linecache
import os
import sys
from collections.abc import Callable
from typing import Any

from simulo.errors import WorkerError


def carry_script_functions() -> None:
    """Let ``torch.jit.ScriptFunction`` objects be pickled for Ray's workers (a no-op while torch is not loaded)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        copyreg.pickle(torch.jit.ScriptFunction, reduce_script_function)


def reduce_script_function(scripted: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """The pickle reduction of a scripted function: its Python original and source, scripted again on load.

    Raises:
        WorkerError: ``scripted`` was not compiled from a Python function (e.g. it was loaded with ``torch.jit.load``).
    """
    original = getattr(scripted, "_torchdynamo_inline", None)
    if original is None or not hasattr(original, "__code__"):
        raise WorkerError(f"the TorchScript function {scripted!r} cannot go to the Ray workers: it was not compiled "
                          "from Python source by torch.jit.script (@app.runtime.torch_jit), so there is nothing to "
                          "compile again there")
    filename = original.__code__.co_filename
    return script_again, (original, filename, linecache.getlines(filename))


def script_again(original: Callable[..., Any], filename: str, lines: list[str]) -> Any:
    """Compile ``original`` with ``torch.jit.script`` in this process, from ``lines`` if its file is not here."""
    if lines and not os.path.exists(filename):
        linecache.cache[filename] = (sum(len(line) for line in lines), None, lines, filename)
    from torch import jit  # noqa: PLC0415 - torch is an optional extra; a scripted function implies it is installed

    return jit.script(original)
