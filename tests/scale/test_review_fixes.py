"""Review fixes in simulo.scale: a Ray address that Ray refuses is a clear SimuloError, not a traceback."""

from __future__ import annotations

import types
from typing import Any

import pytest

from simulo.cli import pick_place
from simulo.errors import SimuloValueError, WorkerError
from simulo.scale import cluster


def _fake_ray(error: Exception) -> types.SimpleNamespace:
    def init(**kwargs: Any) -> None:
        raise error

    return types.SimpleNamespace(is_initialized=lambda: False, init=init, shutdown=lambda: None)


def test_cluster_refuses_an_address_ray_cannot_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "require_ray", lambda: _fake_ray(ValueError("Invalid address format: foo")))
    with pytest.raises(SimuloValueError, match=r"address 'foo' is not a Ray address.*HOST:6379"):
        cluster.Cluster(1, "foo")


def test_cluster_reports_an_unreachable_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "require_ray", lambda: _fake_ray(ConnectionError("GCS timed out")))
    with pytest.raises(WorkerError, match=r"cannot reach a Ray cluster at '10.0.0.9:6379'"):
        cluster.Cluster(2, "10.0.0.9:6379")


def test_pick_place_bad_address_is_a_message_and_exit_1(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cluster, "require_ray", lambda: _fake_ray(ValueError("Invalid address format: foo")))
    assert pick_place.main(["--trials", "1", "--address", "foo"]) == 1
    err = capsys.readouterr().err
    assert "simulo pick-place: address 'foo' is not a Ray address" in err
    assert "Traceback" not in err


def test_rollout_channel_drops_a_stray_connection_and_serves_the_driver() -> None:
    import threading
    from multiprocessing.connection import Client, Listener

    from simulo.scale.ray_env import EnvShard

    import socket

    shard = EnvShard()
    shard._listener = Listener(("127.0.0.1", 0), family="AF_INET", authkey=b"right key")
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(10)  # a regression fails instead of hanging
    address = shard._listener.address
    accepted: list = []
    thread = threading.Thread(target=lambda: accepted.append(shard._accept_driver()))
    thread.start()
    try:
        Client(address, family="AF_INET", authkey=b"wrong key")
    except Exception:  # noqa: BLE001 - the stray's handshake fails on its side too
        pass
    try:
        driver = Client(address, family="AF_INET", authkey=b"right key")
    finally:
        socket.setdefaulttimeout(previous)
    thread.join(timeout=10)
    assert not thread.is_alive() and len(accepted) == 1
    accepted[0].send("ping")
    assert driver.recv() == "ping"
    driver.close()
    accepted[0].close()
    shard._listener.close()
