"""The packages of ``Runtime.pip_install``, installed into a cached folder per requirement set.

``simulo run`` installs an app's ``pip_install`` layers before the job starts, with
``python -m pip install --target FOLDER`` of the Python that runs the job, never into that Python's
own environment. The folder is ``CACHE/<key>``, where ``CACHE`` is ``$SIMULO_CACHE_DIR/pip`` (default:
``$XDG_CACHE_HOME/simulo/pip``, i.e. ``~/.cache/simulo/pip``) and ``key`` a hash of the normalised
requirement layers, the Python version and the platform; a folder that is complete (it holds
``.simulo-requirements.json``) is reused without running pip. The job process gets the folder at the
*end* of ``sys.path``, so a package the environment already has (torch, numpy, simulo) is always the
environment's own; pip's copies of those are never imported.

pip reads its usual settings from the environment (``PIP_INDEX_URL``, ``PIP_FIND_LINKS``,
``PIP_NO_INDEX``, ...), so a private mirror or an offline wheel folder works as it does for pip itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from simulo.errors import MissingDependencyError

ENV_CACHE_DIR = "SIMULO_CACHE_DIR"
COMPLETE = ".simulo-requirements.json"
_TAIL_LINES = 12


def cache_root() -> Path:
    """The pip cache folder: ``$SIMULO_CACHE_DIR/pip``, else ``$XDG_CACHE_HOME/simulo/pip`` (``~/.cache``)."""
    explicit = os.environ.get(ENV_CACHE_DIR)
    if explicit:
        return Path(explicit).expanduser() / "pip"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "simulo" / "pip"


def normalise(requirement: str) -> str:
    """A requirement without whitespace, its name lower-cased with ``-`` for ``_`` and ``.`` (PEP 503)."""
    text = re.sub(r"\s+", "", requirement)
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", text)
    if match is None:
        return text
    name = re.sub(r"[-_.]+", "-", match.group(0)).lower()
    return name + text[match.end():]


def _layers(layers: Sequence[tuple[tuple[str, ...], bool]]) -> list[dict[str, object]]:
    return [{"packages": sorted(normalise(p) for p in packages), "pre": pre} for packages, pre in layers]


def requirement_key(layers: Sequence[tuple[tuple[str, ...], bool]]) -> str:
    """The cache key of a requirement set: a hash of its normalised layers, the Python and the platform.

    Args:
        layers: ``(requirements, pre)`` per ``pip_install`` call, in call order.
    """
    identity = {"layers": _layers(layers), "python": sys.implementation.cache_tag, "platform": sysconfig.get_platform()}
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


def _pip(target: Path, packages: tuple[str, ...], pre: bool, upgrade: bool) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", "install", "--target", str(target), "--no-input",
               "--disable-pip-version-check", "--no-warn-script-location"]
    if pre:
        command.append("--pre")
    if upgrade:
        command.append("--upgrade")
    return subprocess.run([*command, *packages], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          check=False)


def ensure_installed(layers: Sequence[tuple[tuple[str, ...], bool]], stream: IO[str] | None = None) -> Path | None:
    """The folder holding the requirement set, installed with pip unless it is cached already.

    Args:
        layers: ``(requirements, pre)`` per ``pip_install`` call, in call order.
        stream: Where the one-line progress note goes (default: ``sys.stderr``).

    Returns:
        The folder, or None when there is nothing to install.

    Raises:
        MissingDependencyError: pip failed (the message names the requirements and ends with pip's own
            last lines), or the cache folder cannot be written.
    """
    if not any(packages for packages, _ in layers):
        return None
    out = stream if stream is not None else sys.stderr
    root = cache_root()
    folder = root / requirement_key(layers)
    if (folder / COMPLETE).is_file():
        return folder
    wanted = " ".join(p for packages, _ in layers for p in packages)
    print(f"simulo run: installing {wanted} for the job (pip install --target {folder}) ...", file=out, flush=True)
    staging = root / f".{folder.name}.{os.getpid()}.tmp"
    try:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for index, (packages, pre) in enumerate(layers):
            if not packages:
                continue
            done = _pip(staging, packages, pre, upgrade=index > 0)
            if done.returncode != 0:
                tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-_TAIL_LINES:])
                raise MissingDependencyError(
                    f"Runtime.pip_install could not install {' '.join(packages)} (pip exited with "
                    f"{done.returncode}); pip said:\n{tail}"
                )
        (staging / COMPLETE).write_text(json.dumps(_layers(layers), indent=2) + "\n", encoding="utf-8")
        try:
            os.replace(staging, folder)
        except OSError:
            if not (folder / COMPLETE).is_file():  # not another run that finished the same set first
                raise
    except OSError as exc:
        raise MissingDependencyError(f"Runtime.pip_install: cannot write the pip cache {root}: "
                                     f"{exc.strerror or exc}; set {ENV_CACHE_DIR} to a writable folder") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder
