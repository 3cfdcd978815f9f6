"""``simulo.Volume``: a named writable folder that jobs share, as the SDK's, kept on this computer.

A volume named ``NAME`` is the folder ``$SIMULO_VOLUMES_DIR/NAME`` (default: ``~/.local/share/simulo/volumes/
NAME``). ``simulo run`` prepares the volumes an app mounts (``simulo.App(..., mounts={"ckpt": volume})``)
before the job starts: it creates the folder of a volume declared with ``create_if_missing=True`` and refuses,
at once, a volume whose folder does not exist; the job process then finds the folder in
``SIMULO_VOLUME_<NAME>`` (the SDK's variable). :attr:`Volume.path` reads that variable, else the folder
itself, so a job function called in-process works too. While ``simulo run`` only lists jobs (discovery),
``path`` is not available, as in the SDK.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from simulo import errors
from simulo.errors import SimuloValueError
from simulo.platform.discovery import in_discovery_mode

__all__ = ["ENV_VOLUMES_DIR", "Volume", "volume_env_key", "volumes_root"]

ENV_VOLUMES_DIR = "SIMULO_VOLUMES_DIR"
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def volume_env_key(name: str) -> str:
    """The environment variable that carries the folder of the volume ``name`` (``SIMULO_VOLUME_<NAME>``)."""
    return "SIMULO_VOLUME_" + _NON_ALNUM.sub("_", name).strip("_").upper()


def volumes_root() -> Path:
    """Where volumes live: ``$SIMULO_VOLUMES_DIR``, else ``$XDG_DATA_HOME/simulo/volumes`` (``~/.local/share``)."""
    explicit = os.environ.get(ENV_VOLUMES_DIR)
    if explicit:
        return Path(explicit).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "simulo" / "volumes"


class Volume:
    """A named writable folder shared by the jobs that mount it.

    Args:
        name: Non-empty volume name.
        create_if_missing: Create the folder on first use instead of failing.

    Raises:
        SimuloValueError: ``name`` is empty or not a string.
    """

    def __init__(self, name: str, *, create_if_missing: bool = False) -> None:
        if not isinstance(name, str) or not name.strip():
            raise SimuloValueError(f"a Volume needs a non-empty name, got {name!r}")
        if _UNSAFE.sub("_", name).strip("._") == "":
            raise SimuloValueError(f"Volume name {name!r} has no letters or digits; expected e.g. 'checkpoints'")
        self._name = name
        self._create_if_missing = bool(create_if_missing)

    @classmethod
    def from_name(cls, name: str, *, create_if_missing: bool = False) -> Volume:
        """The volume called ``name`` (the SDK's constructor)."""
        return cls(name, create_if_missing=create_if_missing)

    @property
    def name(self) -> str:
        """The volume's name."""
        return self._name

    @property
    def create_if_missing(self) -> bool:
        """Whether the folder is created on first use instead of failing."""
        return self._create_if_missing

    @property
    def env_key(self) -> str:
        """The job-environment variable holding the volume's folder (``SIMULO_VOLUME_<NAME>``)."""
        return volume_env_key(self._name)

    @property
    def local_dir(self) -> Path:
        """The volume's folder on this computer (it may not exist yet)."""
        return volumes_root() / _UNSAFE.sub("_", self._name).strip("._")

    def prepare(self) -> Path:
        """The volume's folder, created when ``create_if_missing``.

        Raises:
            ResourceNotFoundError: The folder does not exist and ``create_if_missing`` is False.
        """
        folder = self.local_dir
        if not folder.is_dir():
            if not self._create_if_missing:
                raise errors.ResourceNotFoundError(
                    f"volume {self._name!r} does not exist (no folder {folder}); create the folder or declare "
                    f"simulo.Volume.from_name({self._name!r}, create_if_missing=True)"
                )
            folder.mkdir(parents=True, exist_ok=True)
        return folder

    @property
    def path(self) -> str:
        """The volume's folder, inside a running job.

        Raises:
            ResourceNotFoundError: While jobs are only being listed (discovery), or the folder does not
                exist and ``create_if_missing`` is False.
        """
        if in_discovery_mode():
            raise errors.ResourceNotFoundError(f"Volume {self._name!r}.path is available only inside a running job, "
                                        "not while simulo run lists the app's jobs")
        mounted = os.environ.get(volume_env_key(self._name))
        return mounted if mounted else str(self.prepare())

    def __repr__(self) -> str:
        return f"Volume({self._name!r}, create_if_missing={self._create_if_missing})"
