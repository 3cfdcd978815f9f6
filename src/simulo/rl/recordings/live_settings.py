"""Where ``simulo run --viewstream`` serves: the settings the CLI checks and hands the job process.

Kept apart from :mod:`simulo.rl.recordings.live` so that the CLI and the job runner read them without
importing the live view itself.
"""

from __future__ import annotations

import socket

from simulo.errors import SimuloValueError

#: Set to ``"1"`` in the job process by ``simulo run --viewstream``, ``"0"`` otherwise (the SDK's worker
#: uses the same name for the same signal).
ENABLED_VARIABLE = "SIMULO_VIEWSTREAM_ENABLED"
#: ``HOST:PORT`` the job process serves on (local: ``--viewstream-host``, ``--viewstream-port``).
ADDRESS_VARIABLE = "SIMULO_VIEWSTREAM_ADDRESS"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def parse_port(text: str) -> int:
    """``--viewstream-port``'s value as a port number.

    Raises:
        SimuloValueError: Not a whole number from 1 to 65535.
    """
    port = int(text) if text.strip().isdigit() else -1
    if not 1 <= port <= 65535:
        raise SimuloValueError(f"--viewstream-port needs a port number from 1 to 65535, got {text!r}")
    return port


def check_free(host: str, port: int) -> None:
    """Check that a server can listen on ``host:port`` now.

    Raises:
        SimuloValueError: The address is taken or cannot be bound here.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise SimuloValueError(f"--viewstream-host {host!r} is not an address of this computer: {exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise SimuloValueError(f"--viewstream cannot listen on {host}:{port} ({exc.strerror}); pick another "
                                   "port with --viewstream-port") from None


def environ(enabled: bool, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> tuple[tuple[str, str], ...]:
    """The job process's variables for a run with (or without) the live view."""
    if not enabled:
        return ((ENABLED_VARIABLE, "0"),)
    return ((ENABLED_VARIABLE, "1"), (ADDRESS_VARIABLE, f"{host}:{port}"))
