"""Ray addresses: parsed before use, probed with one bounded TCP connect, and Ray's own retries kept short.

Only loopback addresses are used: a port nothing listens on (bound, then closed) or a listening socket
that is not Ray.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from simulo.errors import SimuloValueError, WorkerError
from simulo.scale import cluster
from simulo.scale.settings import check_address, host_port, probe_address


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def listening() -> Iterator[int]:
    """A loopback port that accepts connections and never answers (not a Ray cluster)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield int(sock.getsockname()[1])


def _fake_ray(error: Exception | None = None) -> types.SimpleNamespace:
    calls: list[dict[str, Any]] = []

    def init(**kwargs: Any) -> None:
        calls.append({**kwargs, "wait": os.environ.get("RAY_gcs_server_port_wait_time_s")})
        if error is not None:
            raise error

    return types.SimpleNamespace(is_initialized=lambda: False, init=init, shutdown=lambda: None, calls=calls)


@pytest.mark.parametrize(("address", "expected"), [
    ("head:6379", ("head", 6379)), ("127.0.0.1:6379", ("127.0.0.1", 6379)), ("ray://head:10001", ("head", 10001)),
    ("ray://head", ("head", 10001)), ("[::1]:6379", ("::1", 6379)), ("ray://[::1]", ("::1", 10001)),
])
def test_host_and_port_of_ray_addresses(address: str, expected: tuple[str, int]) -> None:
    assert host_port(address) == expected


@pytest.mark.parametrize("address", ["foo", "head:", "head:0", "head:65536", ":6379", "ray://", "a:b:c",
                                     "head:6379/x", "[::1]", "ray://h:p", "head:-1"])
def test_malformed_addresses_are_refused(address: str) -> None:
    with pytest.raises(SimuloValueError, match=rf"address {re.escape(repr(address))} is not a Ray address.*HOST:6379"):
        check_address(address)


def test_auto_and_local_are_not_probed() -> None:
    for address in (None, "auto", "local"):
        probe_address(address)


def test_probe_refused_port_is_a_worker_error() -> None:
    port = _closed_port()
    with pytest.raises(WorkerError, match=rf"cannot reach a Ray cluster at '127.0.0.1:{port}': Connection refused"):
        probe_address(f"127.0.0.1:{port}", timeout_s=2.0)


def test_probe_passes_where_something_listens(listening: int) -> None:
    probe_address(f"127.0.0.1:{listening}")


def test_cluster_refuses_an_address_ray_cannot_parse(monkeypatch: pytest.MonkeyPatch, listening: int) -> None:
    monkeypatch.setattr(cluster, "require_ray", lambda: _fake_ray(ValueError("Invalid address format")))
    with pytest.raises(SimuloValueError, match=r"address 'foo' is not a Ray address.*HOST:6379"):
        cluster.Cluster(1, "foo")
    with pytest.raises(SimuloValueError, match=r"is not a Ray address \(Invalid address format\)"):
        cluster.Cluster(1, f"127.0.0.1:{listening}")


def test_cluster_does_not_start_ray_where_nothing_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = _fake_ray()
    monkeypatch.setattr(cluster, "require_ray", lambda: ray)
    with pytest.raises(WorkerError, match="Connection refused"):
        cluster.Cluster(2, f"127.0.0.1:{_closed_port()}")
    assert ray.calls == []


def test_cluster_asks_ray_for_one_connect_attempt(monkeypatch: pytest.MonkeyPatch, listening: int) -> None:
    monkeypatch.delenv("RAY_gcs_server_port_wait_time_s", raising=False)
    ray = _fake_ray(ConnectionError("GCS timed out"))
    monkeypatch.setattr(cluster, "require_ray", lambda: ray)
    with pytest.raises(WorkerError, match=rf"cannot reach a Ray cluster at '127.0.0.1:{listening}': GCS timed out"):
        cluster.Cluster(2, f"127.0.0.1:{listening}")
    assert [call["wait"] for call in ray.calls] == [cluster.RAY_CONNECT_ATTEMPTS]
    assert "RAY_gcs_server_port_wait_time_s" not in os.environ  # restored after the attempt


@pytest.mark.slow
def test_real_ray_gives_up_on_a_port_that_is_not_ray(listening: int) -> None:
    pytest.importorskip("ray")
    script = ("from simulo.scale.cluster import Cluster\n"
              "from simulo.errors import WorkerError\n"
              "try:\n"
              f"    Cluster(1, '127.0.0.1:{listening}')\n"
              "except WorkerError as exc:\n"
              "    print('WorkerError', exc)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert "WorkerError cannot reach a Ray cluster at" in done.stdout, done.stderr[-2000:]
