"""The rollout channel of a Ray environment shard: a stray connection is dropped and the driver is still served;
a request for several actors is pickled once."""

from __future__ import annotations

import socket
import threading
from multiprocessing import Pipe
from multiprocessing.connection import Client, Listener
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np
import pytest

from simulo.scale.env_shard import EnvShard
from simulo.scale.ray_env import RayLearningEnv


def test_rollout_channel_drops_a_stray_connection_and_serves_the_driver() -> None:
    shard = EnvShard()
    shard._listener = Listener(("127.0.0.1", 0), family="AF_INET", authkey=b"right key")
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(60)  # a regression fails instead of hanging (generous: a loaded machine is slow)
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
    thread.join(timeout=60)
    assert not thread.is_alive() and len(accepted) == 1
    accepted[0].send("ping")
    assert driver.recv() == "ping"
    driver.close()
    accepted[0].close()
    shard._listener.close()



def test_a_request_for_several_actors_is_pickled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    pickled = []
    dumps = ForkingPickler.dumps
    monkeypatch.setattr(ForkingPickler, "dumps", classmethod(lambda cls, obj: pickled.append(obj) or dumps(obj)))
    pipes = [Pipe() for _ in range(3)]
    seen: list[Any] = []

    def actor(end: Any, k: int) -> None:  # one stand-in actor: read a request, answer with its number
        seen.append(end.recv())
        end.send(("ok", k))

    threads = [threading.Thread(target=actor, args=(end, k)) for k, (_, end) in enumerate(pipes)]
    for thread in threads:
        thread.start()
    env = RayLearningEnv.__new__(RayLearningEnv)  # only its channels: no Ray
    env._channels = [driver for driver, _ in pipes]
    shared = ({"params": np.arange(1000, dtype=np.float32)}, 0, 64)
    assert env.call_channels("gradients", [shared, shared, ({"params": np.zeros(3)}, 0, 64)], "a step") == [0, 1, 2]
    for thread in threads:
        thread.join(timeout=60)
    requests = [obj for obj in pickled if obj[0] == "gradients"]  # the stand-in actors' answers pickle too
    assert len(requests) == 2  # the request two actors share, then the third one's
    assert sorted(len(request[1]["params"]) for request in seen) == [3, 1000, 1000]
