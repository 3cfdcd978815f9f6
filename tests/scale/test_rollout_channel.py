"""The rollout channel of a Ray environment shard: a stray connection is dropped and the driver is still served."""

from __future__ import annotations

import socket
import threading
from multiprocessing.connection import Client, Listener

from simulo.scale.env_shard import EnvShard


def test_rollout_channel_drops_a_stray_connection_and_serves_the_driver() -> None:
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
