"""How many Ray workers a run uses, and which cluster: read without importing Ray.

``simulo run FILE --workers N --address ADDR`` exports the choice to the job process as the environment
variables :data:`ENV_WORKERS` and :data:`ENV_ADDRESS`; :func:`current_settings` reads them back. With no
variables (or ``--workers 1`` and no address) a run is local and single-process, and nothing imports Ray.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from simulo._checks import check_int
from simulo.errors import SimuloValueError

ENV_WORKERS = "SIMULO_WORKERS"
"""Environment variable: number of Ray workers (shards in flight) of the running job."""
ENV_ADDRESS = "SIMULO_RAY_ADDRESS"
"""Environment variable: address of an existing Ray cluster (``HOST:6379`` or ``ray://HOST:10001``)."""


def check_workers(value: object) -> int:
    """Return ``value`` if it is an integer >= 1.

    Raises:
        SimuloValueError: It is not.
    """
    return check_int(value, "workers", 1)


def check_address(value: object) -> str | None:
    """Return ``value`` if it is ``None`` or a non-empty address string without spaces.

    Raises:
        SimuloValueError: It is not.
    """
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value):
        raise SimuloValueError(f"address must be a Ray address such as 'HOST:6379' or 'ray://HOST:10001', "
                               f"got {value!r}")
    return value


@dataclass(frozen=True)
class ScaleSettings:
    """Where the shards of a run go.

    Attributes:
        workers: Ray workers (processes) working at once; 1 means in-process, without Ray.
        address: Address of an existing Ray cluster, or ``None`` to start a local one when ``workers > 1``.
    """

    workers: int = 1
    address: str | None = None

    def __post_init__(self) -> None:
        check_workers(self.workers)
        check_address(self.address)

    @property
    def uses_ray(self) -> bool:
        """Whether the run shards over Ray: more than one worker, or an explicit cluster address."""
        return self.workers > 1 or self.address is not None

    def environ(self) -> dict[str, str]:
        """The environment variables that carry these settings to a job process."""
        env = {ENV_WORKERS: str(self.workers)}
        if self.address is not None:
            env[ENV_ADDRESS] = self.address
        return env


def current_settings(environ: Mapping[str, str] | None = None) -> ScaleSettings:
    """The settings exported to this process (defaults: one worker, no address).

    Args:
        environ: Where to read the variables (default ``os.environ``).

    Raises:
        SimuloValueError: A variable holds a bad value (the message names it).
    """
    env = os.environ if environ is None else environ
    raw = env.get(ENV_WORKERS, "").strip()
    try:
        workers = int(raw) if raw else 1
    except ValueError:
        raise SimuloValueError(f"{ENV_WORKERS}={raw!r}: expected an integer >= 1") from None
    address = env.get(ENV_ADDRESS, "").strip() or None
    return ScaleSettings(workers=workers, address=address)
