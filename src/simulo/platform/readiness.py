"""What ``simulo run`` checks and prepares before a job starts, so a run that cannot work fails at once.

A failure found here costs no run folder and no retry; it is one line from ``simulo run``:

* usage (:class:`~simulo.errors.JobError`, exit 2): a ``num_envs`` parameter below 1;
* the environment (exit 1): ``--workers``/``--address`` without Ray, an ``--address`` where nothing
  answers (:func:`simulo.scale.settings.probe_address`, seconds), a training job
  (``@app.job(type="train")``) without the ``train`` extra (torch and skrl, which ``simulo.RLTrainer`` needs),
  a package the app imports inside ``app.runtime.imports()`` that is not installed
  (:class:`~simulo.errors.MissingDependencyError`),
  ``Runtime.pip_install`` packages pip cannot install, a mounted volume that does not exist (the SDK's
  ``ResourceNotFoundError``), and under ``--strict-assets`` a registry asset that is not found or whose
  URDF has problems.

What it prepares: the ``pip_install`` folder (the job's extra ``sys.path``) and the mounted volumes'
folders (``SIMULO_VOLUME_<NAME>`` in the job's environment).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from simulo._optional import install_command
from simulo.errors import JobError, MissingDependencyError
from simulo.platform.app import JobFunction
from simulo.platform.jobs import JobFile
from simulo.platform.pip_cache import ensure_installed
from simulo.platform.systems import JobType
from simulo.scale.settings import ScaleSettings, probe_address


@dataclass(frozen=True)
class Prepared:
    """What a job's process needs besides the app's own runtime environment.

    Attributes:
        python_path: Folders to append to the job process's ``sys.path``.
        env: Environment variables for the job process.
    """

    python_path: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


def check_params(params: Mapping[str, Any]) -> None:
    """Refuse parameter values no job can run with.

    Raises:
        JobError: ``num_envs`` is below 1.
    """
    num_envs = params.get("num_envs")
    if isinstance(num_envs, int) and not isinstance(num_envs, bool) and num_envs < 1:
        raise JobError(f"--num-envs must be at least 1, got {num_envs}")


def _check_ray(scale: ScaleSettings) -> None:
    if scale.uses_ray and importlib.util.find_spec("ray") is None:
        raise MissingDependencyError(
            f"--workers {scale.workers}{f' --address {scale.address}' if scale.address else ''} runs the job's "
            f"environments on Ray, which is not installed in {sys.executable}; install it ({install_command('ray')}) "
            "or run without --workers"
        )


def _installed(module: str, extra_path: tuple[str, ...]) -> bool:
    top = module.partition(".")[0]
    if top in sys.modules:
        return True
    added = [p for p in extra_path if p not in sys.path]
    sys.path.extend(added)
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False
    finally:
        for path in added:
            sys.path.remove(path)


TRAIN_EXTRA = ("torch", "skrl")
"""The modules of the ``train`` extra, which a training job's ``simulo.RLTrainer`` needs."""


def _check_train_extra(job: JobFunction, extra_path: tuple[str, ...]) -> None:
    if job.spec.job_type is not JobType.TRAIN:
        return
    missing = [name for name in TRAIN_EXTRA if not _installed(name, extra_path)]
    if missing:
        raise MissingDependencyError(
            f"job {job.spec.name!r} is a training job (type=\"train\"), and simulo.RLTrainer needs "
            f"{' and '.join(missing)}, {'which is' if len(missing) == 1 else 'which are'} not installed in "
            f"{sys.executable}: pip install 'simulo-local[train]'"
        )


def _check_imports(job: JobFunction, extra_path: tuple[str, ...]) -> None:
    missing = sorted({name.partition(".")[0] for name in job.app.runtime.deferred_imports
                      if not _installed(name, extra_path)})
    if missing:
        hints = "; ".join(install_command(name) for name in missing)
        raise MissingDependencyError(
            f"this app imports {', '.join(repr(m) for m in missing)} inside app.runtime.imports(), but "
            f"{'it is' if len(missing) == 1 else 'they are'} not installed in {sys.executable}; install "
            f"({hints}) or declare it with app.runtime.pip_install(...)"
        )


def _check_pinned(job: JobFunction) -> None:
    from simulo.interfaces.platform import is_platform_pinned  # noqa: PLC0415 - the contract costs ~100 ms

    pinned = [spec for packages, _ in job.app.runtime.pip_layers for spec in packages if is_platform_pinned(spec)]
    if pinned:
        raise JobError(f"Runtime.pip_install({', '.join(repr(p) for p in pinned)}): the runtime provides "
                       f"{'this package' if len(pinned) == 1 else 'these packages'} itself (torch, numpy, simulo, "
                       "...), as in the Simulo cloud; remove it from pip_install")


def _volumes(job: JobFunction) -> tuple[tuple[str, str], ...]:
    volume_type = getattr(sys.modules.get("simulo.platform.volumes"), "Volume", None)
    if volume_type is None:
        return ()
    mounts = [v for v in job.app.mounts.values() if isinstance(v, volume_type)]
    return tuple((volume.env_key, str(volume.prepare())) for volume in mounts)


def _check_assets(job_file: JobFile) -> None:
    for asset in job_file.assets:
        asset.resolve()


def prepare(job: JobFunction, job_file: JobFile, scale: ScaleSettings, *, strict_assets: bool = False) -> Prepared:
    """Check that the job can start here and prepare what its process needs.

    Args:
        job: The job (its app file imported in discovery mode).
        job_file: The app file's jobs and the assets its import made.
        scale: ``--workers``/``--address``.
        strict_assets: Resolve every registry asset now (``--strict-assets``).

    Raises:
        JobError: A ``pip_install`` package is one the runtime provides.
        MissingDependencyError: Ray, the ``train`` extra of a training job, an imported package or a
            ``pip_install`` package is missing.
        WorkerError: Nothing answers at ``--address``.
        ResourceNotFoundError: A mounted volume does not exist.
        AssetError: Under ``strict_assets``, an asset is not found; UrdfError: its URDF has problems.
    """
    _check_ray(scale)
    probe_address(scale.address)  # an unreachable cluster fails here, in seconds, before a run folder is taken
    layers = job.app.runtime.pip_layers
    if layers:
        _check_pinned(job)
    folder = ensure_installed(layers)
    python_path = () if folder is None else (str(folder),)
    _check_train_extra(job, python_path)
    _check_imports(job, python_path)
    env = _volumes(job)
    if strict_assets:
        _check_assets(job_file)
    return Prepared(python_path, env)
