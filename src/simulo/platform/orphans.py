"""No orphans: simulo-local's own child processes die with their parent, even one killed with SIGKILL.

The parent puts its pid in the child's environment (:func:`child_environ`); the child, a Python entry
point of simulo-local (the discovery import, a job attempt), calls :func:`die_with_parent` first thing. On
Linux that asks the kernel for SIGKILL when the parent ends (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), then
checks that the parent is still the one named (it may have ended before the request), and ends at once if
not. The request is made in the child itself rather than in a ``preexec_fn``, which is not safe in a
parent that runs threads. Elsewhere, and when the variable is absent (a child started by hand), it does
nothing.

A detached run's background process is not tied to ``simulo run``: it is meant to outlive it. The attempts it
starts are tied to it. Processes a job starts itself are stopped with the attempt's process group on a timeout
or an interrupt; when the attempt is killed by this signal they are not (they would need the same request).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys

PARENT_PID_VARIABLE = "SIMULO_PARENT_PID"
"""Environment variable: the pid of the process the child must not outlive."""
_PR_SET_PDEATHSIG = 1


def child_environ(env: dict[str, str]) -> dict[str, str]:
    """``env`` with this process named as the parent the child must not outlive."""
    return {**env, PARENT_PID_VARIABLE: str(os.getpid())}


def die_with_parent() -> None:
    """End this process when its parent ends (Linux); end it now if the parent has already gone.

    Reads and removes :data:`PARENT_PID_VARIABLE`, so processes this one starts do not inherit it.
    """
    raw = os.environ.pop(PARENT_PID_VARIABLE, "")
    if not raw.isdigit() or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return
    if os.getppid() != int(raw):  # the parent ended before the request: nobody would send the signal
        os.kill(os.getpid(), signal.SIGKILL)
