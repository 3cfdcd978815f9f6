"""The process-wide speed settings of simulo's commands, in one place, each with the measurement that chose it.

The command line applies them: ``simulo pick-place`` runs with :func:`use_one_blas_thread` and, for a single
run, under a :class:`CollectorPause`; a command that ends its process calls :func:`freeze_heap` as it returns
(:mod:`simulo.cli.main`). Nothing here is imported by the library itself: an app run in its own program keeps
Python's and numpy's defaults.
"""

from __future__ import annotations

import gc
import os

#: The variable OpenBLAS (numpy's linear algebra) reads its thread count from when numpy loads.
BLAS_THREADS_VARIABLE = "OPENBLAS_NUM_THREADS"


def use_one_blas_thread() -> None:
    """Have numpy's OpenBLAS compute in the calling thread, unless the user set :data:`BLAS_THREADS_VARIABLE`.

    Call it before numpy loads, which reads the variable; the process's children (Ray workers) inherit it.
    """
    # The pick-and-place app's linear algebra is on vectors and matrices of 3 to 7 (per environment), where
    # OpenBLAS's pool of one thread per core only spins: on a 2-core machine `simulo pick-place` takes 367 ms of
    # CPU with one thread and 422 ms with the pool's two (median of 15 runs each; earlier, 0.25 against 0.35 CPU s).
    os.environ.setdefault(BLAS_THREADS_VARIABLE, "1")


class CollectorPause:
    """``with CollectorPause(pause):`` runs its block with Python's cyclic garbage collector paused, when ``pause``
    and the collector is running; reference counting frees everything as usual, and the collector runs again
    after the block.

    Args:
        pause: Whether to pause it: for a short run that leaves next to no cyclic garbage.
    """

    def __init__(self, pause: bool) -> None:
        self._paused = pause and gc.isenabled()

    def __enter__(self) -> None:
        # A single pick-and-place run leaves about 1,000 objects in cycles (--stack and --ik numeric included),
        # while its start-up (numpy, the contract, the cell) makes objects that all survive: the collector ran
        # 46 times in it for 7 ms of CPU (8.3 ms over 54 collections in all, against 1.3 ms over the 8 made before
        # the pause; median of 15 runs).
        if self._paused:
            gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self._paused:
            gc.enable()


def freeze_heap() -> None:
    """Move every object into the collector's permanent generation, which the interpreter's shutdown collections
    skip: for a process about to end, whose objects go back with it.

    Objects in reference cycles are then not finalized: call it only once everything written has been flushed or
    closed.
    """
    # The start-up's objects (modules, numpy, the engine) are otherwise collected one by one as the interpreter
    # ends: `simulo pick-place`'s process spends 7 ms of CPU after its command returns with the heap frozen,
    # 27 ms without (median of 15 runs, of about 370 ms in all).
    gc.freeze()
