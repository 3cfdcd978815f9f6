"""How many Ray workers a run uses, and which cluster: read without importing Ray.

``simulo run FILE --workers N --address ADDR`` exports the choice to the job process as the environment
variables :data:`ENV_WORKERS` and :data:`ENV_ADDRESS`; :func:`current_settings` reads them back. With no
variables (or ``--workers 1`` and no address) a run is local and single-process, and nothing imports Ray.

:func:`probe_address` checks, with one bounded TCP connect (at most :data:`PROBE_TIMEOUT_S` seconds), that
something listens at a cluster address before Ray is asked to join it: Ray itself retries an unreachable
address for many minutes.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from simulo.checks import check_int
from simulo.errors import SimuloValueError, WorkerError

ENV_WORKERS = "SIMULO_WORKERS"
"""Environment variable: number of Ray workers (shards in flight) of the running job."""
ENV_ADDRESS = "SIMULO_RAY_ADDRESS"
"""Environment variable: address of an existing Ray cluster (``HOST:6379`` or ``ray://HOST:10001``)."""
PROBE_TIMEOUT_S = 5.0
"""Seconds :func:`probe_address` waits for the host's name to resolve, and again for the TCP connect."""
_CLIENT_PORT = 10001  # a ray:// address without a port
_NO_HOST = ("auto", "local")  # addresses Ray resolves itself (a cluster started on this machine)


def check_workers(value: object) -> int:
    """Return ``value`` if it is an integer >= 1.

    Raises:
        SimuloValueError: It is not.
    """
    return check_int(value, "workers", 1)


def check_address(value: object) -> str | None:
    """Return ``value`` if it is ``None``, ``"auto"``, ``"local"``, ``HOST:PORT`` or ``ray://HOST[:PORT]``.

    Raises:
        SimuloValueError: It is not (the message names the value and the forms expected).
    """
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value):
        raise SimuloValueError(f"address must be a Ray address such as 'HOST:6379' or 'ray://HOST:10001', "
                               f"got {value!r}")
    if value not in _NO_HOST:
        host_port(value)
    return value


def host_port(address: str) -> tuple[str, int]:
    """The host and TCP port of a Ray address ``HOST:PORT``, ``[IPV6]:PORT`` or ``ray://HOST[:PORT]``.

    Raises:
        SimuloValueError: ``address`` has no host, or its port is not a number from 1 to 65535.
    """
    client = address.startswith("ray://")
    rest = address[len("ray://"):] if client else address
    if rest.startswith("["):  # [IPV6]:PORT
        end = rest.find("]")
        host, tail = (rest[1:end], rest[end + 1:]) if end > 0 else ("", "")
    else:
        host, colon, port_text = rest.rpartition(":")
        host, tail = (host, ":" + port_text) if colon else (rest, "")
        host = "" if ":" in host else host
    port_text = str(_CLIENT_PORT) if client and not tail else tail[1:] if tail.startswith(":") else ""
    port = int(port_text) if port_text.isdigit() else 0
    if not host or "/" in host or not 1 <= port <= 65535:
        raise SimuloValueError(f"address {address!r} is not a Ray address; expected 'HOST:6379', "
                               "'ray://HOST:10001' or 'auto'")
    return host, port


def _resolve(host: str, port: int, timeout_s: float) -> list[tuple[object, ...]]:
    """``socket.getaddrinfo`` for a TCP connect, given ``timeout_s`` seconds (the resolver has no timeout)."""
    found: list[list[tuple[object, ...]]] = []
    failed: list[OSError] = []

    def look_up() -> None:
        try:
            found.append(list(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)))
        except OSError as exc:
            failed.append(exc)

    thread = threading.Thread(target=look_up, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if failed:
        raise WorkerError(f"cannot reach a Ray cluster at {host}:{port}: the host name does not resolve "
                          f"({failed[0]})")
    if not found:
        raise WorkerError(f"cannot reach a Ray cluster at {host}:{port}: the host name did not resolve within "
                          f"{timeout_s:g} s")
    return found[0]


def probe_address(address: str | None, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Check that something accepts TCP connections at a Ray address, before Ray tries to join it.

    ``None``, ``"auto"`` and ``"local"`` are not probed (Ray finds those clusters itself). The name is
    resolved and the connect tried with ``timeout_s`` seconds each.

    Raises:
        SimuloValueError: ``address`` is not a Ray address.
        WorkerError: Nothing answers there: the connection was refused, the host does not resolve or
            no answer came within ``timeout_s`` seconds. The message names the address.
    """
    if address is None or check_address(address) in _NO_HOST:
        return
    host, port = host_port(address)
    why = ""
    for family, kind, proto, _, where in _resolve(host, port, timeout_s):
        try:
            with socket.socket(family, kind, proto) as sock:  # type: ignore[arg-type]
                sock.settimeout(timeout_s)
                sock.connect(where)  # type: ignore[arg-type]
            return
        except TimeoutError:
            why = f"no answer within {timeout_s:g} s"
        except OSError as exc:
            why = exc.strerror or str(exc)
    raise WorkerError(f"cannot reach a Ray cluster at {address!r}: {why or 'no address to connect to'}; is the "
                      "cluster running (ray start --head) and the port open?")


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
