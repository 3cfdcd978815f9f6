"""Connecting to Ray, and shipping the app's own modules to its workers.

* :func:`require_ray` imports Ray or explains how to install the extra.
* :class:`Cluster` is a use of Ray: it connects to the cluster at an address, or starts a local one
  with ``workers`` CPUs, or reuses a Ray session the process already has (tests do
  ``ray.init(num_cpus=2)`` themselves). Only the :class:`Cluster` that started Ray shuts it down.
  Before connecting it probes the address (:func:`simulo.scale.settings.probe_address`: one TCP connect
  of at most 5 s), and Ray tries to reach the cluster's GCS once (:data:`RAY_CONNECT_ATTEMPTS`) instead
  of 20 times: about 40 s at worst instead of Ray's 14 minutes.
* :func:`ship_by_value` makes the modules that define a task or a shard function travel with it (by
  value), so workers on other machines need only ``simulo-local`` installed, not the app's files.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import sysconfig
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from simulo._optional import require
from simulo.errors import SimuloValueError, WorkerError
from simulo.scale.settings import check_address, check_workers, probe_address
from simulo.scale.torchscript import carry_script_functions
from simulo.scale.worker_setup import JOB_PATH_VARIABLE, extend_job_path, job_path

RAY_CONNECT_ATTEMPTS = "1"
"""Attempts Ray makes to reach a cluster's GCS (``RAY_gcs_server_port_wait_time_s``; Ray's default is 20)."""
_RAY_WAIT_VARIABLE = "RAY_gcs_server_port_wait_time_s"


@contextlib.contextmanager
def _short_ray_connect() -> Iterator[None]:
    """Ray tries an address's GCS :data:`RAY_CONNECT_ATTEMPTS` times, unless the variable is already set."""
    if _RAY_WAIT_VARIABLE in os.environ:
        yield
        return
    os.environ[_RAY_WAIT_VARIABLE] = RAY_CONNECT_ATTEMPTS
    try:
        yield
    finally:
        os.environ.pop(_RAY_WAIT_VARIABLE, None)


def require_ray(feature: str = "--workers/--address") -> types.ModuleType:
    """Import and return ``ray``, or explain how to install it.

    Raises:
        MissingDependencyError: Ray is not installed.
    """
    return require("ray", feature)


class Cluster:
    """One use of a Ray cluster; :meth:`close` shuts Ray down only if this object started it.

    Args:
        workers: Workers wanted; a local cluster is started with this many CPUs.
        address: An existing cluster's address (``HOST:6379``, ``ray://HOST:10001`` or ``auto``), or
            ``None`` for a local cluster.

    Raises:
        SimuloValueError: A bad ``workers`` or ``address`` (including one Ray cannot parse).
        WorkerError: No Ray cluster answers at ``address`` (nothing listens there: within 10 s).
        MissingDependencyError: Ray is not installed.
    """

    def __init__(self, workers: int, address: str | None = None) -> None:
        self.workers = check_workers(workers)
        self.address = check_address(address)
        self.ray = require_ray()
        self.started = False
        if self.ray.is_initialized():
            return
        options: dict[str, Any] = {"logging_level": logging.WARNING}
        folders = job_path()
        if folders:  # the job's pip_install folders, on every worker's sys.path before it unpickles a task
            options["runtime_env"] = {"env_vars": {JOB_PATH_VARIABLE: os.pathsep.join(folders)},
                                      "worker_process_setup_hook": f"{extend_job_path.__module__}.extend_job_path"}
        if address is not None:
            probe_address(address)
            try:
                with _short_ray_connect():
                    self.ray.init(address=address, **options)
            except ValueError as exc:
                raise SimuloValueError(f"address {address!r} is not a Ray address ({exc}); expected 'HOST:6379', "
                                       "'ray://HOST:10001' or 'auto'") from exc
            except ConnectionError as exc:
                raise WorkerError(f"cannot reach a Ray cluster at {address!r}: {exc}") from exc
        else:
            self.ray.init(num_cpus=workers, include_dashboard=False, **options)
        self.started = True

    def close(self) -> None:
        """Shut Ray down if this object started it (idempotent)."""
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()
        self.started = False

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _installed(path: Path) -> bool:
    """Whether a module file belongs to the interpreter or an installed distribution."""
    roots = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    if any(part in ("site-packages", "dist-packages") for part in path.parts):
        return True
    return any(path.is_relative_to(Path(root).resolve()) for root in roots)


def _module_name(obj: Any) -> str:
    """The module that defines ``obj``: a class or function's own, an instance's class's."""
    if isinstance(obj, functools.partial):
        obj = obj.func
    if isinstance(obj, (type, types.FunctionType, types.MethodType)):
        return str(obj.__module__)
    return type(obj).__module__


def ship_by_value(obj: Any) -> list[str]:
    """Pickle the app modules ``obj`` comes from by value when it goes to Ray workers.

    The module defining ``obj`` (its class for instances, or the function itself), and every module
    loaded from the same folder, are registered with Ray's cloudpickle, unless they belong to
    ``simulo`` or to an installed distribution. ``__main__`` is pickled by value anyway.

    Their TorchScript functions travel as source and are compiled again on the workers
    (:mod:`simulo.scale.torchscript`).

    Returns:
        The names of the modules registered.
    """
    from ray import cloudpickle  # noqa: PLC0415 - Ray is optional

    carry_script_functions()

    owner = _module_name(obj)
    module = sys.modules.get(owner)
    file = getattr(module, "__file__", None)
    if module is None or owner == "__main__" or owner.split(".")[0] == "simulo" or not file:
        return []
    folder = Path(file).resolve().parent
    if _installed(Path(file).resolve()):
        return []
    shipped = []
    for name, loaded in sorted(sys.modules.items()):
        path = getattr(loaded, "__file__", None)
        if not path or name == "__main__" or name.split(".")[0] == "simulo":
            continue
        try:
            inside = Path(path).resolve().parent == folder
        except OSError:
            continue
        if inside:
            cloudpickle.register_pickle_by_value(loaded)
            shipped.append(name)
    return shipped
