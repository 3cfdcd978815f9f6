"""What every Ray worker process of a job runs before it unpickles anything: the job's extra import folders.

A job's ``Runtime.pip_install`` packages live in a cached folder that the job process appends to ``sys.path``
(:mod:`simulo.platform.pip_cache`). Ray's worker processes are other interpreters, and a task shipped to them by
value is unpickled before any of its methods runs, so the folders must be on their ``sys.path`` from the start:
:class:`~simulo.scale.cluster.Cluster` passes them in :data:`JOB_PATH_VARIABLE` and names
:func:`extend_job_path` as Ray's ``worker_process_setup_hook``.
"""

from __future__ import annotations

import os
import sys

#: Environment variable holding the job's extra import folders, ``os.pathsep``-separated.
JOB_PATH_VARIABLE = "SIMULO_JOB_PYTHON_PATH"


def job_path() -> list[str]:
    """The folders named by :data:`JOB_PATH_VARIABLE` in this process's environment (none when unset)."""
    return [folder for folder in os.environ.get(JOB_PATH_VARIABLE, "").split(os.pathsep) if folder]


def extend_job_path() -> None:
    """Append the job's extra import folders to ``sys.path``, after the environment's own packages."""
    sys.path.extend(folder for folder in job_path() if folder not in sys.path)
